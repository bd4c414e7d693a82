# A hostname of the authenticated account is imported by the hostname.
terraform import proxyaccount_authorized_hostname.office office.example.com

# A hostname of a sub-account: USERNAME/HOSTNAME.
terraform import proxyaccount_authorized_hostname.scraper price-scraper/scraper.example.org

# Or, with Terraform 1.5 or later, an import block in the configuration:
#
# import {
#   to = proxyaccount_authorized_hostname.scraper
#   id = "price-scraper/scraper.example.org"
# }

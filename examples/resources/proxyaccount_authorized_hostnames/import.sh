# The list of the account the provider authenticates as is imported as _self.
terraform import proxyaccount_authorized_hostnames.parent _self

# The list of a sub-account is imported by the sub-account's username.
terraform import proxyaccount_authorized_hostnames.scrapers scrapers

# Or, with Terraform 1.5 or later, an import block in the configuration:
#
# import {
#   to = proxyaccount_authorized_hostnames.scrapers
#   id = "scrapers"
# }

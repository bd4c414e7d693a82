# The complete list of the parent account's authorized hostnames (for example dynamic-DNS names
# of offices without a fixed address). Hostnames not listed here are removed on apply.
# Do not also manage these hostnames with proxyaccount_authorized_hostname.
resource "proxyaccount_authorized_hostnames" "parent" {
  domains = [
    "office.example.com",
    "vpn.example.com",
  ]
}

# A sub-account's list.
resource "proxyaccount_sub_account" "scrapers" {
  username = "scrapers"
}

resource "proxyaccount_authorized_hostnames" "scrapers" {
  username = proxyaccount_sub_account.scrapers.username
  domains  = ["scraper-1.example.com", "scraper-2.example.com"]
}

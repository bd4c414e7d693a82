# Requests from this host name's addresses may use the parent account's proxies.
resource "proxyaccount_authorized_hostname" "office" {
  domain = "office.example.com"
}

# A sub-account for a scraping job, reachable under a dynamic-DNS name.
resource "proxyaccount_sub_account" "scraper" {
  username = "price-scraper"
}

resource "proxyaccount_authorized_hostname" "scraper" {
  username = proxyaccount_sub_account.scraper.username
  domain   = "scraper.example.org"
}

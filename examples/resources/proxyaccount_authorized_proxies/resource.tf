# The complete list of proxies the parent account may use. Each may be written as a bare host,
# a full domain or domain:port; state keeps the form written here, and a proxy authorized
# outside Terraform shows up as drift in the API's domain:port form.
# Do not also manage these proxies with proxyaccount_authorized_proxy.
resource "proxyaccount_authorized_proxies" "all" {
  proxies = [
    "us-ny",                         # bare host
    "gb-lon.proxy.example.net",      # full domain
    "jp-tyo.proxy.example.net:3128", # domain:port, as the API lists it
  ]
}

# Proxies the parent account may use, written in any form the API accepts. The host names below
# are the emulator's catalogue (proxy domain proxy.example.net); use your service's.

# A bare host...
resource "proxyaccount_authorized_proxy" "new_york" {
  proxy = "us-ny"
}

# ...a full domain...
resource "proxyaccount_authorized_proxy" "frankfurt" {
  proxy = "de-fra.proxy.example.net"
}

# ...or domain:port, as GET /api/proxies/ lists it.
resource "proxyaccount_authorized_proxy" "tokyo" {
  proxy = "jp-tyo.proxy.example.net:3128"
}

# The full domain as the API reports it, e.g. for a client configuration.
output "proxy_domains" {
  value = [
    proxyaccount_authorized_proxy.new_york.domain,
    proxyaccount_authorized_proxy.frankfurt.domain,
    proxyaccount_authorized_proxy.tokyo.domain,
  ]
}

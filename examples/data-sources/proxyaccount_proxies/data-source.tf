# Every proxy the parent account may use, as domain:port, e.g. to write a client configuration.
data "proxyaccount_proxies" "all" {}

output "proxy_endpoints" {
  value = data.proxyaccount_proxies.all.proxies
}

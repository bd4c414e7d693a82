# How many proxy IPs each country has in the world pool.
data "proxyaccount_geoips" "world" {
  pool = "world"
}

# Countries with at least 100,000 IPs, for the X-Service-Country header of proxy requests.
output "large_countries" {
  value = sort([for country, count in data.proxyaccount_geoips.world.counts : country if count >= 100000])
}

# The office's egress address may use the proxies of the parent account without credentials.
resource "proxyaccount_authorized_ip" "office" {
  ip    = "203.0.113.7"
  label = "office"
}

# A sub-account for the CI system, and the address of its runners.
resource "proxyaccount_sub_account" "ci" {
  username = "ci-runners"
}

resource "proxyaccount_authorized_ip" "ci_runner" {
  username = proxyaccount_sub_account.ci.username
  ip       = "198.51.100.24"
  label    = "ci runner egress"
}

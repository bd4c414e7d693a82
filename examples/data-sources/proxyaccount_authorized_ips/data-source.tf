# The authorized IPs of the account the provider authenticates as, sorted by address.
data "proxyaccount_authorized_ips" "parent" {}

output "parent_ips" {
  value = { for e in data.proxyaccount_authorized_ips.parent.entries : e.ip => e.label }
}

# Those of a sub-account (the provider authenticates as its parent).
resource "proxyaccount_sub_account" "ci" {
  username = "ci-readonly"
}

data "proxyaccount_authorized_ips" "ci" {
  username = proxyaccount_sub_account.ci.username
}

output "ci_ips" {
  value = data.proxyaccount_authorized_ips.ci.entries[*].ip
}

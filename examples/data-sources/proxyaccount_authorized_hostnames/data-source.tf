# The authorized hostnames of the account the provider authenticates as, sorted.
data "proxyaccount_authorized_hostnames" "parent" {}

output "parent_hostnames" {
  value = data.proxyaccount_authorized_hostnames.parent.domains
}

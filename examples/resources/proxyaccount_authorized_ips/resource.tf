# The complete list of the parent account's authorized IPs. Terraform owns it: an address added
# in the web console shows up as drift in the next plan and is removed by the next apply.
# Do not also manage these addresses with proxyaccount_authorized_ip.
resource "proxyaccount_authorized_ips" "parent" {
  entries = [
    { ip = "203.0.113.7", label = "office" },
    { ip = "203.0.113.8", label = "office backup line" },
    { ip = "198.51.100.24" },
  ]
}

# A sub-account for the CI system, and the complete list of its runners' addresses.
resource "proxyaccount_sub_account" "ci" {
  username = "ci-runners"
}

variable "ci_runner_ips" {
  description = "Egress addresses of the CI runners."
  type        = set(string)
  default     = ["198.51.100.30", "198.51.100.31"]
}

resource "proxyaccount_authorized_ips" "ci" {
  username = proxyaccount_sub_account.ci.username
  entries  = [for ip in var.ci_runner_ips : { ip = ip, label = "ci runner" }]
}

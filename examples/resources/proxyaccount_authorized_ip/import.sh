# An IP address of the authenticated account is imported by the address.
terraform import proxyaccount_authorized_ip.office 203.0.113.7

# An IP address of a sub-account: USERNAME/IP.
terraform import proxyaccount_authorized_ip.ci_runner ci-runners/198.51.100.24

# Or, with Terraform 1.5 or later, an import block in the configuration:
#
# import {
#   to = proxyaccount_authorized_ip.ci_runner
#   id = "ci-runners/198.51.100.24"
# }

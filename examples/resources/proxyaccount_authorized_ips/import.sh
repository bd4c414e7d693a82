# The list of the account the provider authenticates as is imported as _self.
terraform import proxyaccount_authorized_ips.parent _self

# The list of a sub-account is imported by the sub-account's username.
terraform import proxyaccount_authorized_ips.ci ci-runners

# Or, with Terraform 1.5 or later, an import block in the configuration:
#
# import {
#   to = proxyaccount_authorized_ips.parent
#   id = "_self"
# }

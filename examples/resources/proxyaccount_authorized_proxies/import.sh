# The proxy list belongs to the account the provider authenticates as; its ID is always _self.
# After an import, state lists the proxies as domain:port; the next apply adopts the forms
# written in the configuration without sending any request for proxies that are already there.
terraform import proxyaccount_authorized_proxies.all _self

# Or, with Terraform 1.5 or later, an import block in the configuration:
#
# import {
#   to = proxyaccount_authorized_proxies.all
#   id = "_self"
# }

# An authorized proxy is imported by the proxy, in the form the configuration writes it:
# a bare host, a full domain or domain:port.
terraform import proxyaccount_authorized_proxy.new_york us-ny
terraform import proxyaccount_authorized_proxy.frankfurt de-fra.proxy.example.net
terraform import proxyaccount_authorized_proxy.tokyo jp-tyo.proxy.example.net:3128

# Or, with Terraform 1.5 or later, an import block in the configuration:
#
# import {
#   to = proxyaccount_authorized_proxy.tokyo
#   id = "jp-tyo.proxy.example.net:3128"
# }

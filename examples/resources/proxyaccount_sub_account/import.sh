# A sub-account is imported by its username. The API never shows a password, nor whether the
# sub-account has one, so the import records none (password and password_wo_version stay null,
# and the import warns of it) and no plan shows a difference. Any password the sub-account has
# keeps working with the API and the proxy servers until one is applied in its place: set
# password_wo with password_wo_version (Terraform 1.11 or later), or password, and the first
# apply after the import sends it, before recording password_wo_version.
terraform import proxyaccount_sub_account.analytics analytics-team
terraform import proxyaccount_sub_account.contractor contractor-2024

# Or, with Terraform 1.5 or later, an import block in the configuration:
#
# import {
#   to = proxyaccount_sub_account.analytics
#   id = "analytics-team"
# }

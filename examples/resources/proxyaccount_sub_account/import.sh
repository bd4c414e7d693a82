# A sub-account is imported by its username. The API never returns passwords, so password stays
# null and the first apply after import records password_wo_version (sending password_wo if set).
terraform import proxyaccount_sub_account.analytics analytics-team
terraform import proxyaccount_sub_account.contractor contractor-2024

# Or, with Terraform 1.5 or later, an import block in the configuration:
#
# import {
#   to = proxyaccount_sub_account.analytics
#   id = "analytics-team"
# }

# A sub-account is imported by its username. The API never returns passwords, so password stays
# null; to manage the password, the first apply after import must give password_wo, which it
# sends before recording password_wo_version.
terraform import proxyaccount_sub_account.analytics analytics-team
terraform import proxyaccount_sub_account.contractor contractor-2024

# Or, with Terraform 1.5 or later, an import block in the configuration:
#
# import {
#   to = proxyaccount_sub_account.analytics
#   id = "analytics-team"
# }

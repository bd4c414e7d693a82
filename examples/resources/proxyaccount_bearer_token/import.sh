# A token of the authenticated account is imported by its numeric ID (see GET /api/tokens/ or the
# proxyaccount_bearer_tokens data source). The raw token cannot be read back: it is null after import.
terraform import proxyaccount_bearer_token.deploy 42

# A token of a sub-account: USERNAME/TOKEN_ID.
terraform import proxyaccount_bearer_token.reporting reporting-svc/43

# Or, with Terraform 1.5 or later, an import block in the configuration:
#
# import {
#   to = proxyaccount_bearer_token.deploy
#   id = "42"
# }

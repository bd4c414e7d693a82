# A token for the deploy pipeline, valid until the end of 2030 (it stops working at
# 00:00 UTC on the expiry date).
resource "proxyaccount_bearer_token" "deploy" {
  label      = "deploy pipeline"
  expires_at = "2030-12-31"
}

# A token of a sub-account, created deactivated until the integration goes live.
resource "proxyaccount_sub_account" "reporting" {
  username = "reporting-svc"
}

resource "proxyaccount_bearer_token" "reporting" {
  username = proxyaccount_sub_account.reporting.username
  label    = "reporting service"
  active   = false
}

# The raw token is known only to the Terraform run that created the token (it is kept in state).
output "deploy_token" {
  value     = proxyaccount_bearer_token.deploy.token
  sensitive = true
}

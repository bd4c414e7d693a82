# In a write-only argument of another provider (Terraform 1.11 or later): the token reaches the
# other system without ever being stored in this configuration's plan or state. Here, as a
# secret version of a cloud secret manager, written only when secret_version changes.
ephemeral "proxyaccount_bearer_token" "app" {
  label      = "app-deploy"
  expires_at = "2030-01-31"
}

# resource "aws_secretsmanager_secret_version" "proxy_token" {
#   secret_id                = aws_secretsmanager_secret.proxy_token.id
#   secret_string_wo         = ephemeral.proxyaccount_bearer_token.app.token
#   secret_string_wo_version = 1
# }

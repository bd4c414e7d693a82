# Metadata of the bearer tokens of the account the provider authenticates as (never the token
# values, which the API shows only once). Needs username and password credentials.
data "proxyaccount_bearer_tokens" "mine" {}

output "active_token_labels" {
  value = [for t in data.proxyaccount_bearer_tokens.mine.tokens : coalesce(t.label, "token ${t.token_id}") if t.active]
}

# Tokens expiring within 30 days (a null expires_at never expires).
output "expiring_soon" {
  value = [
    for t in data.proxyaccount_bearer_tokens.mine.tokens : t.token_id
    if timecmp(coalesce(t.expires_at, "9999-12-31T23:59:59Z"), timeadd(plantimestamp(), "720h")) < 0
  ]
}

# A sub-account managed elsewhere (here in the same configuration, for a self-contained example).
resource "proxyaccount_sub_account" "analytics" {
  username      = "analytics-team"
  monthly_limit = 50
}

# Its details, including the bandwidth used so far (GB), e.g. for billing.
data "proxyaccount_sub_account" "analytics" {
  username = proxyaccount_sub_account.analytics.username
}

output "analytics_usage_gb" {
  value = {
    this_period = data.proxyaccount_sub_account.analytics.monthly_bandwidth
    total       = data.proxyaccount_sub_account.analytics.total_bandwidth
    limit       = data.proxyaccount_sub_account.analytics.monthly_limit
  }
}

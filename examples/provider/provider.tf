terraform {
  required_providers {
    proxyaccount = {
      source  = "proxyaccount/proxyaccount"
      version = "~> 0.1"
    }
  }
}

# Every setting can come from the environment, which keeps secrets out of the configuration:
#
#   export PROXYACCOUNT_BASE_URL=https://api.example.com
#   export PROXYACCOUNT_USERNAME=acme
#   export PROXYACCOUNT_PASSWORD=...          # or PROXYACCOUNT_TOKEN=... instead of both
#   export PROXYACCOUNT_CA_CERT_FILE=ca.pem   # only for a private certificate, e.g. the emulator's
#
# Bearer tokens (proxyaccount_bearer_token) can only be managed with username and password.
#
# A plan proves the credentials with one request even when nothing else needs the API, so a wrong
# password fails the plan, not the apply after review. The API bans an address after 4 failed
# authentications: rejected credentials are remembered across runs (PROXYACCOUNT_AUTH_FAILURE_CACHE,
# ~/.cache/proxyaccount by default; CI runners must keep it, see docs/gitops.md) and are not sent
# again, nor anything else once 2 failures are remembered: 401s, and requests that got no answer
# (an outage, a gateway timeout), which the API may have counted; after such an outage every
# credential is paused until the entries expire (3 h 15 min) or the cache is cleared.
provider "proxyaccount" {}

# The same settings written out (values here override the environment):
#
# provider "proxyaccount" {
#   base_url        = "https://api.example.com"
#   username        = "acme"
#   password        = var.proxyaccount_password
#   request_timeout = 30
#   max_retries     = 3
# }

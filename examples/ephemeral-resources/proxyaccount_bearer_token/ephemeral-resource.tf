# A token for this run only: created when Terraform opens it, deleted when the run is done (failed
# or interrupted runs too), never written to plan or state (Terraform 1.10 or later). Use it only
# for what runs during the run: anything that stores it gets a token that no longer works.
variable "username" {
  type = string
}

variable "password" {
  type      = string
  sensitive = true
}

# The account's own provider: username and password (needed to create tokens).
provider "proxyaccount" {
  username = var.username
  password = var.password
}

ephemeral "proxyaccount_bearer_token" "ci" {
  label = "ci-run"
}

# Least privilege: a second provider instance that authenticates with the run's token. A bearer
# token cannot manage tokens, only IPs, hostnames and the other access lists.
provider "proxyaccount" {
  alias = "scoped"
  token = ephemeral.proxyaccount_bearer_token.ci.token
}

resource "proxyaccount_authorized_ip" "runner" {
  provider = proxyaccount.scoped
  ip       = "203.0.113.50"
  label    = "ci runner"
}

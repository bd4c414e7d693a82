# A sub-account for the analytics team, with its own bandwidth limits (GB; 0 = no limit).
resource "proxyaccount_sub_account" "analytics" {
  username      = "analytics-team"
  first_name    = "Ada"
  last_name     = "Lovelace"
  email         = "analytics@example.com"
  monthly_limit = 50
  total_limit   = 500

  # The password is write-only (Terraform 1.11 or later): it never reaches plan or state.
  # Set TF_VAR_analytics_password in the run that creates the sub-account and in each run that
  # bumps the version (bump it whenever the password changes); the runs in between may leave it
  # unset, and the password stays as it is.
  password_wo         = var.analytics_password
  password_wo_version = 1
}

variable "analytics_password" {
  description = "Password of the analytics sub-account: needed when it is created and whenever password_wo_version changes."
  type        = string
  sensitive   = true
  ephemeral   = true
  default     = null
}

# A contractor's sub-account, kept but switched off (its proxy requests get 402).
resource "proxyaccount_sub_account" "contractor" {
  username = "contractor-2024"
  active   = false
}

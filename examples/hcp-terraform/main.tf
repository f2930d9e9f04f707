# tfgate as a run task in HCP Terraform / Terraform Enterprise: the organization's run task pointing at
# `tfgate serve`, attached to a workspace as mandatory (see README.md for the advisory-first rollout).
# Resources of the tfe provider: tfe_organization_run_task, tfe_workspace_run_task.

terraform {
  required_version = ">= 1.11"
  required_providers {
    tfe = {
      source  = "hashicorp/tfe"
      version = ">= 0.75" # hmac_key_wo (0.65) and hmac_key_wo_version (0.75)
    }
  }
}

# Authenticates with TFE_TOKEN (and TFE_HOSTNAME for Terraform Enterprise) from the environment.
provider "tfe" {}

variable "organization" {
  type        = string
  description = "The HCP Terraform organization."
}

variable "workspace" {
  type        = string
  description = "The workspace whose runs tfgate judges (its design package is the one in tfgate_url)."
}

variable "tfgate_url" {
  type        = string
  description = "The Endpoint URL printed by `tfgate run-task configure --package <id>`."
}

variable "tfgate_hmac_key" {
  type        = string
  sensitive   = true
  ephemeral   = true
  description = "The HMAC key given to tfgate (TFGATE_RUN_TASK_HMAC_KEY, or the key --generate-key printed). Set it with TF_VAR_tfgate_hmac_key from your secret store."
}

variable "tfgate_hmac_key_version" {
  type        = number
  default     = 1
  description = "Raise it when the HMAC key changes (tfgate run-task configure with a new key): HCP Terraform only receives a write-only key when this changes."
}

variable "enforcement_level" {
  type        = string
  default     = "mandatory"
  description = "mandatory: a failed tfgate decision stops the run before apply. Roll out with advisory first (README.md)."
  validation {
    condition     = contains(["advisory", "mandatory"], var.enforcement_level)
    error_message = "enforcement_level is advisory or mandatory."
  }
}

data "tfe_workspace" "this" {
  name         = var.workspace
  organization = var.organization
}

resource "tfe_organization_run_task" "tfgate" {
  organization = var.organization
  name         = "tfgate"
  url          = var.tfgate_url
  enabled      = true
  description  = "Judges each plan against the package's approved design (tfgate)."
  # Write-only: the key is sent to HCP Terraform and never stored in the Terraform state; it is sent again only
  # when hmac_key_wo_version changes, so raise that with each new key.
  hmac_key_wo         = var.tfgate_hmac_key
  hmac_key_wo_version = var.tfgate_hmac_key_version
}

# No stage given: the provider's default, post-plan, is where tfgate judges the plan.
resource "tfe_workspace_run_task" "tfgate" {
  workspace_id      = data.tfe_workspace.this.id
  task_id           = tfe_organization_run_task.tfgate.id
  enforcement_level = var.enforcement_level
}

# terraform_data stands in for cloud resources, so this configuration plans and applies anywhere,
# with no provider to download. The design (design.yaml) maps terraform_data to a kind in its catalog.

variable "ledger_enabled" {
  description = "Set to false to plan the ledger's destruction: the design's ledger capability depends on it."
  type        = bool
  default     = true
}

variable "release" {
  description = "Changing it replaces nothing; it shows an in-place update."
  type        = string
  default     = "v1"
}

resource "terraform_data" "ledger" {
  count = var.ledger_enabled ? 1 : 0
  input = { role = "ledger database", release = var.release }
}

resource "terraform_data" "queue" {
  input = { role = "payments queue", release = var.release }
}

output "queue_id" {
  value = terraform_data.queue.id
}

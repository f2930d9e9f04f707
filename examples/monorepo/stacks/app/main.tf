# The payments team's root module: the ledger is what its capability depends on.
resource "terraform_data" "ledger" {
  input = { role = "ledger database" }
}

resource "terraform_data" "queue" {
  input = { role = "payments queue" }
}

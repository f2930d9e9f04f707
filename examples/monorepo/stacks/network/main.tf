# The network team's root module. terraform_data stands in for cloud resources (no provider to download).
resource "terraform_data" "network" {
  input = { role = "shared network" }
}

resource "terraform_data" "subnet" {
  count = 2
  input = { role = "subnet", index = count.index }
}

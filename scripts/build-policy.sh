#!/usr/bin/env bash
# Compile the conformance policy (policy/tfgate/*.rego) to policy/policy.wasm, and record a digest of the
# Rego sources it was built from (policy/policy.wasm.sources.sha256). test/policy/rego.test.ts recomputes
# the digest and fails when the Rego changed without a rebuild. Needs `opa` on PATH (scripts/setup-tools.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export PATH="$root/.tools/bin:$PATH"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

opa check --v1-compatible policy/tfgate/
opa build -t wasm --ignore "*_test.rego" -e tfgate/conformance/plan -e tfgate/conformance/drift policy/tfgate/ \
  -o "$work/bundle.tar.gz"
tar -xzf "$work/bundle.tar.gz" -C "$work" /policy.wasm 2>/dev/null || tar -xzf "$work/bundle.tar.gz" -C "$work" policy.wasm

# Write temp files, then rename: never a half-written artifact.
cp "$work/policy.wasm" policy/policy.wasm.tmp
node scripts/policy-sources-digest.mjs >policy/policy.wasm.sources.sha256.tmp
chmod 644 policy/policy.wasm.tmp
mv policy/policy.wasm.tmp policy/policy.wasm
mv policy/policy.wasm.sources.sha256.tmp policy/policy.wasm.sources.sha256
echo "build-policy: wrote policy/policy.wasm ($(wc -c <policy/policy.wasm) bytes), sources $(cat policy/policy.wasm.sources.sha256)"

// Packages on the real service for gate tests: one clean, one with open drift (high + critical).
import { api, CONFORMANCE, createApprovedPackage, type TestService } from '../helpers/service.js';

function resource(name: string) {
  return {
    address: `terraform_data.${name}`,
    mode: 'managed',
    type: 'terraform_data',
    name,
    provider_name: 'terraform.io/builtin/terraform',
    schema_version: 0,
    values: { id: `id-${name}`, input: null, output: null, triggers_replace: null },
  };
}

/** `terraform show -json` on a state holding these terraform_data resources. */
export function observedState(...names: string[]): string {
  return JSON.stringify({
    format_version: '1.0',
    terraform_version: '1.11.4',
    values: { root_module: { resources: names.map(resource) } },
  });
}

/** Clean: every observed resource sanctioned, every dependency present. */
export async function cleanPackage(svc: TestService, packageId = 'gate-clean'): Promise<string> {
  return createApprovedPackage(
    svc,
    `package_id: ${packageId}
name: Clean
sanctioned_kinds: [generic_data]
capabilities:
  - name: ledger
    depends_on: ["terraform_data.ledger"]
catalog:
  terraform_data: generic_data
`,
    { observedState: observedState('ledger') },
  );
}

/**
 * Drifted: `terraform_data.extra` is of an unsanctioned kind (high), and the `ledger` capability's
 * dependency is missing (critical).
 */
export async function driftedPackage(svc: TestService, packageId = 'gate-drift'): Promise<string> {
  return createApprovedPackage(
    svc,
    `package_id: ${packageId}
name: Drifted
sanctioned_kinds: []
capabilities:
  - name: ledger
    depends_on: ["terraform_data.ledger"]
catalog:
  terraform_data: generic_data
`,
    { observedState: observedState('extra') },
  );
}

interface Finding {
  id: string;
  rule: string;
  severity: string;
  address: string;
}

export async function openFindings(svc: TestService, packageId: string): Promise<Finding[]> {
  const res = await api<{ findings: Finding[] }>(
    svc,
    'GET',
    `${CONFORMANCE}/packages/${packageId}/findings?status=open`,
  );
  if (res.status !== 200) throw new Error(`findings: ${res.status} ${res.text}`);
  return res.body.findings;
}

export async function acknowledge(svc: TestService, packageId: string, findingId: string, reason: string) {
  const res = await api(
    svc,
    'POST',
    `${CONFORMANCE}/packages/${packageId}/findings/${findingId}/acknowledge`,
    {
      body: { reason },
    },
  );
  if (res.status !== 200) throw new Error(`acknowledge: ${res.status} ${res.text}`);
}

export async function runDriftCheck(svc: TestService, packageId: string) {
  const res = await api(svc, 'POST', `${CONFORMANCE}/packages/${packageId}/drift-checks`);
  if (res.status >= 300) throw new Error(`drift check: ${res.status} ${res.text}`);
}

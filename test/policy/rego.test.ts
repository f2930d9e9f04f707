// The Rego itself, with the real opa: its unit tests, lint, the freshness of the committed policy.wasm,
// and opa eval on a whole `terraform show -json` plan agreeing with the in-process engine.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { policySourcesDigest } from '../../scripts/policy-sources-digest.mjs';
import { parseDesign } from '../../src/design/index.js';
import type { PlanInput, ResourceChange } from '../../src/model/index.js';
import { compilePolicyData } from '../../src/policy/data.js';
import { PolicyEngine } from '../../src/policy/engine.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const policyDir = join(root, 'policy');
const work = mkdtempSync(join(tmpdir(), 'tfgate-rego-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the Rego sources', () => {
  it('pass their unit tests (opa test)', async () => {
    const result = await execa('opa', ['test', policyDir], { reject: false });
    expect(result.stdout + result.stderr).toMatch(/PASS: \d+\/\d+/);
    expect(result.exitCode).toBe(0);
  });

  it('compile as Rego v1 (opa check) and are formatted (opa fmt --list lists nothing)', async () => {
    await execa('opa', ['check', '--v1-compatible', policyDir]);
    const { stdout } = await execa('opa', ['fmt', '--list', policyDir]);
    expect(stdout.trim()).toBe('');
  });

  it('built the committed policy.wasm (else: run scripts/build-policy.sh)', () => {
    const recorded = readFileSync(join(policyDir, 'policy.wasm.sources.sha256'), 'utf8').trim();
    if (policySourcesDigest() !== recorded) {
      throw new Error('policy.wasm is stale: run scripts/build-policy.sh');
    }
  });

  it('have a digest that changes with the policy and ignores the tests', () => {
    const copy = join(work, 'policy-copy');
    cpSync(policyDir, copy, { recursive: true });
    const before = policySourcesDigest(copy);
    writeFileSync(join(copy, 'tfgate', 'conformance_test.rego'), '# changed tests\n', { flag: 'a' });
    expect(policySourcesDigest(copy)).toBe(before);
    writeFileSync(join(copy, 'tfgate', 'conformance.rego'), '# changed policy\n', { flag: 'a' });
    expect(policySourcesDigest(copy)).not.toBe(before);
  });
});

describe('opa eval on a whole plan agrees with the in-process engine on the reduced plan', () => {
  const design = parseDesign(
    readFileSync(join(root, 'examples/designs/payments.yaml'), 'utf8'),
    'payments.yaml',
  );
  const data = compilePolicyData(design);

  // A plan as `terraform show -json` writes it: values, configuration and all.
  const changes: Array<ResourceChange & Record<string, unknown>> = [
    ['aws_iam_user.ci', 'aws_iam_user', ['create']],
    ['aws_db_instance.ledger', 'aws_db_instance', ['delete', 'create']],
    ['module.queue[0].aws_sqs_queue.q', 'aws_sqs_queue', ['delete']],
    ['terraform_data.settlement_store', 'terraform_data', ['delete']],
    ['terraform_data.audit_log', 'terraform_data', ['create', 'delete']],
    ['module.settlement.terraform_data.batch["a"]', 'terraform_data', ['delete']],
    ['aws_s3_bucket.reports', 'aws_s3_bucket', ['create']],
    ['vendor_widget.w', 'vendor_widget', ['create']],
    ['aws_kms_key.k', 'aws_kms_key', ['update']],
    ['aws_kms_key.old', 'aws_kms_key', ['forget']],
    ['aws_iam_role.r', 'aws_iam_role', ['no-op']],
  ].map(([address, type, actions]) => ({
    address: address as string,
    mode: 'managed',
    type: type as string,
    name: (address as string).split('.').at(-1) as string,
    provider_name: 'registry.terraform.io/hashicorp/aws',
    change: {
      actions: actions as ResourceChange['change']['actions'],
      before: { password: 'hunter2', tags: { a: 'b' } },
      after: { password: 'hunter3' },
      after_unknown: {},
      before_sensitive: { password: true },
      after_sensitive: { password: true },
    },
  }));
  changes.push({
    address: 'aws_db_instance.ledger',
    mode: 'managed',
    type: 'aws_db_instance',
    name: 'ledger',
    deposed: '00000001',
    change: { actions: ['delete'] },
  });
  changes.push({
    address: 'aws_iam_user.imported',
    mode: 'managed',
    type: 'aws_iam_user',
    name: 'imported',
    change: { actions: ['no-op'], importing: { id: 'imported' } },
  });
  changes.push({
    address: 'data.aws_caller_identity.me',
    mode: 'data',
    type: 'aws_caller_identity',
    name: 'me',
    change: { actions: ['read'] },
  });
  const fullPlan = {
    format_version: '1.2',
    terraform_version: '1.11.4',
    variables: { db_password: { value: 'hunter2' } },
    planned_values: { root_module: {} },
    resource_changes: changes,
    resource_drift: [],
    prior_state: { format_version: '1.0', values: { root_module: {} } },
    configuration: { root_module: {} },
    timestamp: '2026-01-01T00:00:00Z',
    applyable: true,
    complete: true,
    errored: false,
  };
  const reduced: PlanInput = {
    format_version: '1.2',
    resource_changes: changes.map((rc) => {
      const { address, mode, type, name, deposed, change } = rc;
      return {
        address,
        mode,
        type,
        name,
        ...(deposed ? { deposed } : {}),
        change: { actions: change.actions, ...(change.importing ? { importing: change.importing } : {}) },
      };
    }),
  };

  it('gives the same findings and counts', async () => {
    writeFileSync(join(work, 'plan.json'), JSON.stringify(fullPlan));
    writeFileSync(join(work, 'data.json'), JSON.stringify({ tfgate: data }));
    const { stdout } = await execa('opa', [
      'eval',
      '--format',
      'json',
      '-d',
      join(policyDir, 'tfgate', 'conformance.rego'),
      '-d',
      join(work, 'data.json'),
      '-i',
      join(work, 'plan.json'),
      'data.tfgate.conformance.plan',
    ]);
    const byOpa = JSON.parse(stdout).result[0].expressions[0].value;
    const inProcess = (await PolicyEngine.load()).evaluatePlan(data, reduced);

    const key = (f: { address: string; rule: string }) => `${f.address}\u0000${f.rule}`;
    const withoutIds = inProcess.findings.map(({ id: _id, ...rest }) => rest);
    expect([...byOpa.findings].sort((a, b) => (key(a) < key(b) ? -1 : 1))).toEqual(withoutIds);
    expect(byOpa.counts).toEqual(inProcess.counts);
    expect(byOpa.errors).toEqual([]);
    // The plan exercises every rule and count, so the comparison above is not vacuous.
    expect(inProcess.counts).toEqual({
      resource_changes: 14,
      creations: 5,
      destructions: 5,
      unrecognized: 1,
      findings: 6,
      updates: 1,
      reads: 1,
      imports: 1,
      forgets: 1,
      no_ops: 1,
    });
    expect(JSON.stringify(inProcess)).not.toContain('hunter');
  });
});

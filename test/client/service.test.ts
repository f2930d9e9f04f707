// The remote evaluator against the real service on loopback: streamed uploads, decisions, and the errors
// the service answers before or after reading the body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteEvaluator, ServiceClient } from '../../src/client/index.js';
import { bufferSource } from '../../src/plan/index.js';
import { failure } from '../helpers/errors.js';
import { createApprovedPackage, startService, type TestService } from '../helpers/service.js';

let svc: TestService;
let designs = true;
beforeAll(async () => {
  svc = await startService({ env: { TFGATE_MAX_BODY: '262144' } });
  designs = await createApprovedPackage(
    svc,
    `package_id: eval-demo
name: Evaluation demo
sanctioned_kinds: [generic_data]
capabilities:
  - name: ledger
    depends_on: ["terraform_data.ledger"]
catalog:
  terraform_data: generic_data
`,
  ).then(
    () => true,
    () => false,
  );
});
afterAll(async () => {
  await svc?.stop();
});

function change(name: string, actions: string[]) {
  return {
    address: `terraform_data.${name}`,
    mode: 'managed',
    type: 'terraform_data',
    name,
    provider_name: 'terraform.io/builtin/terraform',
    change: { actions, before: null, after: { input: 'x' } },
  };
}

function plan(changes: unknown[], padding = 0): string {
  return JSON.stringify({
    format_version: '1.2',
    terraform_version: '1.11.4',
    variables: { padding: { value: 'p'.repeat(padding) } },
    resource_changes: changes,
  });
}

async function remote(key = svc.apiKey, packageId = 'eval-demo') {
  const client = await ServiceClient.fromOptions({}, { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: key });
  return { client, evaluator: new RemoteEvaluator(client, packageId) };
}

describe('remote evaluation against the real service', () => {
  it('passes a plan that only creates sanctioned kinds', async () => {
    if (!designs) return expect.fail('the service could not create a package (design parsing)');
    const { client, evaluator } = await remote();
    const result = await evaluator.evaluate(bufferSource(plan([change('settings', ['create'])])), 'high');
    await client.close();
    expect(result.decision).toBe('pass');
    expect(result.counts.creations).toBe(1);
  });

  it('blocks the destruction of a capability dependency, with the finding', async () => {
    if (!designs) return expect.fail('the service could not create a package (design parsing)');
    const { client, evaluator } = await remote();
    const result = await evaluator.evaluate(bufferSource(plan([change('ledger', ['delete'])])), 'high');
    await client.close();
    expect(result.decision).toBe('block');
    expect(result.findings).toMatchObject([
      { rule: 'capability_dependency_destroyed', severity: 'critical', address: 'terraform_data.ledger' },
    ]);
  });

  it('explains a plan over the service size limit (413) as no decision', async () => {
    if (!designs) return expect.fail('the service could not create a package (design parsing)');
    const { client, evaluator } = await remote();
    const error = await failure(evaluator.evaluate(bufferSource(plan([], 1_000_000)), 'high'));
    await client.close();
    expect(error.code).toBe('payload_too_large');
    expect(error.exitCode).toBe(4);
  });

  it('reports a wrong key as 401 even when the service answers before reading a large body', async () => {
    const { client, evaluator } = await remote('tfg_not_a_key_at_all');
    const error = await failure(evaluator.evaluate(bufferSource(plan([], 5_000_000)), 'high'));
    await client.close();
    expect(error.code).toBe('invalid_api_key');
    expect(error.exitCode).toBe(1);
  });

  it('reports an unknown package as 404 before any plan is judged', async () => {
    const { client, evaluator } = await remote(svc.apiKey, 'no-such-package');
    const error = await failure(evaluator.evaluate(bufferSource(plan([], 100_000)), 'high'));
    await client.close();
    expect(error.code).toBe('package_not_found');
  });
});

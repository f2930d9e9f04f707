// tfgate as an HCP Terraform run task, on the embedded store, against a double of HCP Terraform (see
// hcp-terraform-double.ts): configuration, signatures, origins, decisions, delivery retries, HCP Terraform's
// retries of the same task. Every callback body is validated against the documented result format.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../../helpers/service.js';
import { DB, design, PLAN_BLOCKED, PLAN_CLEAN, planJson as planJsonOf } from '../fixtures.js';
import {
  configureRunTask,
  documentedTaskResultSchema,
  type HcpTerraformDouble,
  planIdOf,
  sendRunTask,
  signBody,
  startHcpTerraformDouble,
  waitFor,
} from './hcp-terraform-double.js';

const KEY = `${'k'.repeat(20)}run-task-hmac-key-0123456789`;
let service: TestService;
let hcp: HcpTerraformDouble;
let url: string;

beforeAll(async () => {
  hcp = await startHcpTerraformDouble();
  // A small --max-body, so a plan over it is cheap to make.
  service = await startService({
    env: { TFGATE_RUN_TASK_ALLOWED_ORIGINS: hcp.origin, TFGATE_MAX_BODY: '64KiB' },
  });
  url = await configureRunTask(service, 'payments', { hmac_key: KEY, min_severity: 'high' });
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await hcp?.close();
});

const callbacksOf = (payload: Record<string, unknown>) =>
  hcp.callbacks.filter((c) => c.taskResultId === payload.task_result_id);

async function finalResult(payload: Record<string, unknown>) {
  return waitFor(() => callbacksOf(payload).find((c) => c.body.data.attributes.status !== 'running'));
}

/** The audit entry `run_task_decided` of the task, once there. */
function decidedEntry(payload: Record<string, unknown>) {
  return waitFor(async () => {
    const audit = await api<{ entries: Array<{ event: string; details: Record<string, unknown> }> }>(
      service,
      'GET',
      `${CONFORMANCE}/packages/payments/audit?limit=1000`,
    );
    return audit.body.entries.find(
      (e) => e.event === 'run_task_decided' && e.details.task_result_id === payload.task_result_id,
    );
  });
}

function expectDocumented(payload: Record<string, unknown>) {
  const seen = callbacksOf(payload);
  expect(hcp.callbacks.filter((c) => c.taskResultId.startsWith('INVALID:'))).toEqual([]);
  for (const callback of seen) {
    expect(callback.contentType).toBe('application/vnd.api+json');
    expect(documentedTaskResultSchema.safeParse(callback.body).success).toBe(true);
  }
  // running first, then exactly one final result
  expect(seen[0]?.body.data.attributes.status).toBe('running');
  expect(seen.filter((c) => c.body.data.attributes.status !== 'running')).toHaveLength(1);
}

describe('configuration', () => {
  it('answers the URL to paste, never the key, and says whether it is configured', async () => {
    expect(url).toBe(`${service.baseUrl}${CONFORMANCE}/packages/payments/run-task`);
    const shown = await api(service, 'GET', `${CONFORMANCE}/packages/payments/run-task`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ configured: true, min_severity: 'high', url });
    expect(shown.text).not.toContain(KEY);
    await createApprovedPackage(service, design('other'));
    const other = await api(service, 'GET', `${CONFORMANCE}/packages/other/run-task`);
    expect(other.body).toMatchObject({ configured: false });
  });

  it('refuses a key shorter than 32 characters, in plain words', async () => {
    const short = await api<{ error: { code: string; message: string } }>(
      service,
      'PUT',
      `${CONFORMANCE}/packages/payments/run-task`,
      { body: { hmac_key: 'too-short' } },
    );
    expect(short.status).toBe(400);
    expect(short.body.error.message).toMatch(/hmac_key/);
    expect(short.text).not.toContain('too-short');
  });

  it('audits the configuration without the key', async () => {
    const audit = await api(service, 'GET', `${CONFORMANCE}/packages/payments/audit`);
    expect(audit.text).toContain('run_task_configured');
    expect(audit.text).not.toContain(KEY);
  });
});

describe('signature and origins', () => {
  it('refuses a wrong or missing signature before fetching anything', async () => {
    const before = hcp.requests.length;
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    const wrong = await sendRunTask(url, payload, 'x'.repeat(40));
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('invalid_signature');
    const missing = await sendRunTask(url, payload, null);
    expect(missing.status).toBe(401);
    const garbage = await sendRunTask(url, payload, null, 'not-hex');
    expect(garbage.status).toBe(401);
    // the signature of another body
    const other = await sendRunTask(url, payload, null, signBody('{}', KEY));
    expect(other.status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    expect(hcp.requests.length).toBe(before);
  });

  it('refuses a signed body that is not a run task request, naming the field', async () => {
    const callbacksBefore = hcp.callbacks.length;
    const { task_result_id: _, ...payload } = hcp.payload();
    const missing = await sendRunTask(url, payload, KEY);
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text).error).toMatchObject({ code: 'invalid_run_task_request' });
    expect(missing.text).toContain('\\"task_result_id\\" is missing or not as documented');
    const longStage = await sendRunTask(url, { ...hcp.payload(), stage: 'x'.repeat(201) }, KEY);
    expect(longStage.status).toBe(400);
    expect(longStage.text).toContain('\\"stage\\"');
    const notAnObject = await sendRunTask(url, [1, 2] as never, KEY);
    expect(notAnObject.status).toBe(400);
    expect(notAnObject.text).toContain('the body is not a run task request: the body is not a JSON object');
    expect(hcp.callbacks).toHaveLength(callbacksBefore);
  });

  it('refuses a callback or plan URL on an origin the operator did not allow, sending nothing', async () => {
    const before = hcp.requests.length;
    for (const field of ['task_result_callback_url', 'plan_json_api_url']) {
      const payload = hcp.payload({ [field]: 'https://attacker.example/api/v2/task-results/x/callback' });
      const refused = await sendRunTask(url, payload, KEY);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('origin_not_allowed');
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(hcp.requests.length).toBe(before);
  });

  it('refuses at once a callback or plan URL carrying a user name or password: it could never be called', async () => {
    const before = hcp.requests.length;
    const withCredentials = hcp.origin.replace('://', '://user:pw@');
    for (const field of ['task_result_callback_url', 'plan_json_api_url']) {
      const payload = hcp.payload({ [field]: `${withCredentials}/api/v2/task-results/x/callback` });
      const refused = await sendRunTask(url, payload, KEY);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text).error).toMatchObject({
        code: 'invalid_run_task_request',
        message: `${field} carries a user name or password (user:password@host): HCP Terraform never sends one, and the service cannot call such a URL`,
      });
      expect(refused.text).not.toContain('pw@');
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(hcp.requests.length).toBe(before);
  });

  it("answers HCP Terraform's verification request 200 and calls nothing", async () => {
    const before = hcp.requests.length;
    const payload = hcp.payload({ access_token: 'test-token', stage: 'test' });
    const verified = await sendRunTask(url, payload, KEY);
    expect(verified.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(hcp.requests.length).toBe(before);
  });
});

describe('decisions', () => {
  it('passes a plan that conforms, running first', async () => {
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    const started = Date.now();
    const answer = await sendRunTask(url, payload, KEY);
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    const result = await finalResult(payload);
    expect(result.body.data.attributes.status).toBe('passed');
    expect(result.body.data.attributes.message).toMatch(/conforms to the approved design of "payments"/);
    expectDocumented(payload);
    // the plan was fetched with the token only where it was allowed
    const planRequests = hcp.requests.filter((r) => r.path.includes(planIdOf(payload)));
    expect(planRequests[0]!.authorization).toMatch(/^Bearer /);
  });

  it('fails a plan with blocking findings, one outcome per finding with Severity and Status tags', async () => {
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_BLOCKED);
    expect((await sendRunTask(url, payload, KEY)).status).toBe(200);
    const result = await finalResult(payload);
    expect(result.body.data.attributes.status).toBe('failed');
    expect(result.body.data.attributes.message).toMatch(/2 findings at or above high/);
    const outcomes = result.body.data.relationships!.outcomes.data;
    expect(outcomes).toHaveLength(2);
    const byRule = Object.fromEntries(
      outcomes.map((o) => [o.attributes.tags!.Rule![0]!.label, o.attributes]),
    );
    expect(byRule.capability_dependency_destroyed).toMatchObject({
      description: 'capability_dependency_destroyed: aws_db_instance.ledger (relational_database)',
      tags: {
        Severity: [{ label: 'Critical', level: 'error' }],
        Status: [{ label: 'Blocking', level: 'error' }],
      },
    });
    expect(byRule.unsanctioned_creation!.body).toContain('How to fix');
    expect(byRule.unsanctioned_creation!.body).toContain('aws_sqs_queue.extra');
    // plan values never leave the engine
    expect(JSON.stringify(result.body)).not.toContain('hunter2-canary');
    expectDocumented(payload);
  });

  it('lists blocking findings first, the most severe first, when there are more than the 200 outcomes it sends', async () => {
    const payload = hcp.payload();
    // 250 unsanctioned autoscaling groups (high) whose addresses sort before the ledger database (critical).
    const groups = Array.from({ length: 250 }, (_, i) => ({
      type: 'aws_autoscaling_group',
      name: `g${String(i).padStart(3, '0')}`,
      actions: ['create'],
    }));
    hcp.plans.set(planIdOf(payload), planJsonOf([...groups, { ...DB, actions: ['delete'] }]));
    expect((await sendRunTask(url, payload, KEY)).status).toBe(200);
    const result = await finalResult(payload);
    expect(result.body.data.attributes.status).toBe('failed');
    expect(result.body.data.attributes.message).toMatch(
      /251 findings at or above high .* \(51 more not listed\)$/,
    );
    const outcomes = result.body.data.relationships!.outcomes.data;
    expect(outcomes).toHaveLength(200);
    expect(outcomes[0]!.attributes.tags!.Rule![0]!.label).toBe('capability_dependency_destroyed');
    // Then the rest in address order.
    expect(outcomes[1]!.attributes.description).toContain('aws_autoscaling_group.g000');
    expect(outcomes[199]!.attributes.description).toContain('aws_autoscaling_group.g198');
    expectDocumented(payload);
  });

  it('lets plan acknowledgements through, as POST evaluate does: passed, each outcome "Acknowledged"', async () => {
    await createApprovedPackage(service, design('waived'));
    const put = await api<{ url: string }>(service, 'PUT', `${CONFORMANCE}/packages/waived/run-task`, {
      body: { hmac_key: KEY, min_severity: 'high' },
    });
    for (const [rule, address] of [
      ['capability_dependency_destroyed', 'aws_db_instance.ledger'],
      ['unsanctioned_creation', 'aws_sqs_queue.extra'],
    ]) {
      const ack = await api(service, 'POST', `${CONFORMANCE}/packages/waived/plan-acknowledgements`, {
        body: { rule, address, reason: 'migration PAY-142' },
      });
      expect(ack.status, ack.text).toBe(201);
    }
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_BLOCKED);
    expect((await sendRunTask(put.body.url, payload, KEY)).status).toBe(200);
    const result = await finalResult(payload);
    expect(result.body.data.attributes.status).toBe('passed');
    const outcomes = result.body.data.relationships!.outcomes.data;
    expect(outcomes.map((o) => o.attributes.tags!.Status)).toEqual([
      [{ label: 'Acknowledged', level: 'info' }],
      [{ label: 'Acknowledged', level: 'info' }],
    ]);
    expect(outcomes[0]!.attributes.body).toContain('migration PAY-142');
    expectDocumented(payload);
  });

  it('fails with the reason when there is no decision: unreadable plan', async () => {
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), '{"format_version": "1.2", "resource_changes": [');
    expect((await sendRunTask(url, payload, KEY)).status).toBe(200);
    const result = await finalResult(payload);
    expect(result.body.data.attributes.status).toBe('failed');
    expect(result.body.data.attributes.message).toMatch(
      /^No decision, so no apply: the plan JSON is not readable/,
    );
    expectDocumented(payload);
  });

  it('fails with the reason when the plan is larger than --max-body, and the service keeps serving', async () => {
    const payload = hcp.payload();
    const changes = Array.from({ length: 600 }, (_, i) => ({
      type: 'terraform_data',
      name: `d${i}`,
      actions: ['create'],
    }));
    const big = JSON.stringify({
      ...JSON.parse(PLAN_CLEAN),
      resource_changes: JSON.parse(planJsonOf(changes)).resource_changes,
    });
    expect(big.length).toBeGreaterThan(64 * 1024);
    hcp.plans.set(planIdOf(payload), big);
    expect((await sendRunTask(url, payload, KEY)).status).toBe(200);
    const result = await finalResult(payload);
    expect(result.body.data.attributes.status).toBe('failed');
    expect(result.body.data.attributes.message).toMatch(/No decision.*larger than 65536 bytes/);
    expect((await api(service, 'GET', '/healthz', { key: null })).status).toBe(200);
  });

  it('fails with the reason when the package is not approved', async () => {
    await createApprovedPackage(service, design('pending'));
    await api(service, 'PUT', `${CONFORMANCE}/packages/pending/run-task`, { body: { hmac_key: KEY } });
    const changed = await api(service, 'PUT', `${CONFORMANCE}/packages/pending`, {
      body: design('pending').replace('generic_data]', 'generic_data, queue]'),
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(changed.body).toMatchObject({ approved: false });
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    const pendingUrl = url.replace('/payments/', '/pending/');
    expect((await sendRunTask(pendingUrl, payload, KEY)).status).toBe(200);
    const result = await finalResult(payload);
    expect(result.body.data.attributes.status).toBe('failed');
    expect(result.body.data.attributes.message).toMatch(/No decision.*not approved yet/);
  });

  it('passes pre_plan saying nothing is judged before a plan, and says a speculative run is judged the same', async () => {
    const pre = hcp.payload({ stage: 'pre_plan', plan_json_api_url: undefined });
    expect((await sendRunTask(url, pre, KEY)).status).toBe(200);
    const preResult = await finalResult(pre);
    expect(preResult.body.data.attributes).toMatchObject({ status: 'passed' });
    expect(preResult.body.data.attributes.message).toMatch(/Nothing is judged before a plan/);
    // Nor said to be judged while it runs.
    expect(callbacksOf(pre)[0]?.body.data.attributes).toMatchObject({
      status: 'running',
      message: 'tfgate received the pre_plan stage for package "payments"',
    });
    const speculative = hcp.payload({ is_speculative: true });
    hcp.plans.set(planIdOf(speculative), PLAN_BLOCKED);
    expect((await sendRunTask(url, speculative, KEY)).status).toBe(200);
    const specResult = await finalResult(speculative);
    expect(specResult.body.data.attributes.status).toBe('failed');
    expect(specResult.body.data.attributes.message).toMatch(/^Speculative run, judged like any other/);
    expectDocumented(speculative);
  });
});

describe('delivery', () => {
  it('retries a callback that fails twice, then delivers', async () => {
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    hcp.failNextCallbacks(2, 503);
    expect((await sendRunTask(url, payload, KEY)).status).toBe(200);
    const result = await finalResult(payload);
    expect(result.body.data.attributes.status).toBe('passed');
    expectDocumented(payload);
  });

  it('gives up on a callback HCP Terraform refuses (4xx other than 429), and audits that it was not delivered', async () => {
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    hcp.failNextCallbacks(1, 404);
    expect((await sendRunTask(url, payload, KEY)).status).toBe(200);
    const entry = await decidedEntry(payload);
    expect(entry.details).toMatchObject({ delivered: false, reason: 'HCP Terraform answered HTTP 404' });
    await new Promise((r) => setTimeout(r, 300));
    expect(callbacksOf(payload)).toEqual([]);
  });

  it('honours 429 as a reason to retry', async () => {
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    hcp.failNextCallbacks(1, 429);
    expect((await sendRunTask(url, payload, KEY)).status).toBe(200);
    expect((await finalResult(payload)).body.data.attributes.status).toBe('passed');
  });

  it('does a task HCP Terraform sends again (same task_result_id) once', async () => {
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    const answers = await Promise.all([1, 2, 3].map(() => sendRunTask(url, payload, KEY)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await finalResult(payload);
    expect((await sendRunTask(url, payload, KEY)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expectDocumented(payload);
    expect(callbacksOf(payload)).toHaveLength(2);
    expect(
      hcp.requests.filter((r) => r.path === `/api/v2/plans/${planIdOf(payload)}/json-output`),
    ).toHaveLength(1);
  });

  it('audits every task with its run id, workspace and organization', async () => {
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_BLOCKED);
    await sendRunTask(url, payload, KEY);
    await finalResult(payload);
    const entry = await decidedEntry(payload);
    expect(entry.details).toMatchObject({
      run_id: payload.run_id,
      workspace: 'payments-prod',
      organization: 'acme',
      stage: 'post_plan',
      status: 'failed',
      delivered: true,
    });
    expect(JSON.stringify(entry)).not.toContain(String(payload.access_token));
  });
});

describe('OpenAPI', () => {
  it('documents the run task routes, the POST without an API key', async () => {
    const doc = await api<{ paths: Record<string, Record<string, Record<string, unknown>>> }>(
      service,
      'GET',
      `${CONFORMANCE}/openapi.json`,
      { key: null },
    );
    const path = doc.body.paths[`${CONFORMANCE}/packages/{package_id}/run-task`]!;
    expect(Object.keys(path).sort()).toEqual(['get', 'post', 'put']);
    expect(path.post!.security).toEqual([]);
    expect(JSON.stringify(path.post!.responses)).toContain('invalid_signature');
    expect(path.put!['x-required-scope']).toBe('compliance:write');
    expect(path.get!['x-required-scope']).toBe('compliance:read');
  });
});

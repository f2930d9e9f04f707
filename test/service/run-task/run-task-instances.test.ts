// Run tasks survive the instance that took them: `tfgate serve` killed with SIGKILL mid-task is restarted
// and finishes the task; two instances on one PostgreSQL do a task once, and one takes over what the other,
// killed, left. Real `tfgate serve` processes; HCP Terraform is the double in hcp-terraform-double.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { api, CONFORMANCE, startService, type TestService } from '../../helpers/service.js';
import { PLAN_BLOCKED, PLAN_CLEAN } from '../fixtures.js';
import {
  configureRunTask,
  documentedTaskResultSchema,
  type HcpTerraformDouble,
  planIdOf,
  sendRunTask,
  startHcpTerraformDouble,
  waitFor,
} from './hcp-terraform-double.js';

const KEY = 'instances-run-task-hmac-key-0123456789abcdef';
const apiKey = 'tfg_run_task_instances_bootstrap_0123456789';
let hcp: HcpTerraformDouble;

beforeAll(async () => {
  hcp = await startHcpTerraformDouble();
});
afterAll(async () => {
  await hcp?.close();
});

const finals = (payload: Record<string, unknown>) =>
  hcp.callbacks.filter(
    (c) => c.taskResultId === payload.task_result_id && c.body.data.attributes.status !== 'running',
  );

function expectDocumented(payload: Record<string, unknown>) {
  expect(hcp.callbacks.filter((c) => c.taskResultId.startsWith('INVALID:'))).toEqual([]);
  for (const c of hcp.callbacks.filter((x) => x.taskResultId === payload.task_result_id)) {
    expect(documentedTaskResultSchema.safeParse(c.body).success).toBe(true);
  }
}

const configure = (service: TestService, packageId: string) =>
  configureRunTask(service, packageId, { hmac_key: KEY });

describe('embedded store: kill -9 mid-task', () => {
  it('a restarted service finishes the task the killed one held', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tfgate-runtask-'));
    const env = { TFGATE_RUN_TASK_ALLOWED_ORIGINS: hcp.origin, TFGATE_RUN_TASK_LEASE: '2s' };
    try {
      const first = await startService({ apiKey, dataDir, process: true, env });
      const url = await configure(first, 'killed');
      const payload = hcp.payload();
      hcp.plans.set(planIdOf(payload), PLAN_BLOCKED);
      const hold = hcp.holdPlans();
      expect((await sendRunTask(url, payload, KEY)).status).toBe(200);
      await hold.requested;
      await first.kill();
      hold.release();
      expect(finals(payload)).toEqual([]);
      const second = await startService({ apiKey, dataDir, process: true, env });
      try {
        const [result] = await waitFor(
          () => (finals(payload).length > 0 ? finals(payload) : undefined),
          30_000,
        );
        expect(result!.body.data.attributes.status).toBe('failed');
        await new Promise((r) => setTimeout(r, 1000));
        expect(finals(payload)).toHaveLength(1);
        expectDocumented(payload);
        const audit = await api(second, 'GET', `${CONFORMANCE}/packages/killed/audit?limit=1000`);
        expect(audit.text).toContain('run_task_decided');
        expect(audit.text).toContain(String(payload.run_id));
        // No secret in any log line of either process: neither the HMAC key nor HCP Terraform's token.
        const logs = JSON.stringify([first.logs, second.logs]);
        expect(logs).toContain('run task');
        expect(logs).not.toContain(KEY);
        expect(logs).not.toContain(String(payload.access_token));
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('two instances on one PostgreSQL', () => {
  let postgres: TestPostgres;
  let databaseUrl: string;
  let a: TestService;
  let b: TestService;
  let urlA: string;
  let urlB: string;

  beforeAll(async () => {
    postgres = await startPostgres();
    databaseUrl = postgres.createDatabase('tfgate_run_task');
    const env = (instance: string) => ({
      TFGATE_DATABASE_URL: databaseUrl,
      TFGATE_INSTANCE_ID: instance,
      TFGATE_RUN_TASK_ALLOWED_ORIGINS: hcp.origin,
      TFGATE_RUN_TASK_LEASE: '2s',
    });
    [a, b] = await Promise.all([
      startService({ apiKey, process: true, env: env('instance-a') }),
      startService({ apiKey, process: true, env: env('instance-b') }),
    ]);
    urlA = await configure(a, 'shared');
    urlB = urlA.replace(a.baseUrl, b.baseUrl);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    postgres?.stop();
  });

  it('do a task sent to both once', async () => {
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    const answers = await Promise.all([sendRunTask(urlA, payload, KEY), sendRunTask(urlB, payload, KEY)]);
    expect(answers.map((x) => x.status)).toEqual([200, 200]);
    const [result] = await waitFor(() => (finals(payload).length > 0 ? finals(payload) : undefined));
    expect(result!.body.data.attributes.status).toBe('passed');
    await new Promise((r) => setTimeout(r, 3000));
    expect(hcp.callbacks.filter((c) => c.taskResultId === payload.task_result_id)).toHaveLength(2);
    expectDocumented(payload);
  }, 60_000);

  it('one takes over the task the other, killed, held', async () => {
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    const hold = hcp.holdPlans();
    expect((await sendRunTask(urlA, payload, KEY)).status).toBe(200);
    await hold.requested;
    await a.kill();
    hold.release();
    const [result] = await waitFor(() => (finals(payload).length > 0 ? finals(payload) : undefined), 30_000);
    expect(result!.body.data.attributes.status).toBe('passed');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const task = await client.query('SELECT status, claimed_by FROM run_tasks WHERE task_result_id = $1', [
        payload.task_result_id,
      ]);
      expect(task.rows[0]).toEqual({ status: 'done', claimed_by: 'instance-b' });
      // Secrets at rest are sealed: neither the HMAC key nor HCP Terraform's token is in the database.
      const configs = await client.query('SELECT hmac_key_sealed FROM run_task_configs');
      const tasks = await client.query('SELECT payload_sealed FROM run_tasks');
      const stored = JSON.stringify([configs.rows, tasks.rows]);
      expect(stored).not.toContain(KEY);
      expect(stored).not.toContain(String(payload.access_token));
      expect(configs.rows[0].hmac_key_sealed).toMatch(/^v1\./);
    } finally {
      await client.end();
    }
  }, 60_000);

  it("gives up, audited and without a callback, a task older than HCP Terraform's 60 minutes", async () => {
    // B takes a task and dies holding it; the task's receipt is then moved an hour back, as if the
    // instances had been down that long. The instance that claims it next must not judge it any more.
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    const hold = hcp.holdPlans();
    expect((await sendRunTask(urlB, payload, KEY)).status).toBe(200);
    await hold.requested;
    await b.kill();
    hold.release();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    let c: TestService | undefined;
    try {
      await client.query(
        "UPDATE run_tasks SET received_at = now() - interval '61 minutes' WHERE task_result_id = $1",
        [payload.task_result_id],
      );
      c = await startService({
        apiKey,
        process: true,
        env: {
          TFGATE_DATABASE_URL: databaseUrl,
          TFGATE_INSTANCE_ID: 'instance-c',
          TFGATE_RUN_TASK_ALLOWED_ORIGINS: hcp.origin,
          TFGATE_RUN_TASK_LEASE: '2s',
        },
      });
      const task = await waitFor(async () => {
        const { rows } = await client.query(
          'SELECT status, claimed_by FROM run_tasks WHERE task_result_id = $1',
          [payload.task_result_id],
        );
        return rows[0]?.status === 'abandoned' ? rows[0] : undefined;
      }, 30_000);
      expect(task).toEqual({ status: 'abandoned', claimed_by: 'instance-c' });
      const { rows: audit } = await client.query(
        "SELECT details FROM audit WHERE event = 'run_task_decided' AND details->>'run_id' = $1",
        [payload.run_id],
      );
      expect(audit).toHaveLength(1);
      expect(audit[0].details).toMatchObject({
        delivered: false,
        reason: 'HCP Terraform stopped waiting: the task is older than 60 minutes',
      });
      // No result was sent for it: HCP Terraform had already failed the run.
      expect(finals(payload)).toEqual([]);
    } finally {
      await c?.stop();
      await client.end();
    }
  }, 90_000);
});

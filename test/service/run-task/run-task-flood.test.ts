// A flood of unsigned or badly signed run task requests, on both stores: refused before the body is read
// where the signature or the id already says no, then 429 per address after the burst; the store does not
// grow (no row in any table), the store is asked at most once per counted refusal, and a signed request from
// HCP Terraform's address is accepted at its first try and done. Counts, never timings.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_TASK_REFUSALS } from '../../../src/service/http/routes-run-task.js';
import type { Store } from '../../../src/service/store/index.js';
import { requestFrom } from '../../helpers/from-address.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { startService } from '../../helpers/service.js';
import { PLAN_CLEAN } from '../fixtures.js';
import {
  configureRunTask,
  type HcpTerraformDouble,
  planIdOf,
  sendRunTask,
  signBody,
  startHcpTerraformDouble,
  waitFor,
} from './hcp-terraform-double.js';

const KEY = `${'f'.repeat(20)}run-task-flood-key-0123456789`;
const STORES = ['embedded', 'postgres'] as const;

let hcp: HcpTerraformDouble;
let postgres: TestPostgres | undefined;
const services: Record<string, Awaited<ReturnType<typeof startService>>> = {};
const urls: Record<string, string> = {};

beforeAll(async () => {
  hcp = await startHcpTerraformDouble();
  postgres = await startPostgres();
  const env = { TFGATE_RUN_TASK_ALLOWED_ORIGINS: hcp.origin };
  services.embedded = await startService({ env });
  services.postgres = await startService({
    env: { ...env, TFGATE_DATABASE_URL: postgres.createDatabase('tfgate_run_task_flood') },
  });
  for (const kind of STORES) {
    urls[kind] = await configureRunTask(services[kind]!, 'payments', { hmac_key: KEY });
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(Object.values(services).map((s) => s.stop()));
  await hcp?.close();
  postgres?.stop();
});

/** Rows in every table of the store. */
async function rowCounts(store: Store): Promise<Record<string, number>> {
  const { rows: tables } = await store.db.query<{ name: string }>(
    store.db.kind === 'embedded'
      ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
      : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const { rows } = await store.db.query<{ n: number | string }>(`SELECT count(*) AS n FROM "${name}"`);
    counts[name] = Number(rows[0]!.n);
  }
  return counts;
}

/** Sends the headers and a first few bytes of a body announced as `length`, never the rest; the answer. */
function unfinishedPost(url: string, localAddress: string, headers: Record<string, string>, length: number) {
  return new Promise<{ status: number; retryAfter?: string }>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(length), ...headers },
      },
      (res) => {
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] });
        res.resume();
        req.destroy();
      },
    );
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.write('{"payload');
  });
}

describe.each(STORES)('a flood of refused run task requests (%s store)', (kind) => {
  it('is refused cheaply, grows no table, and never holds up a signed request', async () => {
    const svc = services[kind]!;
    const store = svc.store!;
    const url = urls[kind]!;
    const unknownUrl = url.replace('/packages/payments/', '/packages/no-such-package/');
    const before = await rowCounts(store);
    let lookups = 0;
    const lookup = store.runTasks.configsForPackageId.bind(store.runTasks);
    store.runTasks.configsForPackageId = (id) => {
      lookups++;
      return lookup(id);
    };
    try {
      // No signature, a malformed one, and a signature for an id with no run task: answered before the body
      // arrives (it never does), so no body is read and, but for the id's, no store work is done.
      const fresh = kind === 'embedded' ? '127.0.0.4' : '127.0.0.5';
      expect((await unfinishedPost(url, fresh, {}, 200_000)).status).toBe(401);
      expect((await unfinishedPost(url, fresh, { 'X-TFC-Task-Signature': 'not-hex' }, 200_000)).status).toBe(
        401,
      );
      const wellFormed = { 'X-TFC-Task-Signature': 'ab'.repeat(64) };
      expect((await unfinishedPost(unknownUrl, fresh, wellFormed, 200_000)).status).toBe(401);
      expect(lookups).toBe(1);

      // The flood, from one address: a 100 KB body with a well-formed wrong signature, unsigned ones, ids with
      // no run task.
      const attacker = kind === 'embedded' ? '127.0.0.2' : '127.0.0.3';
      const big = JSON.stringify({ ...hcp.payload(), filler: 'x'.repeat(100_000) });
      const statuses: number[] = [];
      for (let i = 0; i < 150; i++) {
        const target = i % 3 === 2 ? unknownUrl : url;
        const headers: Record<string, string> = { 'Content-Type': 'application/json' };
        if (i % 3 !== 1) headers['X-TFC-Task-Signature'] = signBody(big, `wrong-key-${i}`);
        const answer = await requestFrom(attacker, target, { method: 'POST', headers, body: big });
        statuses.push(answer.status);
        if (answer.status === 429) expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      }
      const refusedAndCounted = statuses.filter((s) => s === 401).length;
      // The burst, and at most a token or two refilled while the flood ran; everything else 429.
      expect(refusedAndCounted).toBeGreaterThanOrEqual(RUN_TASK_REFUSALS.burst);
      expect(refusedAndCounted).toBeLessThanOrEqual(RUN_TASK_REFUSALS.burst + 2);
      expect(statuses.filter((s) => s === 429)).toHaveLength(150 - refusedAndCounted);
      // The store was asked at most once per counted refusal (never for the 429s nor the unsigned ones).
      expect(lookups).toBeLessThanOrEqual(1 + refusedAndCounted);

      // Nothing was written: no table grew, the audit log included.
      expect(await rowCounts(store)).toEqual(before);

      // HCP Terraform, from its own address, is accepted at the first try and its task is done.
      const payload = hcp.payload();
      hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
      const signed = await sendRunTask(url, payload, KEY);
      expect(signed.status).toBe(200);
      const done = await waitFor(() =>
        hcp.callbacks.find(
          (c) => c.taskResultId === payload.task_result_id && c.body.data.attributes.status !== 'running',
        ),
      );
      expect(done.body.data.attributes.status).toBe('passed');
      // The attacker's address is still locked out, before its body is read.
      const still = await unfinishedPost(url, attacker, wellFormed, 200_000);
      expect(still.status).toBe(429);
      expect(Number(still.retryAfter)).toBeGreaterThan(0);
    } finally {
      store.runTasks.configsForPackageId = lookup;
    }
  }, 120_000);
});

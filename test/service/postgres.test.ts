// Two `tfgate serve` processes on one real PostgreSQL behave as one service: a scheduled drift check runs
// once per interval across both, and an acknowledgement through one is honoured by the other's next gate.
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design, STATE_WITH_QUEUE } from './fixtures.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const INTERVAL_MS = 2000;
const apiKey = 'tfg_two_instances_bootstrap_key_0123456789';
let postgres: TestPostgres;
let databaseUrl: string;
let a: TestService;
let b: TestService;

beforeAll(async () => {
  postgres = await startPostgres();
  databaseUrl = postgres.createDatabase('tfgate_two');
  const env = (instance: string) => ({
    TFGATE_DATABASE_URL: databaseUrl,
    TFGATE_DRIFT_INTERVAL: `${INTERVAL_MS}ms`,
    TFGATE_INSTANCE_ID: instance,
  });
  // Started together: migrations, bootstrap and the signing key are serialised in the database.
  [a, b] = await Promise.all([
    startService({ apiKey, process: true, env: env('instance-a') }),
    startService({ apiKey, process: true, env: env('instance-b') }),
  ]);
}, 180_000);

afterAll(async () => {
  // Diagnostics: any 5xx the instances logged.
  for (const entry of [...(a?.logs ?? []), ...(b?.logs ?? [])])
    if (entry.level === 'error') console.error(entry);
  await Promise.all([a?.stop(), b?.stop()]);
  postgres?.stop();
});

describe('two instances on one PostgreSQL', () => {
  it('share one signing key and one bootstrap account', async () => {
    const keyA = (await api<{ key_id: string }>(a, 'GET', `${CONFORMANCE}/public-key`)).body.key_id;
    const keyB = (await api<{ key_id: string }>(b, 'GET', `${CONFORMANCE}/public-key`)).body.key_id;
    expect(keyA).toBe(keyB);
  });

  it("an acknowledgement through one is honoured by the other's very next gate call", async () => {
    const id = await createApprovedPackage(a, design('shared-ack'), { observedState: STATE_WITH_QUEUE });
    const blocked = await api<{ blocking: Array<{ id: string }> }>(
      b,
      'POST',
      `${CONFORMANCE}/packages/${id}/gate?fail_status=true`,
    );
    expect(blocked.status).toBe(409);
    const findingId = blocked.body.blocking[0]!.id;
    expect(
      (
        await api(a, 'POST', `${CONFORMANCE}/packages/${id}/findings/${findingId}/acknowledge`, {
          body: { reason: 'shared' },
        })
      ).status,
    ).toBe(200);
    const passed = await api(b, 'POST', `${CONFORMANCE}/packages/${id}/gate?fail_status=true`);
    expect(passed.status).toBe(200);
    // And a revocation through one is refused by the other at once.
    const created = await api<{ id: string; key: string }>(a, 'POST', '/v1/admin/accounts/default/api-keys', {
      body: { name: 'short-lived', scopes: ['compliance:read'] },
    });
    expect((await api(b, 'GET', `${CONFORMANCE}/public-key`, { key: created.body.key })).status).toBe(200);
    await api(a, 'DELETE', `/v1/admin/api-keys/${created.body.id}`);
    expect((await api(b, 'GET', `${CONFORMANCE}/public-key`, { key: created.body.key })).status).toBe(401);
  });

  it('runs a scheduled drift check once per interval across both instances', async () => {
    const id = await createApprovedPackage(b, design('scheduled'), { observedState: STATE_WITH_QUEUE });
    const windowMs = INTERVAL_MS * 4 + 500;
    await new Promise((r) => setTimeout(r, windowMs));
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ instance: string; started: Date }>(
        `SELECT c.instance, c.started_at AS started FROM drift_checks c JOIN packages p ON p.pk = c.package_pk
          WHERE p.package_id = $1 AND c.trigger = 'scheduled' ORDER BY c.started_at`,
        [id],
      );
      // One check per interval: about window / interval of them, never two in one interval.
      expect(rows.length).toBeGreaterThanOrEqual(3);
      expect(rows.length).toBeLessThanOrEqual(Math.ceil(windowMs / INTERVAL_MS) + 1);
      for (let i = 1; i < rows.length; i++) {
        const gap = rows[i]!.started.getTime() - rows[i - 1]!.started.getTime();
        // started_at is taken when the instance starts the check, after the claim (which the database times):
        // under load that lag varies by a few hundred ms, so two checks in one interval show as a gap near 0.
        expect(gap, `checks ${i - 1} and ${i}`).toBeGreaterThanOrEqual(INTERVAL_MS / 2);
      }
    } finally {
      await client.end();
    }
  });
});

describe('tfgate serve on a PostgreSQL it cannot use', () => {
  it('a database that does not exist on the server: exit 1 in plain words, the password never printed', async () => {
    const url = new URL(postgres.url);
    url.password = 'a-db-password-canary';
    url.pathname = '/tfgate_no_such_database';
    const res = await execa(
      process.execPath,
      [
        ...['--import', join(ROOT, 'test/helpers/ts-register.mjs'), join(ROOT, 'src/cli/main.ts')],
        ...['serve', '--port', '0', '--database-url', url.toString()],
      ],
      { cwd: ROOT, env: { TFGATE_BOOTSTRAP_API_KEY: '' }, reject: false, timeout: 60_000 },
    );
    expect(res.exitCode, res.stderr).toBe(1);
    expect(res.stderr).toBe(
      `error: tfgate serve cannot connect to PostgreSQL at postgres://postgres:***@${url.host}/tfgate_no_such_database: the database "tfgate_no_such_database" does not exist\n` +
        'hint: create it (createdb tfgate_no_such_database), or correct the database name: check --database-url (env TFGATE_DATABASE_URL or DATABASE_URL)',
    );
  }, 60_000);
});

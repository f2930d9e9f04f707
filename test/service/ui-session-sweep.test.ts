// Expired dashboard sessions are swept at start and periodically, on both stores, not only when someone signs
// in. The store has no clock to inject, so sessions are made already expired (a negative lifetime) rather
// than waited for; the periodic sweep runs on a short interval and is polled for, never slept on.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/service/core/api-keys.js';
import { authenticate } from '../../src/service/core/auth.js';
import { createLogger } from '../../src/service/core/log.js';
import type { Store } from '../../src/service/store/index.js';
import type { Principal } from '../../src/service/types.js';
import { startSessionSweeper } from '../../src/service/ui-session-sweeper.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startService } from '../helpers/service.js';

const STORES = ['embedded', 'postgres'] as const;
const API_KEY = `tfg_test_${randomBytes(24).toString('base64url')}`;
const HOUR = 60 * 60_000;

let postgres: TestPostgres;
const databases: Record<string, string> = {};

beforeAll(async () => {
  postgres = await startPostgres();
  databases.postgres = postgres.createDatabase('tfgate_session_sweep');
}, 120_000);
afterAll(() => postgres?.stop());

async function sessionCount(store: Store, where = 'true'): Promise<number> {
  const { rows } = await store.db.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM ui_sessions WHERE ${where}`,
  );
  return Number(rows[0]!.n);
}
const EXPIRED = 'expires_at <= now()';

const newSession = (store: Store, principal: Principal, ttlMs: number) => {
  const hash = hashApiKey(randomBytes(32).toString('base64url'));
  return store.uiSessions.create(hash, principal, 'csrf', ttlMs).then(() => hash);
};

describe.each(STORES)('expired dashboard sessions (%s store)', (kind) => {
  it('are deleted by deleteExpired and by the sweeper, at its start and on its interval', async () => {
    const env: Record<string, string> =
      kind === 'postgres' ? { TFGATE_DATABASE_URL: databases.postgres! } : {};
    // The service bootstraps the key; its store is used directly while it runs.
    const svc = await startService({ apiKey: API_KEY, env });
    try {
      const store = svc.store!;
      const { principal } = await authenticate(store, API_KEY, undefined);
      const before = await sessionCount(store);
      const live = await newSession(store, principal, HOUR);
      const expired = await newSession(store, principal, -HOUR);
      expect(await sessionCount(store)).toBe(before + 2);
      expect(await store.uiSessions.deleteExpired()).toBe(1);
      expect(await store.uiSessions.find(live)).not.toBeNull();
      expect(await store.uiSessions.find(expired)).toBeNull();
      expect(await sessionCount(store)).toBe(before + 1);

      // The sweeper: once at its start (done when it resolves), then on its interval.
      await newSession(store, principal, -HOUR);
      const sweeper = await startSessionSweeper(store, createLogger('silent'), 20);
      try {
        expect(await sessionCount(store)).toBe(before + 1);
        await newSession(store, principal, -HOUR);
        expect(await sessionCount(store)).toBe(before + 2);
        const deadline = Date.now() + 10_000;
        while ((await sessionCount(store)) !== before + 1 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(await sessionCount(store)).toBe(before + 1);
        expect(await store.uiSessions.find(live)).not.toBeNull();
      } finally {
        await sweeper.stop();
      }
    } finally {
      await svc.stop();
    }
  }, 60_000);
});

describe.each(STORES)('the service (%s store)', (kind) => {
  it('sweeps expired sessions when it starts, with no sign-in', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tfgate-sweep-'));
    const env: Record<string, string> =
      kind === 'postgres' ? { TFGATE_DATABASE_URL: databases.postgres! } : {};
    try {
      const first = await startService({ apiKey: API_KEY, env, dataDir });
      const { principal } = await authenticate(first.store!, API_KEY, undefined);
      const live = await newSession(first.store!, principal, HOUR);
      await newSession(first.store!, principal, -HOUR);
      expect(await sessionCount(first.store!, EXPIRED)).toBe(1);
      await first.stop();
      const again = await startService({ apiKey: API_KEY, env, dataDir });
      try {
        expect(await sessionCount(again.store!, EXPIRED)).toBe(0);
        expect(await again.store!.uiSessions.find(live)).not.toBeNull();
      } finally {
        await again.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

// The store's repositories on both backends (embedded SQLite and a real PostgreSQL), the same tests for each:
// they speak the domain. Issue 9: the store threw the HTTP layer's ServiceError (404/409) from SQL code; now
// it throws its own NotFoundError and ConflictError, which carry no status. The embedded store's read caches
// are cleared by the writes that make them stale, so a revoked key or a new approval shows at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Design } from '../../src/design/index.js';
import { ServiceError } from '../../src/service/core/errors.js';
import { ConflictError, NotFoundError, openStore, type Store } from '../../src/service/store/index.js';
import type { Principal } from '../../src/service/types.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

let postgres: TestPostgres | undefined;
let dataDir: string;
const stores: Record<'embedded' | 'postgres', Store | undefined> = {
  embedded: undefined,
  postgres: undefined,
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tfgate-store-'));
  postgres = await startPostgres();
  stores.embedded = await openStore({ dataDir });
  stores.postgres = await openStore({ databaseUrl: postgres.createDatabase('tfgate_store') });
}, 180_000);

afterAll(async () => {
  await Promise.all(Object.values(stores).map((s) => s?.close()));
  postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const admin: Principal = {
  keyId: 'key_admin0000000',
  keyName: 'admin',
  account: 'default',
  plan: 'enterprise',
  scopes: ['admin', 'compliance:read', 'compliance:write'],
};
const design = (name: string): Design =>
  ({ package_id: 'store-test', name, sanctioned_kinds: [], capabilities: [] }) as unknown as Design;

/** The error `promise` rejects with, checked to be the store's own (never the HTTP layer's). */
async function storeError(promise: Promise<unknown>): Promise<NotFoundError | ConflictError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).not.toBeInstanceOf(ServiceError);
  expect(error).not.toHaveProperty('status');
  if (!(error instanceof NotFoundError) && !(error instanceof ConflictError)) throw error;
  return error;
}

describe.each(['embedded', 'postgres'] as const)('the %s store', (kind) => {
  const store = () => stores[kind]!;

  it('throws NotFoundError and ConflictError for accounts and keys, with what was not found', async () => {
    expect(
      await store().apiKeys.bootstrap({ id: 'key_boot', name: 'b', hash: 'h0', scopes: ['admin'] }),
    ).toBe(true);
    await store().accounts.create('acme', 'team', admin);
    const exists = await storeError(store().accounts.create('acme', 'large', admin));
    expect(exists).toBeInstanceOf(ConflictError);
    expect(exists.subject).toEqual({ code: 'account_exists', account: 'acme' });
    const missing = await storeError(store().accounts.updatePlan('nobody', 'large', admin));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.subject).toEqual({ code: 'account_not_found', account: 'nobody' });
    const noKey = await storeError(store().apiKeys.revoke('key_missing', admin));
    expect(noKey.subject).toEqual({ code: 'api_key_not_found', keyId: 'key_missing' });
    const keyForNobody = { id: 'key_x', name: 'x', hash: 'hx', scopes: ['admin' as const] };
    expect((await storeError(store().apiKeys.create('nobody', keyForNobody, admin))).code).toBe(
      'account_not_found',
    );
  });

  it('a key revoked or an account plan changed shows in the very next lookup', async () => {
    const key = { id: 'key_seen', name: 'seen', hash: 'h-seen', scopes: ['compliance:read' as const] };
    await store().apiKeys.create('acme', key, admin);
    expect((await store().apiKeys.lookup('h-seen'))?.principal.plan).toBe('team');
    await store().accounts.updatePlan('acme', 'large', admin);
    expect((await store().apiKeys.lookup('h-seen'))?.principal.plan).toBe('large');
    const revoked = await store().apiKeys.revoke('key_seen', admin);
    expect(revoked).toMatchObject({ id: 'key_seen', account: 'acme', alreadyRevoked: false });
    expect((await store().apiKeys.lookup('h-seen'))?.revoked).toBe(true);
    // Again: nothing changes, and the answer says when it was revoked.
    expect(await store().apiKeys.revoke('key_seen', admin)).toEqual({ ...revoked, alreadyRevoked: true });
  });

  it('approval with a stale revision is a ConflictError; a new approval shows in the next read', async () => {
    const { pkg } = await store().packages.put(admin, 'store-test', design('one'), 'rev-1');
    expect((await store().packages.get('default', 'store-test'))?.approved).toBe(false);
    const stale = await storeError(store().packages.approve(admin, pkg, 'rev-0'));
    expect(stale.subject).toEqual({ code: 'revision_mismatch', current: 'rev-1', requested: 'rev-0' });
    await store().packages.approve(admin, pkg, 'rev-1');
    expect((await store().packages.get('default', 'store-test'))?.approved).toBe(true);
    const lookup = await store().apiKeys.lookup('h0', 'store-test');
    expect(lookup?.pkg?.approvedRevision).toBe('rev-1');
  });

  it('acknowledging a missing or resolved finding is NotFound or Conflict; the gate read sees changes', async () => {
    const pkg = (await store().packages.get('default', 'store-test'))!;
    const drift = {
      id: 'f_00000000000000000001',
      rule: 'unsanctioned_resource',
      severity: 'high',
      address: 'aws_sqs_queue.q',
      message: 'not in the design',
    } as const;
    const check = {
      revision: pkg.revision,
      trigger: 'manual',
      instance: 'test',
      startedAt: new Date(),
      state: { source: 'pushed', serial: null, lineage: null, read_at: new Date().toISOString() },
    } as const;
    await store().driftChecks.record(pkg, [drift], check);
    expect((await store().findings.unresolved(pkg)).map((f) => f.status)).toEqual(['open']);
    const missing = await storeError(store().findings.acknowledge(admin, pkg, 'f_missing', 'why'));
    expect(missing.subject).toEqual({
      code: 'finding_not_found',
      packageId: 'store-test',
      findingId: 'f_missing',
    });
    await store().findings.acknowledge(admin, pkg, drift.id, 'accepted for now');
    expect((await store().findings.unresolved(pkg)).map((f) => f.status)).toEqual(['acknowledged']);
    await store().driftChecks.record(pkg, [], check);
    expect(await store().findings.unresolved(pkg)).toEqual([]);
    const resolved = await storeError(store().findings.acknowledge(admin, pkg, drift.id, 'again'));
    expect(resolved).toBeInstanceOf(ConflictError);
    expect(resolved.subject).toEqual({ code: 'finding_resolved', findingId: drift.id });
  });
});

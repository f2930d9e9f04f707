// Every pushed design revision is kept: the approved design stays readable after a newer push, on the
// embedded store and on PostgreSQL; and migration 4 keeps the designs of packages that existed before it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../../src/service/store/migrations.js';
import { openEmbedded } from '../../src/service/store/sqlite.js';
import { signInUi } from '../helpers/dashboard.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { api, CONFORMANCE, createAccountKey, startService, type TestService } from '../helpers/service.js';
import { design } from './fixtures.js';

let postgres: TestPostgres;
let databaseUrl: string;
const services: Record<string, TestService> = {};

beforeAll(async () => {
  postgres = await startPostgres();
  services.embedded = await startService();
  databaseUrl = postgres.createDatabase('tfgate_revisions');
  services.postgres = await startService({ env: { TFGATE_DATABASE_URL: databaseUrl } });
}, 120_000);
afterAll(async () => {
  await Promise.all(Object.values(services).map((s) => s.stop()));
  postgres?.stop();
});

const NEXT = design('rev').replace('[relational_database, generic_data]', '[relational_database, queue]');

describe.each(['embedded', 'postgres'])('design revisions (%s store)', (store) => {
  it('keeps the approved design after a newer push: current, approved and by revision', async () => {
    const svc = services[store]!;
    const put = (text: string) =>
      api<{ revision: string }>(svc, 'PUT', `${CONFORMANCE}/packages/rev`, {
        body: text,
        headers: { 'Content-Type': 'application/yaml' },
      });
    const first = (await put(design('rev'))).body.revision;
    expect((await api(svc, 'POST', `${CONFORMANCE}/packages/rev/approve`)).status).toBe(200);
    const second = (await put(NEXT)).body.revision;
    expect(second).not.toBe(first);

    const approved = await api<Record<string, unknown>>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/rev/design?revision=approved`,
    );
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      revision: first,
      approved: true,
      current: false,
      pushed_by: 'bootstrap',
    });
    expect((approved.body.design as { sanctioned_kinds: string[] }).sanctioned_kinds).toContain(
      'generic_data',
    );

    const current = await api<Record<string, unknown>>(svc, 'GET', `${CONFORMANCE}/packages/rev/design`);
    expect(current.body).toMatchObject({ revision: second, approved: false, current: true });
    expect((current.body.design as { sanctioned_kinds: string[] }).sanctioned_kinds).toContain('queue');

    const byRevision = await api(svc, 'GET', `${CONFORMANCE}/packages/rev/design?revision=${first}`);
    expect(byRevision.body).toMatchObject({ revision: first });
    // Pushing the first design again makes it current; its record is the same revision.
    expect((await put(design('rev'))).body.revision).toBe(first);
    const back = await api(svc, 'GET', `${CONFORMANCE}/packages/rev/design?revision=approved`);
    expect(back.body).toMatchObject({ revision: first, approved: true, current: true });
  });

  it('a revision never pushed, no approved design, and a hostile revision are refused in plain words', async () => {
    const svc = services[store]!;
    await api(svc, 'PUT', `${CONFORMANCE}/packages/fresh`, {
      body: design('fresh'),
      headers: { 'Content-Type': 'application/yaml' },
    });
    const none = await api<{ error: { code: string; message: string } }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/fresh/design?revision=approved`,
    );
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('revision_not_found');
    expect(none.body.error.message).toContain('has no approved design yet');
    const unknown = await api<{ error: { code: string } }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/fresh/design?revision=${'0'.repeat(32)}`,
    );
    expect(unknown.status).toBe(404);
    const hostile = await api<{ error: { code: string } }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/fresh/design?revision=%00x`,
    );
    expect(hostile.status).toBe(400);
    expect(hostile.body.error.code).toBe('invalid_parameter');
  });

  it("another account's package is a 404; a read-only key may read a revision", async () => {
    const svc = services[store]!;
    const other = await createAccountKey(svc, `other-${store}`, 'enterprise', ['compliance:read']);
    expect((await api(svc, 'GET', `${CONFORMANCE}/packages/rev/design`, { key: other.key })).status).toBe(
      404,
    );
    const reader = await createAccountKey(
      svc,
      'default',
      'enterprise',
      ['compliance:read'],
      `reader-${store}`,
    );
    expect((await api(svc, 'GET', `${CONFORMANCE}/packages/rev/design`, { key: reader.key })).status).toBe(
      200,
    );
  });
});

describe('an approved design replaced before revisions were kept (PostgreSQL)', () => {
  it('is a plain 404 on the route, and the dashboard says so instead of a diff', async () => {
    const svc = services.postgres!;
    const put = (text: string) =>
      api(svc, 'PUT', `${CONFORMANCE}/packages/lost`, {
        body: text,
        headers: { 'Content-Type': 'application/yaml' },
      });
    await put(design('lost'));
    await api(svc, 'POST', `${CONFORMANCE}/packages/lost/approve`);
    await put(design('lost').replace('[relational_database, generic_data]', '[relational_database]'));
    // As a store migrated from before migration 4 holds it: the approved revision's design is absent.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(
        `DELETE FROM design_revisions r USING packages p
          WHERE r.package_pk = p.pk AND p.package_id = 'lost' AND r.revision = p.approved_revision`,
      );
    } finally {
      await client.end();
    }
    const missing = await api<{ error: { code: string; message: string } }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/lost/design?revision=approved`,
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('was not kept');
    const ui = await signInUi(svc, svc.apiKey);
    const page = await ui.get('/ui/packages/lost');
    expect(page.status).toBe(200);
    expect(page.text).toContain('was not kept');
    expect(page.text).toContain('Approve revision');
  });
});

describe('the OpenAPI document', () => {
  it('covers the design route; the /ui HTML pages are not in it', async () => {
    const doc = await api<{
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
    }>(services.embedded!, 'GET', `${CONFORMANCE}/openapi.json`, { key: null });
    const route = doc.body.paths[`${CONFORMANCE}/packages/{package_id}/design`]!;
    expect(route.get!.operationId).toBe('getDesignRevision');
    expect(Object.keys(route.get!.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404']),
    );
    expect(Object.keys(doc.body.paths).filter((path) => path.startsWith('/ui'))).toEqual([]);
  });
});

describe('migration 4', () => {
  it("keeps each existing package's current design as a revision", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-mig4-'));
    const db = await openEmbedded(dir);
    try {
      // The store as it was before migration 4: the first schema, one package.
      await db.exec(
        'CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      await db.exec(MIGRATIONS.find((m) => m.version === 1)!.sql);
      await db.query("INSERT INTO schema_migrations (version, name) VALUES (1, 'initial schema')");
      await db.query("INSERT INTO accounts (name, plan) VALUES ('default', 'enterprise')");
      await db.query(
        `INSERT INTO packages (account, package_id, design, revision) VALUES ('default', 'old', '{"package_id":"old","sanctioned_kinds":[]}'::jsonb, 'r1')`,
      );
      expect(await migrate(db)).toContain(4);
      const { rows } = await db.query<{ revision: string; pushed_by: string | null }>(
        'SELECT revision, pushed_by FROM design_revisions',
      );
      expect(rows).toEqual([{ revision: 'r1', pushed_by: null }]);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

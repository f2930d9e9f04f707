// The audit log's group commit on the embedded store (real SQLite): calls made in one event-loop turn
// share one INSERT, every caller waits for its own row, and one bad row does not fail the others.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SqlClient, Store } from '../../src/service/store/index.js';
import { openEmbedded } from '../../src/service/store/sqlite.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tfgate-audit-batch-'));
const statements: string[] = [];
let store: Store;

/** The real SQLite client, with every statement outside a transaction recorded. */
function recording(db: SqlClient): SqlClient {
  return {
    kind: db.kind,
    query: (text, params) => {
      statements.push(text);
      return db.query(text, params);
    },
    exec: (script) => db.exec(script),
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
}

const entry = (n: number, packagePk: number | null = null) => ({
  event: 'gate_decided',
  account: 'default',
  packagePk,
  details: { n },
});

async function auditRows(): Promise<Array<{ details: { n: number } }>> {
  const { rows } = await store.db.query<{ details: { n: number } }>(
    "SELECT details FROM audit WHERE event = 'gate_decided' ORDER BY id",
  );
  return rows;
}

beforeAll(async () => {
  store = new Store(recording(await openEmbedded(dataDir)));
  await store.migrate();
}, 120_000);

afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('audit group commit', () => {
  it('commits the rows of calls made in one event-loop turn in one INSERT', async () => {
    statements.length = 0;
    // As requests arrive: each in its own callback of one loop turn, with microtasks run between them.
    const done = Array.from(
      { length: 20 },
      (_, n) =>
        new Promise<void>((resolve, reject) =>
          setImmediate(() => store.audit.append(entry(n)).then(resolve, reject)),
        ),
    );
    await Promise.all(done);
    expect(statements.filter((s) => s.startsWith('INSERT INTO audit'))).toHaveLength(1);
    expect((await auditRows()).map((r) => r.details.n)).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });

  it('a lone call is committed too, without waiting for company', async () => {
    statements.length = 0;
    await store.audit.append(entry(100));
    expect(statements.filter((s) => s.startsWith('INSERT INTO audit'))).toHaveLength(1);
    expect((await auditRows()).at(-1)!.details.n).toBe(100);
  });

  it('one bad row fails only its own call; the rows it shared a batch with are committed', async () => {
    // No package has pk 999999: that row violates the foreign key.
    const results = await Promise.allSettled([
      store.audit.append(entry(200)),
      store.audit.append(entry(201, 999_999)),
      store.audit.append(entry(202)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await auditRows()).slice(-2).map((r) => r.details.n)).toEqual([200, 202]);
  });

  it('close() commits what is still queued', async () => {
    const pending = store.audit.append(entry(300));
    await store.close();
    await pending;
    store = new Store(recording(await openEmbedded(dataDir)));
    expect((await auditRows()).at(-1)!.details.n).toBe(300);
  }, 60_000);
});

// The embedded store's client (node:sqlite) keeps PostgreSQL's guarantees the repositories rely on: one
// transaction at a time though statements run synchronously, a statement outside a transaction never joins
// another's, rollback on a throw, constraint errors with PostgreSQL's codes, JSON columns read back as values
// (through the untrusted-JSON reader), and the commit mode the setting asks for.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../src/service/store/index.js';
import { type EmbeddedSync, openEmbedded } from '../../src/service/store/sqlite.js';

const open: Array<{ db: SqlClient; dir: string }> = [];

async function client(sync?: EmbeddedSync): Promise<SqlClient> {
  const dir = mkdtempSync(join(tmpdir(), 'tfgate-embedded-'));
  const db = await openEmbedded(dir, sync);
  open.push({ db, dir });
  await db.exec('CREATE TABLE t (id serial PRIMARY KEY, v text NOT NULL UNIQUE, doc jsonb)');
  return db;
}

afterEach(async () => {
  for (const { db, dir } of open.splice(0)) {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

const tick = () => new Promise((resolve) => setImmediate(resolve));
const values = async (db: SqlClient) =>
  (await db.query<{ v: string }>('SELECT v FROM t ORDER BY id')).rows.map((r) => r.v);

describe('the embedded store client', () => {
  it('runs one transaction at a time: a second waits for the first to commit', async () => {
    const db = await client();
    const order: string[] = [];
    const first = db.transaction(async (tx) => {
      order.push('first begins');
      await tx.query('INSERT INTO t (v) VALUES ($1)', ['a']);
      await tick();
      await tick();
      order.push('first ends');
    });
    const second = db.transaction(async (tx) => {
      order.push('second begins');
      await tx.query('INSERT INTO t (v) VALUES ($1)', ['b']);
    });
    await Promise.all([first, second]);
    expect(order).toEqual(['first begins', 'first ends', 'second begins']);
    expect(await values(db)).toEqual(['a', 'b']);
  });

  it('a statement outside a transaction is not part of an open one, so its rollback does not take it', async () => {
    const db = await client();
    const failing = db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (v) VALUES ($1)', ['rolled back']);
      await tick();
      throw new Error('abort');
    });
    const outside = db.query('INSERT INTO t (v) VALUES ($1)', ['kept']);
    await expect(failing).rejects.toThrow('abort');
    await outside;
    expect(await values(db)).toEqual(['kept']);
  });

  it('a unique violation carries PostgreSQL code 23505, and the transaction is rolled back', async () => {
    const db = await client();
    await db.query('INSERT INTO t (v) VALUES ($1)', ['x']);
    const error = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (v) VALUES ($1)', ['y']);
        await tx.query('INSERT INTO t (v) VALUES ($1)', ['x']);
      })
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('23505');
    expect(await values(db)).toEqual(['x']);
  });

  it('jsonb columns come back as values, escaped keys read exactly (never by JSON.parse)', async () => {
    const db = await client();
    const doc = { '\\': 1, '\n': 2, a: [true, null, 'é'] };
    await db.query('INSERT INTO t (v, doc) VALUES ($1, $2::jsonb)', ['j', JSON.stringify(doc)]);
    const { rows } = await db.query<{ doc: unknown }>('SELECT doc FROM t WHERE v = $1', ['j']);
    expect(rows[0]!.doc).toEqual(doc);
  });

  it.each([
    [undefined, 2],
    ['full', 2],
    ['normal', 1],
  ] as const)(
    'commits with synchronous=%s as asked, full by default (PRAGMA synchronous %i)',
    async (sync, expected) => {
      const db = await client(sync);
      const { rows } = await db.query<{ synchronous: number }>('PRAGMA synchronous');
      expect(rows[0]!.synchronous).toBe(expected);
      const { rows: mode } = await db.query<{ journal_mode: string }>('PRAGMA journal_mode');
      expect(mode[0]!.journal_mode).toBe('wal');
    },
  );
});

// The closed list of PostgreSQL constructs the embedded store (SQLite) translates, one case each, and each
// translation run on a real SQLite (node:sqlite) so it is valid there, not only what we expect to read.
import { describe, expect, it } from 'vitest';
import { SQLITE_NOW, toSqlite } from '../../src/service/store/dialect.js';

const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite');

function sqlite() {
  const db = new DatabaseSync(':memory:');
  db.exec(
    toSqlite(`
CREATE TABLE t (pk serial PRIMARY KEY, name text NOT NULL, doc jsonb NOT NULL DEFAULT '{}'::jsonb,
  at timestamptz NOT NULL DEFAULT now(), due timestamptz);
CREATE TABLE a (id bigserial PRIMARY KEY, v text);`)!,
  );
  return db;
}

describe('toSqlite', () => {
  it.each([
    ['numbered parameters', 'SELECT $2, $1, $2', 'SELECT ?2, ?1, ?2'],
    ['now()', 'SELECT now() AS now', `SELECT ${SQLITE_NOW} AS now`],
    ['a column default now()', 'at timestamptz DEFAULT now()', `at timestamptz DEFAULT (${SQLITE_NOW})`],
    [
      'now() plus milliseconds',
      "SET due = now() + ($3::int * interval '1 millisecond')",
      "SET due = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', (?3 / 1000.0) || ' seconds')",
    ],
    [
      'serial keys',
      'id bigserial PRIMARY KEY, pk serial PRIMARY KEY',
      'id INTEGER PRIMARY KEY AUTOINCREMENT, pk INTEGER PRIMARY KEY AUTOINCREMENT',
    ],
    ['row locks', 'SELECT pk FROM t WHERE pk = $1 FOR NO KEY UPDATE', 'SELECT pk FROM t WHERE pk = ?1'],
    [
      'row locks of a subquery',
      'IN (SELECT q.pk FROM t q LIMIT $2 FOR UPDATE OF q SKIP LOCKED)',
      'IN (SELECT q.pk FROM t q LIMIT ?2)',
    ],
    ['= ANY(array)', 'WHERE id = ANY($2::text[])', 'WHERE id IN (SELECT value FROM json_each(?2))'],
    [
      'casts to text or integers',
      'SELECT id::text AS id WHERE audit.id > $2::bigint',
      'SELECT CAST(id AS text) AS id WHERE audit.id > CAST(?2 AS bigint)',
    ],
    ['JSON and count casts', "VALUES ($1::jsonb, '{}'::jsonb), count(*)::int", "VALUES (?1, '{}'), count(*)"],
    [
      'a bare UPDATE alias',
      'UPDATE packages p SET x = 1 WHERE p.pk = $1',
      'UPDATE packages AS p SET x = 1 WHERE p.pk = ?1',
    ],
    [
      'RETURNING the alias',
      'INSERT INTO t AS p (name) VALUES ($1) RETURNING p.pk, p.name',
      'INSERT INTO t AS p (name) VALUES (?1) RETURNING pk, name',
    ],
  ])('%s', (_name, postgres, expected) => {
    expect(toSqlite(postgres)).toBe(expected);
  });

  it('an advisory lock is nothing to do (one process owns the data dir)', () => {
    expect(toSqlite('SELECT pg_advisory_xact_lock($1)')).toBeNull();
  });

  it('what it writes runs on SQLite, with ISO timestamps in text order', () => {
    const db = sqlite();
    const run = (sql: string, ...params: Array<string | number | null>) =>
      db.prepare(toSqlite(sql)!).all(...params);
    const [row] = run(
      "INSERT INTO t AS p (name, due) VALUES ($1, now() + ($2::int * interval '1 millisecond')) RETURNING p.pk, p.at, p.due, p.doc",
      'one',
      60_000,
    ) as Array<{ pk: number; at: string; due: string; doc: string }>;
    expect(row!.pk).toBe(1);
    expect(row!.doc).toBe('{}');
    expect(new Date(row!.at).toISOString()).toBe(row!.at);
    expect(Date.parse(row!.due) - Date.parse(row!.at)).toBeGreaterThanOrEqual(59_000);
    expect(
      run('UPDATE t p SET name = $2 WHERE p.pk = $1 AND p.due > now() RETURNING p.name', 1, 'two'),
    ).toEqual([{ name: 'two' }]);
    expect(
      run(
        'SELECT pk::text AS pk FROM t WHERE pk > $1::bigint AND name = ANY($2::text[]) FOR NO KEY UPDATE',
        '0',
        '["two"]',
      ),
    ).toEqual([{ pk: '1' }]);
    db.close();
  });
});

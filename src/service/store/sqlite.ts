// Embedded backend: SQLite through Node's built-in node:sqlite, one file in <data dir>/store. No setup, one
// process. Replaces PGlite (PostgreSQL in wasm), measured on this machine (a prototype, load ~20, Node 26):
// PGlite took 11.8–13.5 s and 620–680 MB to create an empty store and 2.2 s and 300 MB to open it again;
// node:sqlite opens or creates one in 13–74 ms at 47–49 MB RSS for the whole process (Node 22 and 26 alike).
// The whole service is ready in 0.2 s at 95 MB (README's benchmark table).
//
// Guarantees, as on PostgreSQL:
// - Transactions: node:sqlite runs each statement synchronously, but a SqlClient transaction is an async
//   callback, so transactions are serialised in this process (one open at a time); a statement outside a
//   transaction waits for the open one to end, so it never runs inside another request's transaction.
// - Durability: WAL. synchronous=FULL (the default, --embedded-sync full) fsyncs each commit, so an answered
//   write survives a power loss too, as PostgreSQL's default does. synchronous=NORMAL (--embedded-sync normal)
//   writes each commit to the WAL file before the call returns, so a kill -9 or any crash of tfgate loses
//   nothing answered (the kill -9 tests), but a power loss or OS crash may lose the last commits (never
//   corrupting the store). The fsync is most of a one-client gate call (README, Benchmarks: 1,725 against
//   3,044 req/s). The audit log's group commit (audit.ts) shares one commit among concurrent calls either way.
// - One process per data dir: the store file's exclusive lock, held until close (data-dir-lock.ts).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { UsageError } from '../../errors/index.js';
import { parseUntrustedJson } from '../../json/untrusted.js';
import {
  dataDirInUse,
  type OwnerRecord,
  recordedOwner,
  refuseRecordedOwner,
  writeOwnerRecord,
} from './data-dir-lock.js';
import { toSqlite } from './dialect.js';
import type { SqlClient, SqlExecutor, SqlRows } from './sql.js';

/** The embedded store's directory in the data dir. */
const EMBEDDED_STORE_DIR = 'store';
const OLD_PGLITE_VERSION_FILE = join('pgdata', 'PG_VERSION');

/** Whether opening `dataDir` creates a new store (neither a store nor the old format is there). */
export function isNewEmbeddedStore(dataDir: string): boolean {
  return (
    !existsSync(join(dataDir, EMBEDDED_STORE_DIR)) && !existsSync(join(dataDir, OLD_PGLITE_VERSION_FILE))
  );
}
const STORE_FILE = 'tfgate.db';

/**
 * node:sqlite, loaded on demand. Node 22 prints "ExperimentalWarning: SQLite is an experimental feature" on
 * loading it, into the service's log on every start: that one warning is not printed (the module is in
 * release candidate state on Node 25 and later, and tfgate tests it on both supported lines).
 */
function loadSqlite(): typeof import('node:sqlite') {
  // Node 20 has no node:sqlite: getBuiltinModule answers undefined (and Node before 20.16 has no
  // getBuiltinModule). Said as what it is, never as a damaged store.
  if (typeof process.getBuiltinModule !== 'function') throw sqliteUnavailable();
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && /^SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  let sqlite: typeof import('node:sqlite') | undefined;
  try {
    sqlite = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite') | undefined;
  } catch (error) {
    throw sqliteUnavailable(error);
  } finally {
    process.emitWarning = emitWarning;
  }
  if (sqlite?.DatabaseSync === undefined) throw sqliteUnavailable();
  return sqlite;
}

/** The running Node has no node:sqlite (Node 20, or a 22 before it was unflagged): not a damaged store. */
function sqliteUnavailable(cause?: unknown): UsageError {
  return new UsageError(
    'embedded_store_unsupported_node',
    `the embedded store needs Node's built-in node:sqlite, which Node ${process.version} does not have, so tfgate serve cannot start: it needs Node 22.16 or later`,
    {
      ...(cause === undefined ? {} : { cause }),
      hint:
        'run tfgate on Node 22.16 or later (22, 24 or 26, the lines tfgate supports), or store in PostgreSQL ' +
        'with --database-url (env TFGATE_DATABASE_URL or DATABASE_URL), which does not use node:sqlite',
    },
  );
}

/**
 * The store's files could not be opened or read: truncated or overwritten, not a database, a directory in
 * the file's place. Names the directory and the two ways out.
 */
export function damagedDataDir(dataDir: string, dbDir: string, cause: unknown): UsageError {
  const detail = cause instanceof Error ? cause.message : '';
  return new UsageError(
    'data_dir_damaged',
    `the embedded store in ${dbDir} is damaged or unreadable, so tfgate serve cannot start${detail ? ` (${detail})` : ''}`,
    {
      cause,
      hint:
        `stop every tfgate serve on ${dataDir}, then either restore ${dbDir} from a backup (what was written ` +
        `after that backup is lost), or move it aside (mv ${dbDir} ${dbDir}.damaged) and start again with an empty ` +
        'store: that loses every package, design, approval, observed state, finding, acknowledgement, the ' +
        'audit log and every API key (set TFGATE_BOOTSTRAP_API_KEY to create an admin key again). The ' +
        `signing key (${join(dataDir, 'signing-key.pem')}) is kept, so bundles stay signed by the same key.`,
    },
  );
}

/** Why a data dir cannot be made or written, by the errno of mkdir or of serve.lock's write. */
const UNUSABLE: Record<string, { why: (dataDir: string) => string; hint: string }> = {
  EEXIST: {
    why: (dataDir) => `${dataDir} is a file, not a directory`,
    hint: 'give a directory with --data-dir (env TFGATE_DATA_DIR); it is created when missing. Or move the file aside',
  },
  ENOTDIR: {
    why: () => 'a part of its path is a file, not a directory',
    hint: 'give a path whose parents are directories with --data-dir (env TFGATE_DATA_DIR); it is created when missing',
  },
  EACCES: {
    why: () => 'permission denied',
    hint: 'run tfgate serve as a user that may create and write it, or give another --data-dir (env TFGATE_DATA_DIR)',
  },
  EPERM: {
    why: () => 'operation not permitted',
    hint: 'run tfgate serve as a user that may create and write it, or give another --data-dir (env TFGATE_DATA_DIR)',
  },
  EROFS: {
    why: () => 'the file system is read-only',
    hint: 'give a --data-dir (env TFGATE_DATA_DIR) on a writable file system, such as a mounted volume',
  },
  ENOSPC: { why: () => 'the disk is full', hint: 'free space on its disk, or give another --data-dir' },
  ENAMETOOLONG: {
    why: () => 'the path is too long',
    hint: 'give a shorter --data-dir (env TFGATE_DATA_DIR)',
  },
  ELOOP: {
    why: () => 'its path loops through symbolic links',
    hint: 'give a --data-dir (env TFGATE_DATA_DIR) whose symbolic links resolve',
  },
};

/**
 * The data dir cannot be created or written (a file in its place, no permission, a read-only disk): the
 * operator's to fix, said with the errno. A TfgateError (the data dir in use) and an unknown failure are kept.
 */
export function unusableDataDir(dataDir: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const known = code === undefined ? undefined : UNUSABLE[code];
  if (known === undefined || error instanceof UsageError) return error;
  return new UsageError(
    'data_dir_unusable',
    `tfgate serve cannot use the data dir ${dataDir}: ${known.why(dataDir)} (${code})`,
    { hint: known.hint, cause: error },
  );
}

/** A data dir from a development build that kept its store in PGlite (never released: nothing to migrate). */
function pgliteDataDir(dataDir: string): UsageError {
  const old = join(dataDir, 'pgdata');
  return new UsageError(
    'data_dir_old_store',
    `the data dir ${dataDir} holds a store in the old format (${old}, written by a development build of tfgate), which this version cannot read`,
    {
      hint:
        `no released version wrote that format, so there is nothing to migrate: move it aside (mv ${old} ${old}.old) ` +
        'and start again with an empty store (set TFGATE_BOOTSTRAP_API_KEY to create an admin key), or pick ' +
        `another --data-dir. The signing key (${join(dataDir, 'signing-key.pem')}) is kept.`,
    },
  );
}

/** SQLite's extended result codes for constraint failures, as PostgreSQL's SQLSTATE (what the repositories test). */
const SQLSTATE: Record<number, string> = {
  2067: '23505', // SQLITE_CONSTRAINT_UNIQUE
  1555: '23505', // SQLITE_CONSTRAINT_PRIMARYKEY
  787: '23503', // SQLITE_CONSTRAINT_FOREIGNKEY
  1299: '23502', // SQLITE_CONSTRAINT_NOTNULL
  275: '23514', // SQLITE_CONSTRAINT_CHECK
  1811: 'P0001', // SQLITE_CONSTRAINT_TRIGGER: RAISE(ABORT) in a trigger, as RAISE EXCEPTION
};

function withSqlState(error: unknown): unknown {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  const state = typeof errcode === 'number' ? SQLSTATE[errcode] : undefined;
  if (state) Object.defineProperty(error, 'code', { value: state, configurable: true });
  return error;
}

/** A parameter as SQLite binds it, the way node-postgres sends it to PostgreSQL. */
function bindable(value: unknown): SQLInputValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return value as SQLInputValue;
}

interface Prepared {
  statement: StatementSync | null;
  /** Columns declared jsonb or json (returned parsed) and boolean (returned as true or false). */
  json: string[];
  booleans: string[];
}

const MAX_STATEMENTS = 1_000;

class SqliteClient implements SqlClient {
  readonly kind = 'embedded' as const;
  readonly #statements = new Map<string, Prepared>();
  /** Settles when the open transaction ends; undefined when none is open. */
  #transaction: Promise<void> | undefined;
  readonly #inTransaction: SqlExecutor;

  constructor(
    private readonly db: DatabaseSync,
    private readonly unlock: () => void,
  ) {
    this.#inTransaction = {
      query: async (text, params) => this.#run(text, params),
      exec: async (script) => this.#exec(script),
    };
  }

  #prepare(text: string): Prepared {
    let prepared = this.#statements.get(text);
    if (!prepared) {
      const sql = toSqlite(text);
      const statement = sql === null ? null : this.db.prepare(sql);
      const columns = statement?.columns() ?? [];
      const declared = (...types: string[]) =>
        columns.filter((c) => c.type !== null && types.includes(c.type.toLowerCase())).map((c) => c.name);
      prepared = { statement, json: declared('jsonb', 'json'), booleans: declared('boolean', 'bool') };
      if (this.#statements.size >= MAX_STATEMENTS) this.#statements.clear();
      this.#statements.set(text, prepared);
    }
    return prepared;
  }

  #run<T>(text: string, params: unknown[] = []): SqlRows<T> {
    try {
      const { statement, json, booleans } = this.#prepare(text);
      if (!statement) return { rows: [] };
      const rows = statement.all(...params.map(bindable)) as Record<string, unknown>[];
      if (json.length > 0 || booleans.length > 0) {
        for (const row of rows) {
          for (const name of json) {
            const value = row[name];
            if (typeof value === 'string') row[name] = parseUntrustedJson(value, Number.MAX_SAFE_INTEGER);
          }
          for (const name of booleans) if (row[name] != null) row[name] = row[name] === 1;
        }
      }
      return { rows: rows as T[] };
    } catch (error) {
      throw withSqlState(error);
    }
  }

  #exec(script: string): void {
    const sql = toSqlite(script);
    try {
      if (sql !== null) this.db.exec(sql);
    } catch (error) {
      throw withSqlState(error);
    }
  }

  // Each waits in a loop checked right before it runs, with no await in between: a statement outside a
  // transaction must not run inside another's, and two transactions that waited together must not both begin.

  async query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<SqlRows<T>> {
    while (this.#transaction) await this.#transaction;
    return this.#run<T>(text, params);
  }

  async exec(script: string): Promise<void> {
    while (this.#transaction) await this.#transaction;
    this.#exec(script);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    while (this.#transaction) await this.#transaction;
    let end!: () => void;
    this.#transaction = new Promise<void>((resolve) => {
      end = resolve;
    });
    try {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.#inTransaction);
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    } finally {
      this.#transaction = undefined;
      end();
    }
  }

  async close(): Promise<void> {
    while (this.#transaction) await this.#transaction;
    try {
      this.db.close();
    } finally {
      this.unlock();
    }
  }
}

/**
 * Reads the first row of every table, so damaged files are found at start-up rather than by the first
 * request that touches them. Cheap: a few pages per table.
 */
function probe(db: DatabaseSync): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as Array<{ name: string }>;
  for (const { name } of tables) db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}" LIMIT 1`).all();
}

/** SQLite's result code for a lock another connection holds. */
const SQLITE_BUSY = 5;

/**
 * Takes the store file's exclusive lock and keeps it until close (locking_mode EXCLUSIVE, set before the
 * first access, so the WAL index lives in this process, not in a shared -shm file): the one-process lock of
 * data-dir-lock.ts. Held by another process: the data dir is in use, said with its pid where serve.lock has it.
 */
function holdExclusively(db: DatabaseSync, dataDir: string): void {
  db.exec('PRAGMA locking_mode = EXCLUSIVE');
  try {
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (error) {
    if ((error as { errcode?: unknown }).errcode === SQLITE_BUSY)
      throw dataDirInUse(dataDir, recordedOwner(dataDir), error);
    throw error;
  }
}

/** How the embedded store commits: see the durability note at the top. */
export type EmbeddedSync = 'normal' | 'full';

/** `creating` is told once the data dir is made and locked, when it holds no store yet: before creating one. */
export async function openEmbedded(
  dataDir: string,
  sync: EmbeddedSync = 'full',
  creating?: () => void,
): Promise<SqlClient> {
  // First: a Node without node:sqlite is said before anything is created, locked or announced.
  const { DatabaseSync } = loadSqlite();
  let owner: OwnerRecord;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    refuseRecordedOwner(dataDir);
    owner = writeOwnerRecord(dataDir);
  } catch (error) {
    throw unusableDataDir(dataDir, error);
  }
  const dbDir = join(dataDir, EMBEDDED_STORE_DIR);
  if (!existsSync(dbDir) && existsSync(join(dataDir, OLD_PGLITE_VERSION_FILE))) {
    owner.discard();
    throw pgliteDataDir(dataDir);
  }
  const isNew = isNewEmbeddedStore(dataDir);
  let db: DatabaseSync | undefined;
  let unlock: (() => void) | undefined;
  try {
    mkdirSync(dbDir, { recursive: true, mode: 0o700 });
    db = new DatabaseSync(join(dbDir, STORE_FILE), { enableForeignKeyConstraints: true });
    holdExclusively(db, dataDir);
    unlock = owner.publish();
    if (isNew) creating?.();
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${sync === 'full' ? 'FULL' : 'NORMAL'}`);
    db.exec('PRAGMA foreign_keys = ON');
    probe(db);
  } catch (error) {
    try {
      db?.close();
    } catch {}
    if (unlock) unlock();
    else owner.discard();
    if (error instanceof UsageError) throw error;
    throw damagedDataDir(dataDir, dbDir, error);
  }
  return new SqliteClient(db, unlock);
}

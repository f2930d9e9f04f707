// Embedded backend: PGlite (PostgreSQL compiled to wasm) on a data directory. No setup, one process.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { UsageError } from '../../errors/index.js';
import { type SqlClient, sqlExecutor } from './sql.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** PGlite is single-process: a second `tfgate serve` on the same data dir would corrupt it. */
function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, 'serve.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new UsageError(
          'data_dir_in_use',
          `the data dir ${dataDir} is in use by another tfgate serve (pid ${owner})`,
          {
            hint: 'stop that process, pick another --data-dir, or use PostgreSQL (--database-url) to run several instances',
          },
        );
      }
      // Left behind by a process that died (kill -9): take it over.
      rmSync(path, { force: true });
    }
  }
  throw new UsageError('data_dir_in_use', `could not lock the data dir ${dataDir}`);
}

/**
 * The store's files could not be opened or read: truncated or overwritten files, a missing directory,
 * files from another PostgreSQL version. PGlite says only "Aborted()" or "failed to initialize"; this
 * names the directory and the two ways out.
 */
export function damagedDataDir(dataDir: string, dbDir: string, cause: unknown): UsageError {
  const detail = cause instanceof Error ? cause.message.replace(/\.? ?Build with -sASSERTIONS.*$/s, '') : '';
  const said = detail && !/^Aborted\(\)$/.test(detail) ? ` (${detail})` : '';
  return new UsageError(
    'data_dir_damaged',
    `the embedded store in ${dbDir} is damaged or unreadable, so tfgate serve cannot start${said}`,
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

/**
 * Reads the first rows of every table, so damaged files are found at start-up rather than by the first
 * request that touches them. Cheap: one page per table.
 */
async function probe(db: PGlite): Promise<void> {
  const { rows } = await db.query<{ name: string }>(
    "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public'",
  );
  for (const { name } of rows) await db.query(`SELECT * FROM ${name} LIMIT 1`);
}

export async function openEmbedded(dataDir: string): Promise<SqlClient> {
  const dbDir = join(dataDir, 'pgdata');
  mkdirSync(dbDir, { recursive: true, mode: 0o700 });
  const unlock = lockDataDir(dataDir);
  let db: PGlite;
  try {
    if (!existsSync(join(dbDir, 'PG_VERSION'))) {
      // Creating the cluster grows the wasm memory to ~800 MB, and wasm memory never shrinks: create it
      // in a throwaway instance, then open it afresh (~300 MB).
      await (await PGlite.create(dbDir)).close();
    }
    // relaxedDurability stays off: a 2xx answer means the write reached the files.
    db = await PGlite.create(dbDir, { relaxedDurability: false });
    await probe(db);
  } catch (error) {
    unlock();
    throw damagedDataDir(dataDir, dbDir, error);
  }
  const executor = (q: Pick<PGlite, 'query' | 'exec'>) => sqlExecutor(q, (script) => q.exec(script));
  return {
    ...executor(db),
    kind: 'embedded',
    transaction: (fn) => db.transaction((tx) => fn(executor(tx))),
    close: async () => {
      try {
        await db.close();
      } finally {
        unlock();
      }
    },
  };
}

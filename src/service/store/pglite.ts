// Embedded backend: PGlite (PostgreSQL compiled to wasm) on a data directory. No setup, one process.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { UsageError } from '../../errors/index.js';
import type { SqlClient, SqlExecutor, SqlRows } from './sql.js';

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
  } catch (error) {
    unlock();
    throw error;
  }
  const executor = (q: Pick<PGlite, 'query' | 'exec'>): SqlExecutor => ({
    async query<T>(text: string, params: unknown[] = []): Promise<SqlRows<T>> {
      const result = await q.query<T>(text, params);
      return { rows: result.rows };
    },
    async exec(script: string): Promise<void> {
      await q.exec(script);
    },
  });
  const self = executor(db);
  return {
    kind: 'embedded',
    query: self.query,
    exec: self.exec,
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

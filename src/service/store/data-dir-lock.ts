// One process per data dir: the embedded store is opened by one `tfgate serve` only (its caches assume
// every write goes through this process, and its transactions are serialised in this process).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../errors/index.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the data dir's owner lock (serve.lock, holding the pid); returns its release. */
export function lockDataDir(dataDir: string): () => void {
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

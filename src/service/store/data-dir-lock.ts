// One process per data dir: the embedded store is opened by one `tfgate serve` only (its caches assume
// every write goes through this process, and its transactions are serialised in this process).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * A process's identity where /proc tells (Linux): its start time (clock ticks since boot, field 22 of
 * /proc/<pid>/stat), which a pid reused by another program does not share; undefined for a zombie (killed,
 * not yet reaped) or where there is no /proc.
 */
function startTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: the fields after its last ")".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' ? undefined : fields[19];
}

/**
 * Whether the lock's owner still runs: its pid is alive and, when the lock recorded the owner's start time
 * and /proc can tell, it is the same process (not a zombie, not another program given the pid since).
 */
function ownerRuns(pid: number, started: string | undefined): boolean {
  if (!alive(pid)) return false;
  if (started === undefined || !existsSync(`/proc/${pid}`)) return true;
  return startTime(pid) === started;
}

/** Takes the data dir's owner lock (serve.lock, holding the pid); returns its release. */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, 'serve.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const started = startTime(process.pid);
      writeFileSync(path, started === undefined ? String(process.pid) : `${process.pid} ${started}`, {
        flag: 'wx',
        mode: 0o600,
      });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const [pid, started] = readFileSync(path, 'utf8').trim().split(' ');
      const owner = Number(pid);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && ownerRuns(owner, started)) {
        throw new UsageError(
          'data_dir_in_use',
          `the data dir ${dataDir} is in use by another tfgate serve (pid ${owner})`,
          {
            hint: 'stop that process, pick another --data-dir, or use PostgreSQL (--database-url) to run several instances',
          },
        );
      }
      // Left behind by a process that died (kill -9), its pid free or another program's: take it over.
      rmSync(path, { force: true });
    }
  }
  throw new UsageError('data_dir_in_use', `could not lock the data dir ${dataDir}`);
}

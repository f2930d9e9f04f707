// One process per data dir: the embedded store is opened by one `tfgate serve` only (its caches assume
// every write goes through this process, and its transactions are serialised in this process).
//
// Two parts. The lock itself is SQLite's exclusive lock on the store file (sqlite.ts: locking_mode
// EXCLUSIVE), an fcntl lock the kernel gives to one process and frees when it dies, kill -9 included: no
// two serves hold it, however they race. serve.lock only names the owner (its pid) for the refusal's
// message, and refuses early where a file system ignores fcntl locks. It was the lock alone before: two
// serves starting together over a stale serve.lock could both take it over and both run.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../errors/index.js';

const OWNER_FILE = 'serve.lock';

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
 * Whether the recorded owner still runs: its pid is alive and, when the record has the owner's start time
 * and /proc can tell, it is the same process (not a zombie, not another program given the pid since).
 */
function ownerRuns(pid: number, started: string | undefined): boolean {
  if (!alive(pid)) return false;
  if (started === undefined || !existsSync(`/proc/${pid}`)) return true;
  return startTime(pid) === started;
}

/** The pid serve.lock names, when that process still runs (not this one); undefined otherwise. */
export function recordedOwner(dataDir: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, OWNER_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const [pid, started] = text.trim().split(' ');
  const owner = Number(pid);
  return Number.isInteger(owner) && owner > 0 && owner !== process.pid && ownerRuns(owner, started)
    ? owner
    : undefined;
}

export function dataDirInUse(dataDir: string, owner: number | undefined, cause?: unknown): UsageError {
  return new UsageError(
    'data_dir_in_use',
    `the data dir ${dataDir} is in use by another tfgate serve${owner === undefined ? '' : ` (pid ${owner})`}`,
    {
      ...(cause === undefined ? {} : { cause }),
      hint: 'stop that process, pick another --data-dir, or use PostgreSQL (--database-url) to run several instances',
    },
  );
}

/** Refuses at once when serve.lock names a serve that still runs: before the store is opened or created. */
export function refuseRecordedOwner(dataDir: string): void {
  const owner = recordedOwner(dataDir);
  if (owner !== undefined) throw dataDirInUse(dataDir, owner);
}

const ASIDE_RECORD = /^serve\.lock\.(\d+)\.tmp$/;

/**
 * Records of serves that were killed (kill -9) between writing theirs aside and publishing it: removed by the
 * serve that holds the store. One whose pid still runs is left: it is starting, and will discard its own.
 */
function removeAbandonedRecords(dataDir: string): void {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(ASIDE_RECORD.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(join(dataDir, name), { force: true });
  }
}

/** This process's record for serve.lock, written aside first; `publish` puts it in place. */
export interface OwnerRecord {
  /** Once this process holds the store's lock (whatever serve.lock said is stale): returns its removal. */
  publish(): () => void;
  discard(): void;
}

/**
 * Writes this process's record beside serve.lock, which also finds an unwritable data dir (no permission, a
 * read-only or full disk) before the store is opened. Published by a rename: never seen half-written.
 */
export function writeOwnerRecord(dataDir: string): OwnerRecord {
  const path = join(dataDir, OWNER_FILE);
  const started = startTime(process.pid);
  const record = started === undefined ? String(process.pid) : `${process.pid} ${started}`;
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, record, { mode: 0o600 });
  return {
    publish() {
      renameSync(aside, path);
      removeAbandonedRecords(dataDir);
      // Leaves a record another serve wrote since (it holds the store then, and this one has stopped).
      return () => {
        try {
          if (readFileSync(path, 'utf8') === record) rmSync(path, { force: true });
        } catch {}
      };
    },
    discard: () => rmSync(aside, { force: true }),
  };
}

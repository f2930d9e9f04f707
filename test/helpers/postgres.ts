// A real, throwaway PostgreSQL for tests: initdb into a temp dir owned by the postgres user, pg_ctl start
// on a free port on 127.0.0.1 (as `runuser -u postgres --` when running as root), stop and clean up after.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CANDIDATE_BIN_DIRS = [
  '/usr/lib/postgresql/17/bin',
  '/usr/lib/postgresql/16/bin',
  '/usr/lib/postgresql/15/bin',
  '/usr/lib/postgresql/14/bin',
];

export interface TestPostgres {
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url: string;
  /** A fresh empty database on the same server. */
  createDatabase(name: string): string;
  stop(): void;
}

function findBinDir(): string {
  const fromEnv = process.env.TFGATE_PG_BIN;
  const dirs = fromEnv ? [fromEnv, ...CANDIDATE_BIN_DIRS] : CANDIDATE_BIN_DIRS;
  const found = dirs.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
  if (!found) {
    throw new Error(
      `PostgreSQL server binaries (initdb, pg_ctl) were not found in ${dirs.join(', ')}. Install them (Debian: apt-get install postgresql) or set TFGATE_PG_BIN to their directory; .ci/run installs them.`,
    );
  }
  return found;
}

function ownerOf(path: string): { uid: number; gid: number } {
  const { uid, gid } = statSync(path);
  return { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface StartPostgresOptions {
  /** TCP connections need this password (scram-sha-256) for user postgres; the socket stays trusted. */
  password?: string;
}

export async function startPostgres(options: StartPostgresOptions = {}): Promise<TestPostgres> {
  const bin = findBinDir();
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]) => {
    const file = join(bin, command);
    return asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', file, ...args], { stdio: 'pipe' })
      : execFileSync(file, args, { stdio: 'pipe' });
  };
  const root = mkdtempSync(join(tmpdir(), 'tfgate-pg-'));
  const dataDir = join(root, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(root, uid, gid);
  }
  const port = await freePort();
  try {
    const auth = ['--auth=trust'];
    if (options.password !== undefined) {
      const pwfile = join(root, 'pwfile');
      writeFileSync(pwfile, `${options.password}\n`, { mode: 0o600 });
      if (asRoot) chownSync(pwfile, ownerOf(root).uid, ownerOf(root).gid);
      auth.push('--auth-host=scram-sha-256', `--pwfile=${pwfile}`);
    }
    run('initdb', ['-D', dataDir, '-U', 'postgres', ...auth, '--no-sync', '-E', 'UTF8', '--locale=C']);
    run('pg_ctl', [
      '-D',
      dataDir,
      '-l',
      join(root, 'postgres.log'),
      '-o',
      `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${root} -c max_connections=100 -c fsync=on`,
      '-w',
      '-t',
      '60',
      'start',
    ]);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`could not start PostgreSQL: ${(error as Error).message}\n${stderr}`);
  }
  const user =
    options.password === undefined ? 'postgres' : `postgres:${encodeURIComponent(options.password)}`;
  const base = `postgres://${user}@127.0.0.1:${port}`;
  let stopped = false;
  return {
    url: `${base}/postgres`,
    createDatabase(name: string) {
      run('psql', [
        '-h',
        // The socket is trusted even when TCP needs a password.
        options.password === undefined ? '127.0.0.1' : root,
        '-p',
        String(port),
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-c',
        `CREATE DATABASE "${name}"`,
      ]);
      return `${base}/${name}`;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

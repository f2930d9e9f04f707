// A damaged data directory is found when `tfgate serve` opens it, and the error names the directory and the
// way out. Issue 8, defect 7: it said only "internal error: Aborted()". Each case damages a copy of a data
// dir that a real `tfgate serve` created and filled, the way a full disk, a bad restore or a stray tool does.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, CONFORMANCE, createApprovedPackage, startService } from '../helpers/service.js';
import { design, STATE_WITH_QUEUE } from './fixtures.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const apiKey = 'tfg_damaged_data_dir_bootstrap_key_0123456789';
let root: string;
let original: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tfgate-damaged-'));
  original = join(root, 'original');
  const svc = await startService({ dataDir: original, apiKey, process: true });
  await createApprovedPackage(svc, design('kept'), { observedState: STATE_WITH_QUEUE });
  await svc.stop();
}, 120_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A fresh copy of the filled data dir, damaged by `damage(pgdata)`. */
function damagedCopy(name: string, damage: (pgdata: string) => void | Promise<void>) {
  const dir = join(root, name);
  cpSync(original, dir, { recursive: true });
  return Promise.resolve(damage(join(dir, 'pgdata'))).then(() => dir);
}

/** The files of the tables tfgate created (PostgreSQL numbers user relations from 16384). */
function tableFiles(pgdata: string): string[] {
  return readdirSync(join(pgdata, 'base')).flatMap((db) =>
    readdirSync(join(pgdata, 'base', db))
      .filter((f) => /^\d+$/.test(f) && Number(f) >= 16384)
      .map((f) => join(pgdata, 'base', db, f))
      .filter((f) => statSync(f).size >= 8192),
  );
}

async function overwriteFirstPage(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  await handle.write(randomBytes(8192), 0, 8192, 0);
  await handle.close();
}

function serve(dataDir: string) {
  return execa(
    process.execPath,
    ['--import', join(ROOT, 'test/helpers/ts-register.mjs'), join(ROOT, 'src/cli/main.ts'), 'serve'],
    {
      cwd: ROOT,
      env: {
        TFGATE_DATA_DIR: dataDir,
        TFGATE_PORT: '0',
        TFGATE_HOST: '127.0.0.1',
        TFGATE_DRIFT_INTERVAL: '0',
      },
      reject: false,
      timeout: 60_000,
    },
  );
}

describe('tfgate serve on a damaged data dir', () => {
  it.each([
    ['pg_control truncated to nothing', (p: string) => truncateSync(join(p, 'global', 'pg_control'), 0)],
    [
      'the write-ahead log truncated',
      (p: string) => {
        for (const f of readdirSync(join(p, 'pg_wal')).filter((n) => /^[0-9A-F]{24}$/.test(n)))
          truncateSync(join(p, 'pg_wal', f), 0);
      },
    ],
    [
      "the tables' first pages overwritten",
      async (p: string) => {
        const files = tableFiles(p);
        expect(files.length).toBeGreaterThan(3);
        for (const file of files) await overwriteFirstPage(file);
      },
    ],
    ['the database directory removed', (p: string) => rmSync(join(p, 'base'), { recursive: true })],
    ['PG_VERSION garbled', (p: string) => writeFileSync(join(p, 'PG_VERSION'), 'garbage\n')],
  ])('%s: exit 1 naming the directory and how to recover', { timeout: 90_000 }, async (name, damage) => {
    const dataDir = await damagedCopy(name.replace(/\W+/g, '-'), damage);
    const result = await serve(dataDir);
    expect(result.exitCode, result.stderr).toBe(1);
    const pgdata = join(dataDir, 'pgdata');
    expect(result.stderr).toMatch(
      new RegExp(`^error: the embedded store in ${pgdata.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged`),
    );
    expect(result.stderr).toContain(`restore ${pgdata} from a backup`);
    expect(result.stderr).toContain(`mv ${pgdata} ${pgdata}.damaged`);
    expect(result.stderr).toContain('loses every package');
    expect(result.stderr).not.toMatch(/internal error|Aborted\(\)|this is a bug/);
    // The lock was released: moving the store aside and starting again works, as the hint says.
    expect(readdirSync(dataDir)).not.toContain('serve.lock');
  });

  it('moved aside as the hint says, starts empty and keeps the signing key', {
    timeout: 90_000,
  }, async () => {
    const dataDir = await damagedCopy('moved-aside', (p) => truncateSync(join(p, 'global', 'pg_control'), 0));
    const before = (await execa('cat', [join(dataDir, 'signing-key.pem')])).stdout;
    cpSync(join(dataDir, 'pgdata'), join(dataDir, 'pgdata.damaged'), { recursive: true });
    rmSync(join(dataDir, 'pgdata'), { recursive: true });
    const svc = await startService({ dataDir, apiKey, process: true });
    try {
      expect((await api(svc, 'GET', `${CONFORMANCE}/packages/kept`)).status).toBe(404);
      expect((await execa('cat', [join(dataDir, 'signing-key.pem')])).stdout).toBe(before);
    } finally {
      await svc.stop();
    }
  });

  it('the undamaged original still opens with everything in it', { timeout: 90_000 }, async () => {
    const svc = await startService({ dataDir: original, apiKey, process: true });
    try {
      expect((await api(svc, 'GET', `${CONFORMANCE}/packages/kept`)).status).toBe(200);
    } finally {
      await svc.stop();
    }
  });
});

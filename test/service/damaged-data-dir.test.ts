// A damaged data directory is found when `tfgate serve` opens it, and the error names the directory and the
// way out. Issue 8, defect 7: it said only "internal error: Aborted()". Each case damages a copy of a data
// dir that a real `tfgate serve` created and filled, the way a full disk, a bad restore or a stray tool does.
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
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

/** A fresh copy of the filled data dir, damaged by `damage(dbFile)` (the embedded store's one SQLite file). */
function damagedCopy(name: string, damage: (dbFile: string) => void | Promise<void>) {
  const dir = join(root, name);
  cpSync(original, dir, { recursive: true });
  return Promise.resolve(damage(join(dir, 'store', 'tfgate.db'))).then(() => dir);
}

const PAGE = 4096;

/** Overwrites pages `from` to the end with random bytes (page 1 holds the header and the schema). */
async function overwritePages(file: string, from: number): Promise<void> {
  const pages = Math.floor(statSync(file).size / PAGE);
  expect(pages).toBeGreaterThan(from + 3);
  const handle = await open(file, 'r+');
  for (let page = from; page < pages; page++) await handle.write(randomBytes(PAGE), 0, PAGE, page * PAGE);
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
    ['the header overwritten', (f: string) => writeFileSync(f, randomBytes(100), { flag: 'r+' })],
    ['truncated to its first page', (f: string) => truncateSync(f, PAGE)],
    ["the tables' pages overwritten", (f: string) => overwritePages(f, 1)],
    [
      'a directory in place of the file',
      (f: string) => {
        rmSync(f);
        mkdirSync(f);
      },
    ],
  ])('%s: exit 1 naming the directory and how to recover', { timeout: 90_000 }, async (name, damage) => {
    const dataDir = await damagedCopy(name.replace(/\W+/g, '-'), damage);
    const result = await serve(dataDir);
    expect(result.exitCode, result.stderr).toBe(1);
    const store = join(dataDir, 'store');
    expect(result.stderr).toMatch(
      new RegExp(`^error: the embedded store in ${store.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged`),
    );
    expect(result.stderr).toContain(`restore ${store} from a backup`);
    expect(result.stderr).toContain(`mv ${store} ${store}.damaged`);
    expect(result.stderr).toContain('loses every package');
    expect(result.stderr).not.toMatch(/internal error|Aborted\(\)|this is a bug/);
    // The lock was released: moving the store aside and starting again works, as the hint says.
    expect(readdirSync(dataDir)).not.toContain('serve.lock');
  });

  it('moved aside as the hint says, starts empty and keeps the signing key', {
    timeout: 90_000,
  }, async () => {
    const dataDir = await damagedCopy('moved-aside', (f) => truncateSync(f, PAGE));
    const before = (await execa('cat', [join(dataDir, 'signing-key.pem')])).stdout;
    renameSync(join(dataDir, 'store'), join(dataDir, 'store.damaged'));
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

  it('a data dir of the old PGlite store (development builds only) gets a plain error saying what to do', async () => {
    const dataDir = join(root, 'old-pglite');
    mkdirSync(join(dataDir, 'pgdata'), { recursive: true });
    writeFileSync(join(dataDir, 'pgdata', 'PG_VERSION'), '17\n');
    const result = await serve(dataDir);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^error: the data dir .* holds a store in the old format/);
    expect(result.stderr).toContain(`mv ${join(dataDir, 'pgdata')} ${join(dataDir, 'pgdata')}.old`);
    expect(result.stderr).not.toMatch(/internal error|this is a bug/);
    // Nothing was created beside it, and the lock was released.
    expect(readdirSync(dataDir).sort()).toEqual(['pgdata']);
  });
});

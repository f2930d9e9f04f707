// `tfgate serve` telling the operator what it is doing: the first start says it prepares the store, a store
// with no API key says at once how to create the first one, a bad bootstrap key is a plain usage error, and
// --help has one line per setting. Real child processes on a fresh embedded store.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServeConfig, SERVE_SETTINGS } from '../../src/service/config.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', join(ROOT, 'test/helpers/ts-register.mjs'), join(ROOT, 'src/cli/main.ts')];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-serve-start-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Start serve, collect stderr until it logs "listening" on stdout, then stop it. */
async function startAndStop(dataDir: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, TFGATE_BOOTSTRAP_API_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  // What stderr held when the first stdout line came: notices must come before (or without) the service.
  let stderrBeforeListening: string | undefined;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not listen in 90 s\n${stderr}`)), 90_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('"listening"')) {
        stderrBeforeListening ??= stderr;
        clearTimeout(timer);
        done();
      }
    });
    void exited.then((code) => fail(new Error(`serve exited ${code}\n${stderr}`)));
  });
  child.kill('SIGTERM');
  await exited;
  return { stderr, stderrBeforeListening: stderrBeforeListening ?? '' };
}

describe('tfgate serve start-up notices', () => {
  it('a first start with no bootstrap key says it prepares the store and how to create the first key, on stderr; a second start still warns', async () => {
    const dataDir = join(dir, 'no-key');
    const first = await startAndStop(dataDir);
    expect(first.stderrBeforeListening).toContain(`preparing a new store in ${dataDir}`);
    expect(first.stderrBeforeListening).toContain('the store has no API key yet');
    expect(first.stderrBeforeListening).toContain('TFGATE_BOOTSTRAP_API_KEY');
    // Said once, not once per check.
    expect(first.stderr.split('no API key yet').length - 1).toBe(1);
    // Node 22 prints an ExperimentalWarning when node:sqlite loads; it must not reach the operator's log.
    expect(first.stderr).not.toMatch(/ExperimentalWarning|experimental feature/);
    const second = await startAndStop(dataDir);
    expect(second.stderr).not.toContain('preparing a new store');
    expect(second.stderrBeforeListening).toContain('the store has no API key yet');
  }, 240_000);

  it('a bootstrap key creates the first key: no warning, then or afterwards', async () => {
    const dataDir = join(dir, 'with-key');
    const first = await startAndStop(dataDir, {
      TFGATE_BOOTSTRAP_API_KEY: 'a-bootstrap-key-of-32-characters',
    });
    expect(first.stderr).toContain('preparing a new store');
    expect(first.stderr).not.toContain('no API key');
    const second = await startAndStop(dataDir);
    expect(second.stderr).not.toContain('no API key');
  }, 240_000);

  it('a too-short bootstrap key is a plain usage error (exit 1), never "internal error" with the schema JSON', async () => {
    const res = await execa(
      process.execPath,
      [...CLI, 'serve', '--port', '0', '--data-dir', join(dir, 'short')],
      {
        cwd: ROOT,
        env: { TFGATE_BOOTSTRAP_API_KEY: 'short' },
        reject: false,
      },
    );
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain('TFGATE_BOOTSTRAP_API_KEY: must be at least 16 characters');
    expect(res.stderr).not.toMatch(/internal error|"code"|too_small/);
    // The library's resolver says the same, as a usage error.
    expect(() => resolveServeConfig({}, { TFGATE_BOOTSTRAP_API_KEY: 'short' })).toThrow(
      /^TFGATE_BOOTSTRAP_API_KEY: must be at least 16 characters/,
    );
  });

  it('--help has one line per setting naming its flag and its environment variable', async () => {
    const res = await execa(process.execPath, [...CLI, 'serve', '--help'], { cwd: ROOT, reject: false });
    expect(res.exitCode).toBe(0);
    const lines = res.stdout.split('\n');
    for (const setting of SERVE_SETTINGS) {
      const line = lines.find((l) => l.trimStart().startsWith(setting.flag) && l.includes(setting.env));
      expect(line, setting.flag).toBeDefined();
    }
  });
});

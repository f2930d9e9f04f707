// Issue 8, defects 2 and 3: hostile bundles through every command that opens one, run as the built CLI in a
// child process, so that a reader that loops forever or runs out of memory fails this test instead of hanging
// or crashing it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleBundle } from '../../src/policy/bundle/build.js';
import { readTarGz } from '../../src/policy/bundle/tar.js';
import { buildCli, CLI_MAIN, REPO_ROOT } from '../helpers/cli.js';
import { runBundlePull } from '../helpers/commands.js';
import { startService, type TestService } from '../helpers/service.js';
import { generateTestKeys, STAND_IN_DATA, standInPolicy } from '../policy/bundle-fixtures.js';
import { negativePaxSizeBundle, streamedTarGz, zerosDataJson } from '../policy/tar-craft.js';
import { driftedPackage } from './gate-fixtures.js';

/** A hang guard, not a speed check: a bounded refusal takes well under a second. */
const DEADLINE_MS = 20_000;

/** Enough for the CLI and a bounded verification; the old verifier needed gigabytes for defect 3. */
const SMALL_HEAP = { NODE_OPTIONS: '--max-old-space-size=64' };

async function cli(args: string[], env: Record<string, string> = {}) {
  const result = await execa('node', [CLI_MAIN, ...args], {
    cwd: REPO_ROOT,
    env: { NO_COLOR: '1', PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    extendEnv: false,
    input: '',
    reject: false,
    timeout: DEADLINE_MS,
  });
  expect(result.timedOut, `tfgate ${args.join(' ')} did not finish within ${DEADLINE_MS} ms`).toBe(false);
  return result;
}

let dir: string;
let hostilePath: string;
let publicKeyPath: string;
let planPath: string;
let svc: TestService;
let genuine: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-hostile-'));
  hostilePath = join(dir, 'hostile.tar.gz');
  publicKeyPath = join(dir, 'public.pem');
  planPath = join(dir, 'plan.json');
  const keys = generateTestKeys();
  genuine = assembleBundle(
    { packageId: 'payments', data: STAND_IN_DATA, policy: await standInPolicy() },
    { signingKeyPem: keys.privatePem },
  );
  await Promise.all([
    writeFile(hostilePath, negativePaxSizeBundle()),
    writeFile(publicKeyPath, keys.publicPem),
    writeFile(planPath, JSON.stringify({ format_version: '1.2', resource_changes: [] })),
    buildCli(),
  ]);
  svc = await startService();
  await driftedPackage(svc, 'hostile-pull');
});

afterAll(async () => {
  await svc?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('a tar whose pax header has a negative size (issue 8, defect 2)', () => {
  it('bundle verify refuses it (exit 4), naming the bad size', async () => {
    const result = await cli(['bundle', 'verify', hostilePath, '--public-key', publicKeyPath]);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain('pax header at byte 0 has size "-1536", which is not a byte count');
  });

  it('check --bundle --advisory reaches no decision, says so, and exits 0', async () => {
    const result = await cli([
      'check',
      '--bundle',
      hostilePath,
      '--public-key',
      publicKeyPath,
      '--plan-json',
      planPath,
      '--advisory',
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('ADVISORY MODE: no decision could be reached');
    expect(result.stderr).toContain('"-1536"');
  });

  it('bundle pull does not trust it when it is found in the cache, and downloads the bundle again', async () => {
    const cache = join(dir, 'cache');
    const env = { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: svc.apiKey };
    const first = await runBundlePull({ packageId: 'hostile-pull', dir: cache, client: {} }, { env });
    const good = await readFile(first.bundlePath);
    await writeFile(first.bundlePath, negativePaxSizeBundle());
    const result = await cli(['bundle', 'pull', '--package', 'hostile-pull', '--dir', cache], env);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^pulled: package hostile-pull/);
    expect(result.stderr).toContain(
      'tfgate: warning: not trusted from the cache: the cached bundle does not verify (bundle',
    );
    expect(result.stdout).not.toContain('not trusted');
    expect(await readFile(first.bundlePath)).toEqual(good);
  });
});

describe('a signed bundle whose data.json is swapped for a huge array of zeros (issue 8, defect 3)', () => {
  /** The genuine bundle, .signatures.json included, with data.json replaced, streamed so the test stays small. */
  async function withZeros(bytes: number): Promise<string> {
    const path = join(dir, `zeros-${bytes}.tar.gz`);
    const files = readTarGz(genuine).map((e) =>
      e.name === 'data.json'
        ? { name: e.name, ...zerosDataJson(bytes) }
        : { name: e.name, size: e.data.length, chunks: [e.data] },
    );
    await writeFile(path, await streamedTarGz(files));
    return path;
  }

  it.each([
    ['120 MiB (240 KB packed)', 120 * 1024 * 1024, 'bundle expands past 33554432 bytes when decompressed'],
    ['just under the 8 MiB limit for JSON files', 8 * 1024 * 1024 - 64, 'data.json: digest mismatch (signed'],
    [
      'just over it',
      8 * 1024 * 1024 + 64,
      'data.json is 8388672 bytes; the limit for this file is 8388608 bytes',
    ],
  ])('%s: refused (exit 4) within a 64 MB heap', async (_what, bytes, message) => {
    const result = await cli(
      ['bundle', 'verify', await withZeros(bytes), '--public-key', publicKeyPath],
      SMALL_HEAP,
    );
    expect(result.stderr).toContain(message);
    expect(result.exitCode).toBe(4);
  });
});

describe('a bundle or key path that never ends', () => {
  it.each([
    [
      'the bundle',
      ['/dev/zero', '--public-key', 'KEY'],
      'the bundle /dev/zero is larger than 16777216 bytes',
    ],
    [
      'the key',
      ['BUNDLE', '--public-key', '/dev/zero'],
      'the public key /dev/zero is larger than 1048576 bytes',
    ],
  ])('%s: read up to its limit, then refused (exit 4)', async (_what, args, message) => {
    const paths = args.map((a) => (a === 'KEY' ? publicKeyPath : a === 'BUNDLE' ? hostilePath : a));
    const result = await cli(['bundle', 'verify', ...paths], SMALL_HEAP);
    expect(result.stderr).toContain(message);
    expect(result.exitCode).toBe(4);
  });
});

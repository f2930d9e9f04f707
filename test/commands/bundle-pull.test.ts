// `tfgate bundle pull` against the real service: download, verify, cache by ETag, then decide offline.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { chmod, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseBundlePullOptions as resolveBundlePullOptions } from '../../src/cli/normalise/bundle.js';
import { describeBundlePull, describeCacheNotes } from '../../src/commands/bundle-pull.js';
import { isTfgateError } from '../../src/errors/index.js';
import { type Loopback, startLoopback } from '../client/loopback.js';
import { runBundlePull, runCheck } from '../helpers/commands.js';
import {
  createAccountKey,
  createApprovedPackage,
  startService,
  type TestService,
  tfgateAgainst,
} from '../helpers/service.js';
import { driftedPackage } from './gate-fixtures.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
  await driftedPackage(svc, 'pull-demo');
});
afterAll(async () => {
  await svc?.stop();
});

const env = () => ({ TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: svc.apiKey });
const pull = (packageId: string, dir: string) =>
  runBundlePull({ packageId, dir, client: {} }, { env: env() });

/** A plan that creates one terraform_data (kind generic_data). */
async function creationPlan(dir: string): Promise<string> {
  const path = join(dir, 'plan.json');
  await writeFile(
    path,
    JSON.stringify({
      format_version: '1.2',
      terraform_version: '1.11.4',
      resource_changes: [
        {
          address: 'terraform_data.new',
          mode: 'managed',
          type: 'terraform_data',
          name: 'new',
          provider_name: 'terraform.io/builtin/terraform',
          change: { actions: ['create'], before: null, after: {} },
        },
      ],
    }),
  );
  return path;
}

/** `tfgate check` offline with a bundle and key: its exit code (0 pass, 3 blocked). */
async function checkOffline(packageId: string, planPath: string, bundle: string, publicKey: string) {
  const outcome = await runCheck(
    {
      plan: { kind: 'plan-json', path: planPath },
      route: { kind: 'bundle', bundle, publicKey, packageId },
    },
    { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, color: false },
  );
  return outcome.exitCode;
}

describe('tfgate bundle pull', () => {
  it('downloads the bundle and key, verifies them, caches by ETag, and reuses the cache on 304', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-'));
    const first = await runBundlePull({ packageId: 'pull-demo', dir, client: {} }, { env: env() });
    expect(first.fromCache).toBe(false);
    expect(first.bundlePath).toBe(join(dir, 'pull-demo', 'bundle.tar.gz'));
    expect(first.etag).toBeTruthy();
    expect(await readFile(first.publicKeyPath, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const meta = JSON.parse(await readFile(join(dir, 'pull-demo', 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ package_id: 'pull-demo', etag: first.etag, revision: first.revision });
    expect(describeBundlePull(first)).toContain(
      `--bundle ${first.bundlePath} --public-key ${first.publicKeyPath}`,
    );

    const second = await runBundlePull({ packageId: 'pull-demo', dir, client: {} }, { env: env() });
    expect(second.fromCache).toBe(true);
    expect(second.etag).toBe(first.etag);
    // Written whole: no temporary files left beside the cache.
    expect((await readdir(join(dir, 'pull-demo'))).sort()).toEqual([
      'bundle.tar.gz',
      'meta.json',
      'public-key.pem',
    ]);
  });

  it('replaces a tampered cache instead of trusting it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-'));
    const first = await runBundlePull({ packageId: 'pull-demo', dir, client: {} }, { env: env() });
    const good = await readFile(first.bundlePath);
    const bad = Buffer.from(good);
    bad[bad.length - 20] = (bad[bad.length - 20] ?? 0) ^ 0xff;
    await writeFile(first.bundlePath, bad);
    const again = await runBundlePull({ packageId: 'pull-demo', dir, client: {} }, { env: env() });
    expect(again.fromCache).toBe(false);
    expect(await readFile(again.bundlePath)).toEqual(good);
  });

  it('decides offline with the pulled bundle: no service call at decision time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-'));
    const pulled = await runBundlePull({ packageId: 'pull-demo', dir, client: {} }, { env: env() });
    const planPath = await creationPlan(dir);
    let stdout = '';
    const outcome = await runCheck(
      {
        plan: { kind: 'plan-json', path: planPath },
        route: {
          kind: 'bundle',
          bundle: pulled.bundlePath,
          publicKey: pulled.publicKeyPath,
          packageId: 'pull-demo',
        },
      },
      // No TFGATE_BASE_URL or key: the check cannot call the service.
      {
        stdout: { write: (s: string) => (stdout += s) },
        stderr: { write: () => true },
        env: {},
        color: false,
      },
    );
    expect(outcome.exitCode).toBe(3);
    expect(stdout).toMatch(/^FAIL: 1 failure,/);
    expect(stdout).toContain('terraform_data.new');
  });

  it('validates its options', () => {
    expect(() => resolveBundlePullOptions({}, {})).toThrow(/--package/);
    expect(resolveBundlePullOptions({ package: 'p' }, { TFGATE_BUNDLE_DIR: '/x' })).toMatchObject({
      dir: '/x',
    });
  });
});

describe("another account's bundle of a package with the same id", () => {
  it('is refused with --account (or TFGATE_ACCOUNT), and names its account when pulled', async () => {
    // One platform key signs every account's bundles. Account "acme" makes its own "twin" that
    // sanctions everything; "globex"'s "twin" sanctions nothing. Without --account, acme's bundle
    // passes in globex's pipeline: the signature and the package id are both genuine.
    const design = (kinds: string) =>
      `package_id: twin\nname: Twin\nsanctioned_kinds: [${kinds}]\ncapabilities: []\ncatalog:\n  terraform_data: generic_data\n`;
    const acme = await createAccountKey(svc, 'acme', 'enterprise');
    const globex = await createAccountKey(svc, 'globex', 'enterprise');
    await createApprovedPackage(svc, design('generic_data'), { key: acme.key });
    await createApprovedPackage(svc, design(''), { key: globex.key });
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-acct-'));
    const pullAs = (key: string, sub: string) =>
      runBundlePull(
        { packageId: 'twin', dir: join(dir, sub), client: {} },
        { env: { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: key } },
      );
    const acmeBundle = await pullAs(acme.key, 'acme');
    const globexBundle = await pullAs(globex.key, 'globex');
    expect(acmeBundle.account).toBe('acme');
    expect(describeBundlePull(globexBundle)).toContain('pulled: package twin of account globex,');
    expect(describeBundlePull(globexBundle)).toContain('--package twin --account globex --plan-file');
    const planPath = await creationPlan(dir);
    const tfgate = tfgateAgainst({ baseUrl: 'http://127.0.0.1:9', apiKey: 'unused' });
    const run = (bundle: string, extra: string[], env: Record<string, string> = {}) =>
      tfgate(
        [
          'check',
          '--plan-json',
          planPath,
          '--bundle',
          bundle,
          '--public-key',
          acmeBundle.publicKeyPath,
          '--package',
          'twin',
          ...extra,
        ],
        env,
      ).catch((e: { exitCode: number; stderr: string; stdout: string }) => e);
    // The hole: acme's bundle passes globex's creation.
    expect((await run(acmeBundle.bundlePath, [])).exitCode).toBe(0);
    const refused = await run(acmeBundle.bundlePath, ['--account', 'globex']);
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toContain('bundle is for account "acme", not "globex"');
    expect((await run(acmeBundle.bundlePath, [], { TFGATE_ACCOUNT: 'globex' })).exitCode).toBe(4);
    // Globex's own bundle decides: the creation is not sanctioned.
    expect((await run(globexBundle.bundlePath, ['--account', 'globex'])).exitCode).toBe(3);
    // --account belongs to the bundle route: with the service route it is a usage error.
    const misplaced = await tfgate([
      'check',
      '--plan-json',
      planPath,
      '--package',
      'twin',
      '--account',
      'x',
    ]).catch((e: { exitCode: number; stderr: string }) => e);
    expect(misplaced.exitCode).toBe(1);
    expect(misplaced.stderr).toContain('--account applies to --bundle only');
  });
});

describe('the bundle cache cannot be rolled back or tampered with (issue 8, defect 4)', () => {
  const design = (sanctioned: string) => `package_id: rollback-demo
name: Rollback
sanctioned_kinds: [${sanctioned}]
capabilities: []
catalog:
  terraform_data: generic_data
`;

  it('an older signed bundle put back under the current ETag is not used: it is downloaded again, and check blocks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-'));
    const planPath = await creationPlan(dir);
    // Revision 1 of the design sanctions generic_data; revision 2, approved later, does not.
    await createApprovedPackage(svc, design('generic_data'));
    const first = await pull('rollback-demo', dir);
    const older = await readFile(first.bundlePath);
    await createApprovedPackage(svc, design(''));
    const current = await pull('rollback-demo', dir);
    expect(current.revision).not.toBe(first.revision);
    const currentBytes = await readFile(current.bundlePath);

    // The attacker: the older, validly signed bundle back in the cache; meta.json keeps the current ETag.
    await writeFile(current.bundlePath, older);
    const olderCopy = join(dir, 'older.tar.gz');
    await writeFile(olderCopy, older);
    expect(await checkOffline('rollback-demo', planPath, olderCopy, current.publicKeyPath)).toBe(0);

    const again = await pull('rollback-demo', dir);
    expect(again.fromCache).toBe(false);
    expect(again.revision).toBe(current.revision);
    expect(await readFile(again.bundlePath)).toEqual(currentBytes);
    expect(again.cacheNotes).toEqual([
      `the cached bundle is revision ${first.revision}, but the service confirmed revision ${current.revision} as current (an older bundle was put back in the cache?): downloaded again`,
    ]);
    expect(describeCacheNotes(again)).toContain('not trusted from the cache: the cached bundle is revision');
    expect(describeBundlePull(again)).not.toContain('not trusted');
    expect(await checkOffline('rollback-demo', planPath, again.bundlePath, again.publicKeyPath)).toBe(3);
  });

  it('writes the cache owner-only: the directory 0700, every file 0600, and tightens a cache it finds open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-'));
    const pulled = await pull('pull-demo', dir);
    const pkgDir = join(dir, 'pull-demo');
    expect((await stat(pkgDir)).mode & 0o777).toBe(0o700);
    for (const name of await readdir(pkgDir))
      expect((await stat(join(pkgDir, name))).mode & 0o777).toBe(0o600);

    // Writable by others: anyone could have put anything there, so nothing is reused.
    await chmod(pkgDir, 0o777);
    const again = await pull('pull-demo', dir);
    expect(again.fromCache).toBe(false);
    expect(again.cacheNotes[0]).toBe(
      `the cache directory ${pkgDir} is not a private directory (mode 777): nothing in it was trusted`,
    );
    expect((await stat(pkgDir)).mode & 0o777).toBe(0o700);
    expect(await readFile(again.bundlePath)).toEqual(await readFile(pulled.bundlePath));
  });

  it('says what it did not trust: damaged metadata, an altered key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-'));
    const pulled = await pull('pull-demo', dir);
    const key = await readFile(pulled.publicKeyPath, 'utf8');
    await writeFile(join(dir, 'pull-demo', 'meta.json'), '{"package_id": "pull-demo", "etag": 42}');
    await writeFile(
      pulled.publicKeyPath,
      generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }),
    );
    const again = await pull('pull-demo', dir);
    expect(again.fromCache).toBe(false);
    expect(again.cacheNotes).toEqual([
      `${join(dir, 'pull-demo', 'meta.json')} is damaged or not for package pull-demo: not trusted`,
      `${pulled.publicKeyPath} differed from the service's public key (rotated, or altered): replaced`,
    ]);
    expect(await readFile(again.publicKeyPath, 'utf8')).toBe(key);
    const third = await pull('pull-demo', dir);
    expect(third).toMatchObject({ fromCache: true, cacheNotes: [] });

    // A cached bundle larger than any bundle can be is not even read.
    await truncate(third.bundlePath, 20 * 1024 * 1024);
    const fourth = await pull('pull-demo', dir);
    expect(fourth.cacheNotes).toEqual([
      `${third.bundlePath} is 20971520 bytes, more than a cache file of its kind can be: not trusted`,
    ]);
    expect(fourth.fromCache).toBe(false);
  });
});

describe('tfgate bundle pull against a service whose ETag is not the revision', () => {
  let fake: Loopback | undefined;
  afterAll(async () => {
    await fake?.close();
  });

  it('fault fake: keeps no ETag it cannot check a 304 against, so every pull downloads again', async () => {
    // The real bundle and key, but an ETag that does not name the revision: the real service never does this.
    const real = await pull('pull-demo', mkdtempSync(join(tmpdir(), 'tfgate-pull-')));
    const [bundle, key] = await Promise.all([readFile(real.bundlePath), readFile(real.publicKeyPath)]);
    fake = await startLoopback((req, res) => {
      if (req.url?.endsWith('/public-key')) {
        res.writeHead(200, { 'content-type': 'application/x-pem-file' });
        res.end(key);
      } else if (req.headers['if-none-match'] === '"r1"') {
        res.writeHead(304, { etag: '"r1"' });
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/gzip', etag: '"r1"' });
        res.end(bundle);
      }
    });
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-'));
    const options = { packageId: 'pull-demo', dir, client: {} };
    const fakeEnv = { env: { TFGATE_BASE_URL: fake.baseUrl, TFGATE_API_KEY: 'k-123456' } };
    const first = await runBundlePull(options, fakeEnv);
    expect(first.etag).toBeUndefined();
    expect(first.cacheNotes).toEqual([
      `the service's ETag "r1" does not name the bundle's signed revision ${real.revision}; it is not kept, so the next pull downloads the bundle again`,
    ]);
    expect(JSON.parse(await readFile(join(dir, 'pull-demo', 'meta.json'), 'utf8'))).not.toHaveProperty(
      'etag',
    );
    expect((await runBundlePull(options, fakeEnv)).fromCache).toBe(false);
  });
});

describe('tfgate bundle pull refuses what it cannot verify', () => {
  let fake: Loopback | undefined;
  afterAll(async () => {
    await fake?.close();
  });

  it('fault fake: a bundle that the served key did not sign fails closed (exit 4) and nothing is cached', async () => {
    // The real bundle, served beside a public key that did not sign it: the service cannot be made to do this.
    const real = await runBundlePull(
      { packageId: 'pull-demo', dir: mkdtempSync(join(tmpdir(), 'tfgate-pull-')), client: {} },
      { env: env() },
    );
    const bundle = await readFile(real.bundlePath);
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    fake = await startLoopback((req, res) => {
      if (req.url?.endsWith('/public-key')) {
        res.writeHead(200, { 'content-type': 'application/x-pem-file' });
        res.end(otherKey);
      } else {
        res.writeHead(200, { 'content-type': 'application/gzip', etag: '"r1"' });
        res.end(bundle);
      }
    });
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-'));
    const error = await runBundlePull(
      { packageId: 'pull-demo', dir, client: {} },
      { env: { TFGATE_BASE_URL: fake.baseUrl, TFGATE_API_KEY: 'k-123456' } },
    ).catch((e: unknown) => e);
    expect(isTfgateError(error) && error.exitCode).toBe(4);
    expect(existsSync(join(dir, 'pull-demo', 'bundle.tar.gz'))).toBe(false);
  });
});

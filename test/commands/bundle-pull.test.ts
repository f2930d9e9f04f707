// `tfgate bundle pull` against the real service: download, verify, cache by ETag, then decide offline.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeBundlePull,
  resolveBundlePullOptions,
  runBundlePull,
} from '../../src/commands/bundle-pull.js';
import { runCheck } from '../../src/commands/check.js';
import { isTfgateError } from '../../src/errors/index.js';
import { type Loopback, startLoopback } from '../client/loopback.js';
import { startService, type TestService } from '../helpers/service.js';
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
    const planPath = join(dir, 'plan.json');
    await writeFile(
      planPath,
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
    expect(stdout).toMatch(/^FAIL: 1 failures/);
    expect(stdout).toContain('terraform_data.new');
  });

  it('validates its options', () => {
    expect(() => resolveBundlePullOptions({}, {})).toThrow(/--package/);
    expect(resolveBundlePullOptions({ package: 'p' }, { TFGATE_BUNDLE_DIR: '/x' })).toMatchObject({
      dir: '/x',
    });
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

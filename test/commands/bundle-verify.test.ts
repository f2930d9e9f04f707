// `tfgate bundle verify` through the built CLI: what it verified, or why it refused (exit 4).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleBundle } from '../../src/policy/bundle/build.js';
import { buildCli, REPO_ROOT, runCli } from '../helpers/cli.js';
import { generateTestKeys, rewriteBundle, STAND_IN_DATA, standInPolicy } from '../policy/bundle-fixtures.js';

let dir: string;
let bundle: Buffer;
let bundlePath: string;
let publicKeyPath: string;

async function write(name: string, bytes: Buffer | string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-bundle-verify-'));
  const keys = generateTestKeys();
  bundle = assembleBundle(
    { packageId: 'payments', data: STAND_IN_DATA, policy: await standInPolicy() },
    { signingKeyPem: keys.privatePem, keyId: 'platform-2024' },
  );
  [bundlePath, publicKeyPath] = await Promise.all([
    write('bundle.tar.gz', bundle),
    write('public.pem', keys.publicPem),
    buildCli(),
  ]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tfgate bundle verify', () => {
  it('prints the package, revision, key id, scope and every file it verified', async () => {
    const result = await runCli(['bundle', 'verify', bundlePath, '--public-key', publicKeyPath]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`verified ${bundlePath}`);
    expect(result.stdout).toMatch(/package\s+payments/);
    expect(result.stdout).toMatch(/revision\s+[0-9a-f]{20}/);
    expect(result.stdout).toMatch(/key id\s+platform-2024/);
    expect(result.stdout).toMatch(/scope\s+payments/);
    for (const name of ['.manifest', 'data.json', 'policy.wasm', 'tfgate/conformance.rego']) {
      expect(result.stdout).toMatch(new RegExp(`[0-9a-f]{64}  ${name.replace('.', '\\.')} `));
    }
  });

  it('accepts --package when it matches, and refuses another package', async () => {
    expect(
      (await runCli(['bundle', 'verify', bundlePath, '--public-key', publicKeyPath, '--package', 'payments']))
        .exitCode,
    ).toBe(0);
    const other = await runCli([
      'bundle',
      'verify',
      bundlePath,
      '--public-key',
      publicKeyPath,
      '--package',
      'ledger',
    ]);
    expect(other.exitCode).toBe(4);
    expect(other.stderr).toContain('ledger');
  });

  it('a bundle, key, design or signing key that does not exist is a usage error (exit 1) in every command, with a hint', async () => {
    const none = join(dir, 'none');
    const runs = [
      [
        ['bundle', 'verify', `${none}.tar.gz`, '--public-key', publicKeyPath],
        `the bundle file ${none}.tar.gz`,
      ],
      [['bundle', 'verify', bundlePath, '--public-key', `${none}.pem`], `--public-key ${none}.pem`],
      [
        ['check', '--plan-json', `${none}.json`, '--bundle', bundlePath, '--public-key', publicKeyPath],
        `--plan-json ${none}.json`,
      ],
      [
        [
          'bundle',
          'build',
          '--design',
          `${none}.yaml`,
          '--signing-key',
          publicKeyPath,
          '--output',
          `${none}.out`,
        ],
        `--design ${none}.yaml`,
      ],
    ] as const;
    for (const [args, named] of runs) {
      const result = await runCli([...args]);
      expect(result.exitCode, result.stderr).toBe(1);
      expect(result.stderr).toContain(`error: ${named} does not exist`);
      expect(result.stderr).toMatch(/^hint: /m);
    }
  });

  it('a key file named by the environment is named by its variable when it does not exist, not by the flag', async () => {
    const none = join(dir, 'none');
    // A plan map entry's bundle is verified with the command line's key (routeDefaults).
    const map = join(dir, 'plans.yaml');
    const plan = join(REPO_ROOT, 'test', 'fixtures', 'plans', 'no-change.json');
    await writeFile(map, `plans:\n  - plan_json: ${plan}\n    bundle: ${bundlePath}\n`);
    const runs = [
      [['check', '--plan-map', map], { TFGATE_PUBLIC_KEY: `${none}.pem` }, `TFGATE_PUBLIC_KEY=${none}.pem`],
      [
        ['bundle', 'verify', bundlePath],
        { TFGATE_PUBLIC_KEY: `${none}.pem` },
        `TFGATE_PUBLIC_KEY=${none}.pem`,
      ],
      [
        ['check', '--plan-json', plan, '--bundle', bundlePath],
        { TFGATE_PUBLIC_KEY: `${none}.pem` },
        `TFGATE_PUBLIC_KEY=${none}.pem`,
      ],
      [
        ['plan', '--bundle', bundlePath, '--chdir', dir],
        { TFGATE_PUBLIC_KEY: `${none}.pem` },
        `TFGATE_PUBLIC_KEY=${none}.pem`,
      ],
      [
        ['bundle', 'build', '--design', bundlePath, '--output', `${none}.out`],
        { TFGATE_SIGNING_KEY: `${none}.key` },
        `TFGATE_SIGNING_KEY=${none}.key`,
      ],
      [
        ['bundle', 'verify', bundlePath, '--public-key', `${none}.pem`],
        { TFGATE_PUBLIC_KEY: publicKeyPath },
        `--public-key ${none}.pem`,
      ],
    ] as const;
    for (const [args, env, named] of runs) {
      const result = await runCli([...args], { env });
      expect(result.exitCode, result.stderr).toBe(1);
      expect(result.stderr).toContain(`error: ${named} does not exist`);
    }
  });

  it('refuses a tampered file, naming it', async () => {
    const tampered = await write(
      'tampered.tar.gz',
      rewriteBundle(bundle, (entries) =>
        entries.map((e) =>
          e.name === '.manifest'
            ? { ...e, data: Buffer.from(e.data.toString().replace('payments', 'ledger')) }
            : e,
        ),
      ),
    );
    const result = await runCli(['bundle', 'verify', tampered, '--public-key', publicKeyPath]);
    expect(result.exitCode).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('.manifest: digest mismatch');
  });

  it('refuses the wrong key and a wrong --scope, saying which', async () => {
    const otherKey = await write('other.pem', generateTestKeys().publicPem);
    const wrongKey = await runCli(['bundle', 'verify', bundlePath, '--public-key', otherKey]);
    expect(wrongKey.exitCode).toBe(4);
    expect(wrongKey.stderr).toContain('does not verify');
    const wrongScope = await runCli([
      'bundle',
      'verify',
      bundlePath,
      '--public-key',
      publicKeyPath,
      '--scope',
      'prod',
    ]);
    expect(wrongScope.exitCode).toBe(4);
    expect(wrongScope.stderr).toContain('scope mismatch');
  });

  it('refuses an unsigned bundle, and with the INSECURE opt-in says loudly that nothing was verified', async () => {
    const unsigned = await write(
      'unsigned.tar.gz',
      rewriteBundle(bundle, (entries) => entries.filter((e) => e.name !== '.signatures.json')),
    );
    const refused = await runCli(['bundle', 'verify', unsigned, '--public-key', publicKeyPath]);
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toContain('no .signatures.json');
    const allowed = await runCli(['bundle', 'verify', unsigned, '--allow-unsigned-bundle-INSECURE']);
    expect(allowed.exitCode).toBe(0);
    expect(allowed.stdout).toContain('NOT verified');
    expect(allowed.stderr).toContain('INSECURE');
  });

  it('needs a public key (usage error, exit 1)', async () => {
    const result = await runCli(['bundle', 'verify', bundlePath]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('--public-key');
  });
});

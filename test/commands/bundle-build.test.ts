// `tfgate bundle build` through the built CLI: a signed bundle from a design and the shipped policy,
// written whole, deterministic, and verified by `tfgate bundle verify` and by the real opa.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTarGz } from '../../src/policy/bundle/tar.js';
import { scenario } from '../fixtures/corpus.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { generateTestKeys } from '../policy/bundle-fixtures.js';

const cloud = scenario('cloud-creations');
let dir: string;
let signingKeyPath: string;
let publicKeyPath: string;

function build(output: string, ...extra: string[]) {
  return runCli([
    'bundle',
    'build',
    '--design',
    cloud.designPath,
    '--signing-key',
    signingKeyPath,
    '--output',
    output,
    ...extra,
  ]);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-bundle-build-'));
  const keys = generateTestKeys();
  signingKeyPath = join(dir, 'signing.pem');
  publicKeyPath = join(dir, 'public.pem');
  await Promise.all([
    writeFile(signingKeyPath, keys.privatePem, { mode: 0o600 }),
    writeFile(publicKeyPath, keys.publicPem),
    buildCli(),
  ]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tfgate bundle build', () => {
  it('writes a signed bundle with the design data, the non-test Rego and policy.wasm', async () => {
    const output = join(dir, 'bundle.tar.gz');
    const result = await build(output);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/package corpus-cloud, revision [0-9a-f]{20}/);
    const names = readTarGz(await readFile(output)).map((e) => e.name);
    expect(names).toContain('.manifest');
    expect(names).toContain('.signatures.json');
    expect(names).toContain('data.json');
    expect(names).toContain('policy.wasm');
    expect(names.some((n) => /^tfgate\/[^/]+\.rego$/.test(n))).toBe(true);
    expect(names.filter((n) => n.endsWith('_test.rego'))).toEqual([]);
    const data = JSON.parse(
      readTarGz(await readFile(output))
        .find((e) => e.name === 'data.json')!
        .data.toString(),
    );
    expect(data.tfgate.package_id).toBe('corpus-cloud');
  });

  it('is deterministic: the same design, policy and key give the same bytes', async () => {
    const [a, b] = [join(dir, 'a.tar.gz'), join(dir, 'b.tar.gz')];
    expect((await build(a)).exitCode).toBe(0);
    expect((await build(b)).exitCode).toBe(0);
    expect((await readFile(a)).equals(await readFile(b))).toBe(true);
  });

  it('is verified by tfgate bundle verify and by opa build --verification-key --scope <package>', async () => {
    const output = join(dir, 'verified.tar.gz');
    expect((await build(output, '--key-id', 'platform-1')).exitCode).toBe(0);
    const ours = await runCli([
      'bundle',
      'verify',
      output,
      '--public-key',
      publicKeyPath,
      '--package',
      'corpus-cloud',
    ]);
    expect(ours.exitCode).toBe(0);
    expect(ours.stdout).toMatch(/key id\s+platform-1/);
    const opa = await execa(
      'opa',
      [
        'build',
        '-b',
        output,
        '--verification-key',
        publicKeyPath,
        '--scope',
        'corpus-cloud',
        '-o',
        join(dir, 'opa.tar.gz'),
      ],
      { reject: false, all: true },
    );
    expect(opa.all).toBe('');
    expect(opa.exitCode).toBe(0);
  });

  it('takes the signing key from TFGATE_SIGNING_KEY', async () => {
    const output = join(dir, 'env.tar.gz');
    const result = await runCli(['bundle', 'build', '--design', cloud.designPath, '--output', output], {
      env: { TFGATE_SIGNING_KEY: signingKeyPath },
    });
    expect(result.exitCode).toBe(0);
    expect(existsSync(output)).toBe(true);
  });

  it('refuses a missing or non-PEM signing key, and writes nothing', async () => {
    const output = join(dir, 'never.tar.gz');
    const missing = await build(output.replace('never', 'never1'), '--signing-key', join(dir, 'nope.pem'));
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('nope.pem');
    const notPem = await runCli([
      'bundle',
      'build',
      '--design',
      cloud.designPath,
      '--signing-key',
      cloud.designPath,
      '--output',
      output,
    ]);
    expect(notPem.exitCode).toBe(1);
    expect(notPem.stderr).toContain('not a PEM private key');
    expect((await readdir(dir)).filter((n) => n.includes('never'))).toEqual([]);
  });

  it('leaves no partial file when the output directory does not exist', async () => {
    const result = await build(join(dir, 'missing-dir', 'bundle.tar.gz'));
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('missing-dir');
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

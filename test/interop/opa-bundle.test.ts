// The real opa reads our bundles: it verifies the signature and digests, and evaluates the Rego.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleBundle, type PolicySources } from '../../src/policy/bundle/build.js';
import { verifyBundle } from '../../src/policy/bundle/verify.js';
import {
  entry,
  extractBundle,
  generateTestKeys,
  rewriteBundle,
  STAND_IN_DATA,
  standInPolicy,
  type TestKeys,
} from '../policy/bundle-fixtures.js';

let dir: string;
let keys: TestKeys;
let policy: PolicySources;
let bundlePath: string;
let publicKeyPath: string;
let bundle: Buffer;

async function opaBuild(path: string, ...extra: string[]) {
  return execa(
    'opa',
    ['build', '-b', path, '--verification-key', publicKeyPath, ...extra, '-o', join(dir, 'opa-out.tar.gz')],
    // opa prints its errors on stdout or stderr depending on the command: read both.
    { reject: false, all: true },
  );
}

async function writeBundle(name: string, bytes: Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-interop-'));
  keys = generateTestKeys();
  policy = await standInPolicy();
  // With an account in .manifest metadata, as the service builds every bundle: opa must still take it.
  bundle = assembleBundle(
    { packageId: 'payments', account: 'default', data: STAND_IN_DATA, policy },
    { signingKeyPem: keys.privatePem },
  );
  bundlePath = await writeBundle('bundle.tar.gz', bundle);
  publicKeyPath = join(dir, 'public.pem');
  await writeFile(publicKeyPath, keys.publicPem);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('opa build --verification-key', () => {
  it('accepts our signed bundle with the package id as scope', async () => {
    const result = await opaBuild(bundlePath, '--scope', 'payments');
    expect(result.all).toBe('');
    expect(result.exitCode).toBe(0);
  });

  it('refuses it without the scope (the signature carries scope = package id)', async () => {
    const result = await opaBuild(bundlePath);
    expect(result.exitCode).not.toBe(0);
    expect(result.all).toContain('scope mismatch');
  });

  it('refuses a tampered bundle, naming the file', async () => {
    const tampered = rewriteBundle(bundle, (entries) =>
      entries.map((e) =>
        e.name === 'tfgate/conformance.rego' ? { ...e, data: Buffer.from(`${e.data}\nextra := 1\n`) } : e,
      ),
    );
    const result = await opaBuild(await writeBundle('tampered.tar.gz', tampered), '--scope', 'payments');
    expect(result.exitCode).not.toBe(0);
    expect(result.all).toContain('tfgate/conformance.rego: digest mismatch');
  });

  it('refuses tampered data', async () => {
    const tampered = rewriteBundle(bundle, (entries) =>
      entries.map((e) =>
        e.name === 'data.json'
          ? {
              ...e,
              data: Buffer.from(JSON.stringify({ tfgate: { ...STAND_IN_DATA, sanctioned_kinds: ['*'] } })),
            }
          : e,
      ),
    );
    const result = await opaBuild(await writeBundle('tampered-data.tar.gz', tampered), '--scope', 'payments');
    expect(result.exitCode).not.toBe(0);
    expect(result.all).toContain('data.json: digest mismatch');
  });

  it('refuses a bundle signed with another key', async () => {
    const other = generateTestKeys();
    const foreign = assembleBundle(
      { packageId: 'payments', data: STAND_IN_DATA, policy },
      { signingKeyPem: other.privatePem },
    );
    const result = await opaBuild(await writeBundle('foreign.tar.gz', foreign), '--scope', 'payments');
    expect(result.exitCode).not.toBe(0);
    expect(result.all).toMatch(/verification error/i);
  });

  it('refuses, as tfgate does, a signature with one base64url character appended (a 3072-bit key: 512 characters)', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 3072 });
    const signed = assembleBundle(
      { packageId: 'payments', data: STAND_IN_DATA, policy },
      { signingKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
    );
    const stray = rewriteBundle(signed, (entries) =>
      entries.map((e) => {
        if (e.name !== '.signatures.json') return e;
        const token = (JSON.parse(e.data.toString()) as { signatures: string[] }).signatures[0]!;
        return { ...e, data: Buffer.from(JSON.stringify({ signatures: [`${token}A`] })) };
      }),
    );
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const keyPath = join(dir, 'public-3072.pem');
    await writeFile(keyPath, publicPem);
    const path = await writeBundle('stray.tar.gz', stray);
    const result = await execa(
      'opa',
      [
        'build',
        '-b',
        path,
        '--verification-key',
        keyPath,
        '--scope',
        'payments',
        '-o',
        join(dir, 'stray-out.tar.gz'),
      ],
      { reject: false, all: true },
    );
    expect(result.exitCode).not.toBe(0);
    await expect(verifyBundle(stray, { publicKeyPem: publicPem })).rejects.toMatchObject({
      code: 'signature_malformed',
    });
    // Without the stray character both accept it: the refusal is the encoding's.
    await expect(verifyBundle(signed, { publicKeyPem: publicPem })).resolves.toMatchObject({ signed: true });
  });

  it('hashes structured files exactly as opa does, for awkward JSON (unicode, escapes, nesting)', async () => {
    const awkward = {
      ...STAND_IN_DATA,
      catalog: {
        ...STAND_IN_DATA.catalog,
        'z\u2028line': 'sep\u2029',
        'é<&>': 'tab\there "quoted" \\ back',
        '\u{1F600}emoji': 'ctl\u0001\u001f\b\f',
        '\uE000private': 'x',
        nested: { b: [1, { d: null, c: true }], a: 'k' },
      },
    };
    const signed = assembleBundle(
      { packageId: 'payments', data: awkward as unknown as Record<string, unknown>, policy },
      { signingKeyPem: keys.privatePem },
    );
    const result = await opaBuild(await writeBundle('awkward.tar.gz', signed), '--scope', 'payments');
    expect(result.all).toBe('');
    expect(result.exitCode).toBe(0);
  });
});

describe('opa sign', () => {
  it('computes the same file digests as we do', async () => {
    const bundleDir = join(dir, 'extracted');
    await extractBundle(bundle, bundleDir, (name) => name === '.signatures.json');
    const privatePath = join(dir, 'private.pem');
    await writeFile(privatePath, keys.privatePem);
    // Run inside the bundle directory: opa sign names files relative to the path it is given.
    await execa('opa', ['sign', '--signing-key', privatePath, '--bundle', '.'], { cwd: bundleDir });
    const theirs = JSON.parse(await readFile(join(bundleDir, '.signatures.json'), 'utf8')) as {
      signatures: string[];
    };
    const ours = JSON.parse(entry(bundle, '.signatures.json').toString()) as { signatures: string[] };
    const files = (token: string) =>
      (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { files: unknown[] }).files;
    const sortByName = (list: unknown[]) =>
      [...(list as Array<{ name: string }>)].sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(sortByName(files(ours.signatures[0]!))).toEqual(sortByName(files(theirs.signatures[0]!)));
  });
});

describe('opa eval -b', () => {
  it('loads our bundle (policy.wasm as an undeclared plain file) and evaluates the plan entrypoint', async () => {
    const inputPath = join(dir, 'plan.json');
    await writeFile(
      inputPath,
      JSON.stringify({
        resource_changes: [
          { address: 'aws_s3_bucket.logs', type: 'aws_s3_bucket', change: { actions: ['create'] } },
          { address: 'aws_sqs_queue.jobs', type: 'aws_sqs_queue', change: { actions: ['create'] } },
        ],
      }),
    );
    const result = await execa('opa', [
      'eval',
      '-b',
      bundlePath,
      '-i',
      inputPath,
      '--format',
      'json',
      'data.tfgate.conformance.plan',
    ]);
    const value = JSON.parse(result.stdout).result[0].expressions[0].value;
    expect(value).toEqual({
      findings: [{ rule: 'unsanctioned_creation', address: 'aws_s3_bucket.logs', kind: 'object_storage' }],
      counts: { resource_changes: 2 },
    });
  });
});

// Loading the aspect before synth: a signed bundle from disk, or the package's bundle from the real service
// on loopback; refused when the bundle is altered, signed by another key, or the service says no.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as cdktf from 'cdktf';
import { Construct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { applyConformance, ConformanceAspect } from '../../src/cdktf/index.js';
import { buildBundle } from '../../src/policy/bundle/index.js';
import { readTarGz } from '../../src/policy/bundle/tar.js';
import { writeTarGz } from '../../src/policy/bundle/tar-write.js';
import {
  createAccountKey,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { cloudResource, readStackJson, TEST_DESIGN, type TempDir, tempDir } from './helpers.js';

function keyPair() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/** An app whose only finding is an unsanctioned queue: synth must fail when the policy is loaded. */
function synthWithQueue(aspect: ConformanceAspect, outdir: string): void {
  const app = new cdktf.App({ outdir });
  const stack = new cdktf.TerraformStack(app, 'main');
  new cdktf.LocalBackend(stack, { path: 'terraform.tfstate' });
  new (cloudResource(cdktf, 'aws_sqs_queue'))(new Construct(stack, 'audit'), 'queue');
  applyConformance(app, aspect);
  app.synth();
}

let work: TempDir;
let bundlePath: string;
let publicKeyPath: string;
let otherPublicKeyPath: string;

beforeAll(async () => {
  work = tempDir('loading');
  const platform = keyPair();
  bundlePath = join(work.dir, 'bundle.tar.gz');
  publicKeyPath = join(work.dir, 'platform.pem');
  otherPublicKeyPath = join(work.dir, 'other.pem');
  writeFileSync(bundlePath, await buildBundle({ design: TEST_DESIGN, signingKeyPem: platform.privateKey }));
  writeFileSync(publicKeyPath, platform.publicKey);
  writeFileSync(otherPublicKeyPath, keyPair().publicKey);
});
afterAll(() => work?.cleanup());

describe('ConformanceAspect.fromBundle', () => {
  it('verifies the bundle with the public key (file or PEM text) and enforces its design', async () => {
    const aspect = await ConformanceAspect.fromBundle(bundlePath, { publicKey: publicKeyPath });
    expect(aspect).toMatchObject({ packageId: 'cdktf-test', signed: true, advisory: false });
    expect(aspect.policy).toMatch(/^bundle .*bundle\.tar\.gz \(revision \S+, key \S+\)$/);
    expect(() => synthWithQueue(aspect, join(work.dir, 'out-file'))).toThrow(
      /\[main\/audit\/queue\] \[tfgate\] unsanctioned_creation \(high\)/,
    );

    const pem = readFileSync(publicKeyPath, 'utf8');
    const fromText = await ConformanceAspect.fromBundle(bundlePath, { publicKey: pem, advisory: true });
    synthWithQueue(fromText, join(work.dir, 'out-text'));
    const record = readStackJson(join(work.dir, 'out-text'), 'main')['//']?.tfgate?.['cdktf-test'];
    expect(record).toMatchObject({ signed: true, mode: 'advisory' });
    expect(record?.policy).toBe(fromText.policy);
  });

  it('refuses a bundle signed by another key', async () => {
    await expect(
      ConformanceAspect.fromBundle(bundlePath, { publicKey: otherPublicKeyPath }),
    ).rejects.toMatchObject({
      name: 'BundleVerificationError',
      exitCode: 4,
    });
  });

  it('refuses a bundle whose design was widened after signing', async () => {
    const entries = readTarGz(readFileSync(bundlePath));
    const data = entries.find((e) => e.name === 'data.json')!;
    const json = JSON.parse(data.data.toString('utf8')) as { tfgate: { sanctioned_kinds: string[] } };
    json.tfgate.sanctioned_kinds.push('queue');
    data.data = Buffer.from(JSON.stringify(json));
    const tampered = join(work.dir, 'tampered.tar.gz');
    writeFileSync(tampered, writeTarGz(entries));
    await expect(ConformanceAspect.fromBundle(tampered, { publicKey: publicKeyPath })).rejects.toThrow(
      /data\.json: digest mismatch/,
    );
  });

  it('uses an unsigned bundle only with allowUnsigned, and records it as unsigned', async () => {
    const unsigned = join(work.dir, 'unsigned.tar.gz');
    writeFileSync(
      unsigned,
      writeTarGz(readTarGz(readFileSync(bundlePath)).filter((e) => e.name !== '.signatures.json')),
    );
    await expect(ConformanceAspect.fromBundle(unsigned, { publicKey: publicKeyPath })).rejects.toMatchObject({
      code: 'bundle_unsigned',
    });
    const aspect = await ConformanceAspect.fromBundle(unsigned, { allowUnsigned: true, advisory: true });
    expect(aspect.signed).toBe(false);
    expect(aspect.policy).toContain('UNSIGNED');
    synthWithQueue(aspect, join(work.dir, 'out-unsigned'));
    expect(readStackJson(join(work.dir, 'out-unsigned'), 'main')['//']?.tfgate?.['cdktf-test']?.signed).toBe(
      false,
    );
  });

  it('requires the public key, names an unreadable bundle, and rejects unknown options', async () => {
    await expect(ConformanceAspect.fromBundle(bundlePath)).rejects.toMatchObject({
      code: 'public_key_required',
    });
    // An unreadable bundle or key is no decision (exit 4), as in the CLI; a bad option is a usage error.
    await expect(
      ConformanceAspect.fromBundle(join(work.dir, 'nope.tar.gz'), { publicKey: publicKeyPath }),
    ).rejects.toMatchObject({
      code: 'bundle_unreadable',
      exitCode: 4,
      message: expect.stringMatching(/cannot read the bundle .*nope\.tar\.gz/),
    });
    await expect(
      ConformanceAspect.fromBundle(bundlePath, { publicKey: join(work.dir, 'nope.pem') }),
    ).rejects.toMatchObject({ code: 'public_key_unreadable', exitCode: 4 });
    await expect(
      ConformanceAspect.fromBundle(bundlePath, { publicKey: publicKeyPath, minSeverity: 'severe' as 'high' }),
    ).rejects.toThrow(/ConformanceAspect\.fromBundle: minSeverity/);
    await expect(
      ConformanceAspect.fromBundle(bundlePath, { publicKey: publicKeyPath, minSeverity: 'severe' as 'high' }),
    ).rejects.toMatchObject({ code: 'invalid_option', exitCode: 1 });
    await expect(ConformanceAspect.fromDesign(TEST_DESIGN, { unknown: true } as never)).rejects.toMatchObject(
      { code: 'invalid_option', message: expect.stringContaining('fromDesign') },
    );
  });

  it("words option errors plainly, never in the schema library's words, and says which option a typo meant", async () => {
    const message = async (promise: Promise<unknown>) =>
      (
        (await promise.then(
          () => undefined,
          (error: unknown) => error,
        )) as Error
      ).message;
    expect(await message(ConformanceAspect.fromDesign(TEST_DESIGN, { minSeverity: 'High' as 'high' }))).toBe(
      'ConformanceAspect.fromDesign: minSeverity: must be one of: low, medium, high, critical',
    );
    expect(
      await message(ConformanceAspect.fromDesign(TEST_DESIGN, { advisory: 'false' as unknown as boolean })),
    ).toBe('ConformanceAspect.fromDesign: advisory: must be a boolean');
    expect(await message(ConformanceAspect.fromBundle(bundlePath, { publicKey: '' }))).toBe(
      'ConformanceAspect.fromBundle: publicKey: must not be empty',
    );
    expect(
      await message(ConformanceAspect.fromBundle(bundlePath, { publickey: publicKeyPath } as never)),
    ).toMatch(
      /^ConformanceAspect\.fromBundle: unknown option "publickey" \(did you mean "publicKey"\?\); the options are /,
    );
  });

  it('fromDesign validates a design object as it does a design file', async () => {
    await expect(
      ConformanceAspect.fromDesign({ ...TEST_DESIGN, sanctioned_kinds: ['queuez'] } as typeof TEST_DESIGN),
    ).rejects.toMatchObject({
      code: 'invalid_design',
      message: expect.stringMatching(
        /^ConformanceAspect\.fromDesign: the design object: sanctioned_kinds\[0\]: unknown kind "queuez" \(did you mean "queue"\?\)/,
      ),
    });
    await expect(
      ConformanceAspect.fromDesign({ package_id: 'p' } as unknown as typeof TEST_DESIGN),
    ).rejects.toMatchObject({ code: 'invalid_design', message: expect.stringContaining('sanctioned_kinds') });
  });

  it('refuses a bundle for another package when packageId is given', async () => {
    await expect(
      ConformanceAspect.fromBundle(bundlePath, { publicKey: publicKeyPath, packageId: 'payments' }),
    ).rejects.toMatchObject({ name: 'BundleVerificationError', message: expect.stringMatching(/payments/) });
  });
});

describe('ConformanceAspect.fromService against the real service on loopback', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService();
    await createApprovedPackage(service, TEST_DESIGN);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('downloads the bundle and the public key, verifies them, and enforces the design', async () => {
    const aspect = await ConformanceAspect.fromService({
      packageId: 'cdktf-test',
      baseUrl: service.baseUrl,
      apiKey: service.apiKey,
    });
    expect(aspect.signed).toBe(true);
    expect(aspect.policy).toContain(`service ${service.baseUrl} package cdktf-test (revision `);
    expect(aspect.policy).not.toContain(service.apiKey);
    expect(() => synthWithQueue(aspect, join(work.dir, 'out-service'))).toThrow(
      /unsanctioned_creation \(high\)/,
    );
  });

  it('takes the key from TFGATE_API_KEY and the URL from TFGATE_BASE_URL', async () => {
    const saved = { key: process.env.TFGATE_API_KEY, url: process.env.TFGATE_BASE_URL };
    process.env.TFGATE_API_KEY = service.apiKey;
    process.env.TFGATE_BASE_URL = service.baseUrl;
    try {
      const aspect = await ConformanceAspect.fromService({ packageId: 'cdktf-test' });
      expect(aspect.packageId).toBe('cdktf-test');
    } finally {
      for (const [name, value] of [
        ['TFGATE_API_KEY', saved.key],
        ['TFGATE_BASE_URL', saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('refuses the download when a pinned public key does not match the service signature', async () => {
    await expect(
      ConformanceAspect.fromService({
        packageId: 'cdktf-test',
        baseUrl: service.baseUrl,
        apiKey: service.apiKey,
        publicKey: otherPublicKeyPath,
      }),
    ).rejects.toMatchObject({ name: 'BundleVerificationError' });
  });

  it('explains an unknown package, a bad key and a key on a plan below large', async () => {
    const base = { baseUrl: service.baseUrl, apiKey: service.apiKey };
    await expect(ConformanceAspect.fromService({ ...base, packageId: 'no-such-package' })).rejects.toThrow(
      /package "no-such-package" was not found/,
    );
    await expect(
      ConformanceAspect.fromService({ ...base, packageId: 'cdktf-test', apiKey: 'tfg_wrong_key' }),
    ).rejects.toThrow(/did not accept the API key \(HTTP 401\)/);
    const { key: teamKey } = await createAccountKey(service, 'small-team', 'team', ['compliance:read']);
    await expect(
      ConformanceAspect.fromService({ ...base, packageId: 'cdktf-test', apiKey: teamKey }),
    ).rejects.toThrow(/needs the large plan or above/);
  });

  it('fails closed when the service is unreachable', async () => {
    process.env.TFGATE_RETRIES = '0';
    onTestFinished(() => {
      delete process.env.TFGATE_RETRIES;
    });
    await expect(
      ConformanceAspect.fromService({
        packageId: 'cdktf-test',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: service.apiKey,
      }),
    ).rejects.toMatchObject({ exitCode: 4 });
  });
});

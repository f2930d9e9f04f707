// `tfgate check` through the built CLI when it must not decide: usage errors (exit 1) and fail-closed
// refusals (exit 4). A stand-in policy is enough here: every refusal happens before the policy runs.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleBundle } from '../../src/policy/bundle/build.js';
import { BAD_INPUTS, scenario } from '../fixtures/corpus.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { generateTestKeys, rewriteBundle, STAND_IN_DATA, standInPolicy } from '../policy/bundle-fixtures.js';

const planPath = scenario('cloud-creations').planPath;
let dir: string;
let bundle: Buffer;
let bundlePath: string;
let publicKeyPath: string;
let otherPublicKeyPath: string;

function checkWith(bundleFile: string, keyFile: string, plan = planPath, ...extra: string[]) {
  return runCli(['check', '--plan-json', plan, '--bundle', bundleFile, '--public-key', keyFile, ...extra]);
}

async function writeVariant(name: string, bytes: Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-check-errors-'));
  const keys = generateTestKeys();
  bundle = assembleBundle(
    { packageId: 'payments', data: STAND_IN_DATA, policy: await standInPolicy() },
    { signingKeyPem: keys.privatePem },
  );
  bundlePath = await writeVariant('bundle.tar.gz', bundle);
  publicKeyPath = join(dir, 'public.pem');
  otherPublicKeyPath = join(dir, 'other.pem');
  await Promise.all([
    writeFile(publicKeyPath, keys.publicPem),
    writeFile(otherPublicKeyPath, generateTestKeys().publicPem),
    buildCli(),
  ]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tfgate check fails closed (exit 4, nothing on stdout) on', () => {
  it.each([
    ['not JSON', BAD_INPUTS.notJson],
    ['truncated JSON', BAD_INPUTS.truncated],
    ['an empty file', BAD_INPUTS.empty],
    ['an unknown action', BAD_INPUTS.unknownAction],
    ['a state instead of a plan', BAD_INPUTS.stateNotPlan],
  ])('a plan that is %s', async (_what, path) => {
    const result = await checkWith(bundlePath, publicKeyPath, path);
    expect(result.exitCode).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: /);
  });

  it('a plan file that does not exist is a usage error (exit 1), naming the flag and the file', async () => {
    const result = await checkWith(bundlePath, publicKeyPath, join(dir, 'nope.json'));
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`--plan-json ${join(dir, 'nope.json')} does not exist`);
    expect(result.stderr).toMatch(/hint: check the path/);
  });

  it('a tampered bundle, naming the file', async () => {
    const tampered = await writeVariant(
      'tampered.tar.gz',
      rewriteBundle(bundle, (entries) =>
        entries.map((e) =>
          e.name === 'policy.wasm' ? { ...e, data: Buffer.concat([e.data, Buffer.from([0])]) } : e,
        ),
      ),
    );
    const result = await checkWith(tampered, publicKeyPath);
    expect(result.exitCode).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('policy.wasm: digest mismatch');
  });

  it('a bundle signed with another key', async () => {
    const result = await checkWith(bundlePath, otherPublicKeyPath);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain('does not verify');
  });

  it('a bundle for another package (--package)', async () => {
    const result = await checkWith(bundlePath, publicKeyPath, planPath, '--package', 'ledger');
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain('ledger');
  });

  it('an unsigned bundle without the explicit opt-in', async () => {
    const unsigned = await writeVariant(
      'unsigned.tar.gz',
      rewriteBundle(bundle, (entries) => entries.filter((e) => e.name !== '.signatures.json')),
    );
    const result = await checkWith(unsigned, publicKeyPath);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain('unsigned');
  });

  it('a bundle or a public key that does not exist is a usage error (exit 1), with a hint', async () => {
    const noBundle = await checkWith(join(dir, 'none.tar.gz'), publicKeyPath);
    expect(noBundle.exitCode).toBe(1);
    expect(noBundle.stderr).toContain(`--bundle ${join(dir, 'none.tar.gz')} does not exist`);
    expect(noBundle.stderr).toContain('tfgate bundle pull');
    const noKey = await checkWith(bundlePath, join(dir, 'none.pem'));
    expect(noKey.exitCode).toBe(1);
    expect(noKey.stderr).toContain(`--public-key ${join(dir, 'none.pem')} does not exist`);
  });

  it('a public key that is not a PEM public key, named by its path', async () => {
    const result = await checkWith(bundlePath, planPath);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain(`error: ${planPath}: the public key is not a PEM public key`);
  });

  it('the bundle and the key swapped: the refusal names the file that is not a bundle', async () => {
    const result = await checkWith(publicKeyPath, bundlePath);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain(`error: ${publicKeyPath}: bundle is not a gzip tarball`);
  });

  it("writes each report file as no decision when it refuses: an earlier run's report never stays", async () => {
    const reports = await mkdtemp(join(dir, 'reports-'));
    const files = { junit: 'report.xml', json: 'report.json', sarif: 'report.sarif', markdown: 'report.md' };
    const flags = Object.entries(files).flatMap(([format, name]) => [
      '--report',
      `${format}=${join(reports, name)}`,
    ]);
    const read = (name: string) => readFile(join(reports, name), 'utf8');
    // An earlier run's passing reports, then a run whose plan cannot be read (exit 4).
    for (const name of Object.values(files)) await writeFile(join(reports, name), 'PASS (an earlier run)\n');
    const refused = await checkWith(bundlePath, publicKeyPath, BAD_INPUTS.notJson, ...flags);
    expect(refused.exitCode).toBe(4);
    expect(refused.stdout).toBe('');
    const reason = refused.stderr.replace(/^error: /, '').split('\n')[0] ?? '';
    // No --package: which package the bundle is for is not known without a decision.
    expect(JSON.parse(await read('report.json'))).toEqual({
      decision: 'no_decision',
      min_severity: 'low',
      error: { code: 'invalid_plan', message: reason, hint: expect.any(String) },
    });
    expect(await read('report.xml')).toContain('errors="1"');
    expect(await read('report.xml')).toContain(`<error message="no decision: `);
    expect(JSON.parse(await read('report.sarif')).runs[0].invocations[0].executionSuccessful).toBe(false);
    expect(await read('report.md')).toMatch(/^### ❌ tfgate plan evaluation: no decision\n/);
    // The same for a bundle that does not verify; whole files, no temporary one left.
    const unverified = await checkWith(bundlePath, otherPublicKeyPath, planPath, ...flags);
    expect(unverified.exitCode).toBe(4);
    expect(JSON.parse(await read('report.json')).error.message).toMatch(/does not verify/);
    expect((await readdir(reports)).sort()).toEqual(Object.values(files).sort());
  });
});

describe('tfgate check usage errors (exit 1)', () => {
  it.each([
    ['no plan input', ['--bundle', 'b.tar.gz', '--public-key', 'k.pem'], /--plan-json/],
    ['no route', ['--plan-json', 'plan.json'], /--bundle/],
    ['no public key', ['--plan-json', 'plan.json', '--bundle', 'b.tar.gz'], /--public-key/],
    [
      'a bad severity',
      ['--plan-json', 'p', '--bundle', 'b', '--public-key', 'k', '--min-severity', 'severe'],
      /--min-severity/,
    ],
    ['a bad format', ['--plan-json', 'p', '--bundle', 'b', '--public-key', 'k', '--format', 'yaml'], /yaml/],
    [
      'two reports on stdout',
      ['--plan-json', 'p', '--bundle', 'b', '--public-key', 'k', '--format', 'text', '--format', 'json'],
      /stdout/,
    ],
    [
      'more --output than --format',
      ['--plan-json', 'p', '--bundle', 'b', '--public-key', 'k', '--output', 'a', '--output', 'b'],
      /--output/,
    ],
    ['an unknown flag', ['--plan-json', 'p', '--frobnicate'], /unknown option/],
  ])('%s', async (_what, args, message) => {
    const result = await runCli(['check', ...args]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });
});

describe('tfgate check --advisory: no decision exits 0, said loudly; usage errors still fail', () => {
  it('a plan that is not JSON: exit 0 with an ADVISORY MODE line that carries the error', async () => {
    const strict = await checkWith(bundlePath, publicKeyPath, BAD_INPUTS.notJson);
    expect(strict.exitCode).toBe(4);
    const reason = strict.stderr.replace(/^error: /, '').split('\n')[0] ?? '';
    const result = await checkWith(bundlePath, publicKeyPath, BAD_INPUTS.notJson, '--advisory');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^ADVISORY MODE: no decision could be reached \(/m);
    expect(result.stderr).toContain(reason);
  });

  it('a bundle signed with another key (TFGATE_ADVISORY=true): exit 0, naming the failure', async () => {
    const result = await runCli(
      ['check', '--plan-json', planPath, '--bundle', bundlePath, '--public-key', otherPublicKeyPath],
      { env: { TFGATE_ADVISORY: 'true' } },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/^ADVISORY MODE: no decision could be reached \(.*does not verify/m);
  });

  it('the report file says the run went on without a decision', async () => {
    const out = join(dir, 'advisory.txt');
    const result = await checkWith(
      bundlePath,
      publicKeyPath,
      BAD_INPUTS.notJson,
      '--advisory',
      '--report',
      `text=${out}`,
    );
    expect(result.exitCode).toBe(0);
    expect(await readFile(out, 'utf8')).toMatch(
      /^ADVISORY: no decision \(.*\); not enforced because --advisory was given\n/,
    );
  });

  it('a usage error is still exit 1', async () => {
    const result = await runCli(['check', '--plan-json', planPath, '--advisory']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).not.toContain('ADVISORY MODE');
  });
});

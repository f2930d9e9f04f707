// Across the whole corpus: a bundle built from each scenario's design with the real policy is accepted by
// `opa build --verification-key`, and `opa eval -b` on the full plan gives the same findings and counts
// as tfgate's in-process evaluation of the same verified bundle.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDesign } from '../../src/design/index.js';
import { bufferSource } from '../../src/plan/index.js';
import { buildBundle } from '../../src/policy/bundle/build.js';
import { BundleEvaluator } from '../../src/policy/bundle/evaluator.js';
import { verifyBundle } from '../../src/policy/bundle/verify.js';
import { findingId } from '../../src/policy/finding-id.js';
import { loadCorpus } from '../fixtures/corpus.js';
import { generateTestKeys, type TestKeys } from '../policy/bundle-fixtures.js';

const corpus = loadCorpus();
let dir: string;
let keys: TestKeys;
let publicKeyPath: string;

/** opa's findings with the id tfgate derives for them (findingId is TypeScript, not Rego). */
function withIds(packageId: string, findings: ReadonlyArray<Record<string, unknown>>) {
  return findings.map((f) => ({ ...f, id: findingId(packageId, String(f.rule), String(f.address)) }));
}

function sorted(findings: ReadonlyArray<Record<string, unknown>>) {
  return [...findings].sort((a, b) => `${a.address} ${a.rule}`.localeCompare(`${b.address} ${b.rule}`));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-opa-corpus-'));
  keys = generateTestKeys();
  publicKeyPath = join(dir, 'public.pem');
  await writeFile(publicKeyPath, keys.publicPem);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the real opa and tfgate agree on every corpus plan', () => {
  it('has a corpus to check', () => {
    expect(corpus.length).toBeGreaterThan(5);
  });

  it.each(corpus.map((s) => [s.name, s] as const))('%s', async (name, scenario) => {
    const design = await loadDesign(scenario.designPath);
    const bytes = await buildBundle({ design, signingKeyPem: keys.privatePem });
    const bundlePath = join(dir, `${name}.tar.gz`);
    await writeFile(bundlePath, bytes);

    const verified = await opaBuild(bundlePath, design.package_id);
    expect(verified.all).toBe('');
    expect(verified.exitCode).toBe(0);

    const opa = await execa('opa', [
      'eval',
      '--format',
      'json',
      '-b',
      bundlePath,
      '-i',
      scenario.planPath,
      'data.tfgate.conformance.plan',
    ]);
    const opaPlan = JSON.parse(opa.stdout).result[0].expressions[0].value as {
      findings: Array<Record<string, unknown>>;
      counts: Record<string, number>;
    };

    const evaluator = new BundleEvaluator(
      await verifyBundle(bytes, { publicKeyPem: keys.publicPem }),
      `bundle ${name}`,
    );
    const ours = await evaluator.evaluate(bufferSource(await readFile(scenario.planPath)), 'low');

    expect(ours.counts).toEqual(scenario.expected.counts);
    expect(opaPlan.counts).toEqual(ours.counts);
    expect(ours.findings.length).toBe(scenario.expected.findings.length);
    expect(sorted(withIds(design.package_id, opaPlan.findings))).toEqual(
      sorted(ours.findings as unknown as Array<Record<string, unknown>>),
    );
  });
});

function opaBuild(bundlePath: string, scope: string) {
  return execa(
    'opa',
    [
      'build',
      '-b',
      bundlePath,
      '--verification-key',
      publicKeyPath,
      '--scope',
      scope,
      '-o',
      join(dir, 'opa-out.tar.gz'),
    ],
    { reject: false, all: true },
  );
}

// The real opa and tfgate decide alike on a signed bundle that carries plan acknowledgements, at fixed
// times (input.now): before an expiry, at it (expiry is inclusive), after it, in both RFC 3339 forms the
// policy accepts, and at two thresholds. A bundle whose acknowledgements have all expired still verifies
// (opa build --verification-key) and its findings block again. The policy reads no clock.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDesign } from '../../src/design/index.js';
import type { PlanAcknowledgement, Severity } from '../../src/model/index.js';
import { fileSource } from '../../src/plan/index.js';
import { assembleBundle, loadPolicySources } from '../../src/policy/bundle/build.js';
import { BundleEvaluator } from '../../src/policy/bundle/evaluator.js';
import { compilePolicyData, findingId, withPlanAcknowledgements } from '../../src/policy/index.js';
import { generateTestKeys, type TestKeys } from '../policy/bundle-fixtures.js';
import { PAYMENTS_DESIGN, PLAN_BLOCKED } from '../service/fixtures.js';

const EXPIRY = '2026-11-25T02:00:00.000Z';
const by = { by: 'platform-key', account: 'default', at: '2026-11-01T09:00:00.000Z' };
const ACKS: PlanAcknowledgement[] = [
  {
    finding_id: findingId('payments', 'capability_dependency_destroyed', 'aws_db_instance.ledger'),
    rule: 'capability_dependency_destroyed',
    address: 'aws_db_instance.ledger',
    reason: 'ledger moves to the new cluster, OPS-7',
    expires_at: EXPIRY,
    ...by,
  },
  {
    finding_id: findingId('payments', 'unsanctioned_creation', 'aws_sqs_queue.extra'),
    rule: 'unsanctioned_creation',
    address: 'aws_sqs_queue.extra',
    reason: 'queue kept for the migration',
    ...by,
  },
];

let dir: string;
let keys: TestKeys;
let publicKeyPath: string;
let planPath: string;

async function writeBundle(name: string, acks: PlanAcknowledgement[]): Promise<string> {
  const design = parseDesign(PAYMENTS_DESIGN, 'design.yaml');
  const bytes = assembleBundle(
    {
      packageId: 'payments',
      data: withPlanAcknowledgements(compilePolicyData(design), acks),
      policy: await loadPolicySources(),
    },
    { signingKeyPem: keys.privatePem },
  );
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

type OpaPlan = {
  decision: string;
  errors: string[];
  findings: Array<{ rule: string; address: string; acknowledgement?: Record<string, string> }>;
  expired_acknowledgements: Array<{ rule: string; address: string; acknowledgement: Record<string, string> }>;
};

/** opa verifies the bundle's signature (opa eval has no verification flag; opa build does). */
async function opaVerify(bundlePath: string) {
  return execa(
    'opa',
    [
      'build',
      '-b',
      bundlePath,
      '--verification-key',
      publicKeyPath,
      '--scope',
      'payments',
      '-o',
      join(dir, 'out.tar.gz'),
    ],
    { reject: false, all: true },
  );
}

/** opa eval on the bundle opa has verified, with the plan and the time in the input. */
async function opaEval(bundlePath: string, input: Record<string, unknown>): Promise<OpaPlan> {
  const verified = await opaVerify(bundlePath);
  expect(verified.all).toBe('');
  expect(verified.exitCode).toBe(0);
  const inputPath = join(dir, 'input.json');
  const plan = JSON.parse(PLAN_BLOCKED) as Record<string, unknown>;
  await writeFile(inputPath, JSON.stringify({ ...plan, ...input }));
  const result = await execa('opa', [
    'eval',
    '--format',
    'json',
    '-b',
    bundlePath,
    '-i',
    inputPath,
    'data.tfgate.conformance.plan',
  ]);
  return JSON.parse(result.stdout).result[0].expressions[0].value as OpaPlan;
}

async function tfgateEval(bundlePath: string, now: string, minSeverity: Severity) {
  const evaluator = await BundleEvaluator.open(bundlePath, { publicKeyPath, now: () => new Date(now) });
  return evaluator.evaluate(fileSource(planPath), minSeverity);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-opa-acks-'));
  keys = generateTestKeys();
  publicKeyPath = join(dir, 'public.pem');
  await writeFile(publicKeyPath, keys.publicPem);
  planPath = join(dir, 'plan.json');
  await writeFile(planPath, PLAN_BLOCKED);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('opa eval and tfgate on a bundle with plan acknowledgements, at a fixed time', () => {
  const cases: Array<[string, string, Severity, string, string[]]> = [
    // [input.now as opa gets it, the same moment for tfgate, threshold, decision, expired]
    ['2026-11-25T01:59:59.999Z', '2026-11-25T01:59:59.999Z', 'low', 'pass', []],
    ['2026-11-25T01:59:59Z', '2026-11-25T01:59:59.000Z', 'low', 'pass', []],
    ['2026-11-25T02:00:00.000Z', '2026-11-25T02:00:00.000Z', 'low', 'block', ['aws_db_instance.ledger']],
    ['2026-11-25T02:00:00Z', '2026-11-25T02:00:00.000Z', 'critical', 'block', ['aws_db_instance.ledger']],
    ['2031-01-01T00:00:00Z', '2031-01-01T00:00:00.000Z', 'critical', 'block', ['aws_db_instance.ledger']],
  ];

  it.each(cases)(
    'opa now %s, tfgate now %s, min_severity %s: %s',
    async (opaNow, now, minSeverity, decision, expired) => {
      const bundlePath = await writeBundle('acks.tar.gz', ACKS);
      const opa = await opaEval(bundlePath, { now: opaNow, min_severity: minSeverity });
      const ours = await tfgateEval(bundlePath, now, minSeverity);

      expect(opa.errors).toEqual([]);
      expect(opa.decision).toBe(decision);
      expect(ours.decision).toBe(decision);
      const acknowledged = (findings: Array<{ address: string; acknowledgement?: unknown }>) =>
        findings
          .map((f) => [f.address, f.acknowledgement ?? null])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      expect(acknowledged(opa.findings)).toEqual(acknowledged(ours.findings));
      expect(opa.expired_acknowledgements.map((e) => e.address)).toEqual(expired);
      expect((ours.expired_acknowledgements ?? []).map((e) => e.address)).toEqual(expired);
      // The queue's acknowledgement has no expiry: it holds at every time.
      expect(ours.findings.find((f) => f.address === 'aws_sqs_queue.extra')?.acknowledgement?.reason).toBe(
        'queue kept for the migration',
      );
    },
  );

  it('a bundle whose acknowledgements have all expired still verifies, and every finding blocks again', async () => {
    const allExpiring = ACKS.map((a) => ({ ...a, expires_at: EXPIRY }));
    const bundlePath = await writeBundle('expired.tar.gz', allExpiring);
    const build = await opaVerify(bundlePath);
    expect(build.all).toBe('');
    expect(build.exitCode).toBe(0);
    const later = '2026-12-01T00:00:00.000Z';
    const opa = await opaEval(bundlePath, { now: later });
    const ours = await tfgateEval(bundlePath, later, 'low');
    expect(opa.decision).toBe('block');
    expect(ours.decision).toBe('block');
    expect(opa.findings.every((f) => f.acknowledgement === undefined)).toBe(true);
    expect(ours.findings.every((f) => f.acknowledgement === undefined)).toBe(true);
    expect(ours.expired_acknowledgements?.map((e) => e.finding_id).sort()).toEqual(
      ACKS.map((a) => a.finding_id).sort(),
    );
    expect(opa.expired_acknowledgements).toHaveLength(2);
  });

  it('without input.now, opa reports that an expiry cannot be judged (never a guess)', async () => {
    const bundlePath = await writeBundle('acks.tar.gz', ACKS);
    for (const now of [undefined, 'tomorrow', '2026-11-25T02:00:00+01:00']) {
      const opa = await opaEval(bundlePath, now === undefined ? {} : { now });
      expect(opa.errors).toEqual([expect.stringContaining('input.now is missing or not RFC 3339 in UTC')]);
      expect(opa.decision).toBe('block');
    }
  });
});

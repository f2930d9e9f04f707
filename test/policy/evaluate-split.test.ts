// A large plan file read and evaluated in two parts, on two threads (src/policy/evaluate-split.ts): the same
// evaluation as one read, plan acknowledgements that expire while it is read included, and the same error
// whichever part holds it. The worker is a file of the build (dist/policy/evaluate-worker.js), so these tests
// run the built modules; the split's own reading is property-tested in test/plan/split-read.test.ts.

import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as DesignModule from '../../src/design/index.js';
import type { PlanAcknowledgement } from '../../src/model/index.js';
import type * as Source from '../../src/plan/source.js';
import type * as Data from '../../src/policy/data.js';
import type * as Engine from '../../src/policy/engine.js';
import type * as Split from '../../src/policy/evaluate-split.js';
import type * as Stream from '../../src/policy/evaluate-stream.js';
import { findingId } from '../../src/policy/finding-id.js';
import { buildCli, REPO_ROOT } from '../helpers/cli.js';

/** bench/design.mjs's design: the generated plan's kinds sanctioned but iam, capabilities that meet deletions. */
const DESIGN = {
  package_id: 'bench',
  name: 'Benchmark package',
  sanctioned_kinds: [
    'object_storage',
    'queue',
    'topic',
    'relational_database',
    'serverless_function',
    'network',
  ],
  capabilities: [
    { name: 'ledger', depends_on: ['aws_db_instance.*', 'module.svc_7.*'] },
    { name: 'content', depends_on: ['aws_s3_bucket.r1*', 'google_storage_bucket.r2*'] },
  ],
};

const dist = <T>(path: string): Promise<T> => import(pathToFileURL(join(REPO_ROOT, 'dist', path)).href);

let split: typeof Split;
let stream: typeof Stream;
let source: typeof Source;
let engine: Promise<Engine.PolicyEngine>;
let data: Data.PolicyData;
let compile: typeof Data.compilePolicyData;
let withAcks: typeof Data.withPlanAcknowledgements;
const dir = mkdtempSync(join(tmpdir(), 'tfgate-evaluate-split-'));
const planPath = join(dir, 'plan.json');
let plan: string;

beforeAll(async () => {
  await buildCli();
  split = await dist('policy/evaluate-split.js');
  stream = await dist('policy/evaluate-stream.js');
  source = await dist('plan/source.js');
  const { PolicyEngine } = await dist<typeof Engine>('policy/engine.js');
  ({ compilePolicyData: compile, withPlanAcknowledgements: withAcks } =
    await dist<typeof Data>('policy/data.js'));
  const { designSchema } = await dist<typeof DesignModule>('design/index.js');
  engine = PolicyEngine.load();
  data = compile(designSchema.parse(DESIGN));
  execFileSync(process.execPath, ['bench/gen-plan.mjs', '--changes', '3000', '--out', planPath], {
    cwd: REPO_ROOT,
  });
  plan = readFileSync(planPath, 'utf8');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = new Date('2026-11-25T02:00:00.000Z');
const T1 = new Date('2026-11-25T02:00:05.000Z');
/** The clock both reads see: the first call (the moment batches are judged at) T0, every later one T1. */
const clock = () => {
  let calls = 0;
  return () => (calls++ === 0 ? T0 : T1);
};

async function both(path: string, policyData: Data.PolicyData) {
  const parts = await split.readAndEvaluateSource(source.fileSource(path), engine, policyData, {
    splitMinBytes: 0,
    now: clock(),
  });
  const one = await stream.readAndEvaluatePlan(createReadStream(path), engine, policyData, { now: clock() });
  return { parts, one };
}

async function outcome(promise: Promise<unknown>) {
  return promise.then(
    () => 'no error',
    (error: Error) => `${error.constructor.name}: ${error.message}`,
  );
}

describe('a plan read and evaluated in two parts', () => {
  it('judges it as one read does', async () => {
    const { parts, one } = await both(planPath, data);
    expect(parts.parts).toBe(2);
    expect(parts.evaluation).toEqual(one.evaluation);
    expect(one.evaluation.findings.length).toBeGreaterThan(50);
  });

  it('judges again, at the end of the read, a change whose acknowledgement expired meanwhile, in either part', async () => {
    // The first and the last unsanctioned creation in the resource changes: one in each part (the worker's is
    // the second half of the file).
    const { one: unacknowledged } = await both(planPath, data);
    const changesAt = plan.indexOf('"resource_changes":');
    const byPosition = unacknowledged.evaluation.findings
      .filter((f) => f.rule === 'unsanctioned_creation')
      .map((f) => ({
        address: f.address,
        at: plan.indexOf(`{"address":${JSON.stringify(f.address)}`, changesAt),
      }))
      .sort((a, b) => a.at - b.at);
    const [first, last] = [byPosition[0]!, byPosition.at(-1)!];
    expect(first.at).toBeLessThan(plan.length / 2);
    expect(last.at).toBeGreaterThan(plan.length / 2);
    // Held when the batches are judged (T0), expired when the read ends (T1).
    const ack = (address: string): PlanAcknowledgement => ({
      finding_id: findingId('bench', 'unsanctioned_creation', address),
      rule: 'unsanctioned_creation',
      address,
      reason: 'a migration',
      expires_at: '2026-11-25T02:00:02.000Z',
      by: 'platform-key',
      account: 'default',
      at: '2026-11-01T09:00:00.000Z',
    });
    const acknowledged = withAcks(data, [ack(first.address), ack(last.address)]);
    const { parts, one } = await both(planPath, acknowledged);
    expect(parts.parts).toBe(2);
    expect(parts.evaluation).toEqual(one.evaluation);
    expect(parts.evaluation.expired.map((e) => e.address).sort()).toEqual(
      [first.address, last.address].sort(),
    );
  });

  it('fails as one read does, whichever part holds the error', async () => {
    // Past the middle of the file, in the resource changes (the worker's part).
    const at = Math.floor(plan.length * 0.6);
    const variants = {
      'an unknown action in the second part':
        plan.slice(0, at) + plan.slice(at).replace('"actions":["create"]', '"actions":["explode"]'),
      'bad JSON in the second part':
        plan.slice(0, at) + plan.slice(at).replace('"mode":"managed"', '"mode":"managed",,'),
      'bad JSON in the first part': plan.replace('"mode":"managed"', '"mode":managed'),
    };
    for (const [name, text] of Object.entries(variants)) {
      expect(text, name).not.toBe(plan);
      const path = join(dir, 'variant.json');
      writeFileSync(path, text);
      const [inParts, inOne] = await Promise.all([
        outcome(split.readAndEvaluateSource(source.fileSource(path), engine, data, { splitMinBytes: 0 })),
        outcome(stream.readAndEvaluatePlan(createReadStream(path), engine, data)),
      ]);
      expect(inParts, name).toBe(inOne);
      expect(inParts, name).not.toBe('no error');
    }
  });

  it('reads in one part, as one read does, a plan whose resource changes all sit before its middle', async () => {
    // No run can start past the middle: the resource changes all sit before it.
    const path = join(dir, 'early.json');
    writeFileSync(
      path,
      plan.replace(/,"prior_state":.*,"timestamp"/s, `,"padding":"${'x'.repeat(plan.length)}","timestamp"`),
    );
    const { parts, one } = await both(path, data);
    expect(parts.parts).toBe(1);
    expect(parts.evaluation).toEqual(one.evaluation);
  });
});

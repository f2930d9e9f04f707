// The corpus itself: every plan is real terraform output, every scenario has a valid design and
// expectations consistent with its plan and with the counting definitions in test/fixtures/README.md,
// the corpus covers every rule and action shape, and the generator still reproduces the committed plans.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { designSchema } from '../../src/design/index.js';
import { writeHugeStringPlan } from '../fixtures/bad/huge-string.js';
import { BAD_INPUTS, type ExpectedCounts, loadCorpus, type Scenario } from '../fixtures/corpus.js';
import { REPO_ROOT } from '../helpers/terraform.js';

const run = promisify(execFile);

interface Change {
  address: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  deposed?: string;
  previous_address?: string;
  change: { actions: string[]; importing?: object };
}

interface PlanDoc {
  format_version: string;
  terraform_version: string;
  resource_changes: Change[];
  complete: boolean;
  errored: boolean;
  timestamp: string;
}

const readPlan = (path: string): PlanDoc => JSON.parse(readFileSync(path, 'utf8')) as PlanDoc;
const corpus = loadCorpus();

/** Types the expectations assume the built-in catalog maps (the contract's own example kinds). */
const CONTRACT_EXAMPLE_TYPES = ['aws_s3_bucket', 'aws_sqs_queue', 'aws_db_instance'];

/** The counting definitions of test/fixtures/README.md, as code, to check the hand-written counts. */
function countByDefinition(plan: PlanDoc, recognized: Set<string>, findings: number): ExpectedCounts {
  const managed = plan.resource_changes.filter((rc) => rc.mode === 'managed');
  const exactly = (rc: Change, action: string) =>
    rc.change.actions.length === 1 && rc.change.actions[0] === action;
  return {
    resource_changes: plan.resource_changes.length,
    creations: managed.filter((rc) => rc.change.actions.includes('create')).length,
    destructions: managed.filter((rc) => rc.change.actions.includes('delete') && !rc.deposed).length,
    unrecognized: managed.filter((rc) => !recognized.has(rc.type)).length,
    findings,
    updates: managed.filter((rc) => rc.change.actions.includes('update')).length,
    reads: plan.resource_changes.filter((rc) => rc.change.actions.includes('read')).length,
    imports: managed.filter((rc) => rc.change.importing !== undefined).length,
    forgets: managed.filter((rc) => rc.change.actions.includes('forget')).length,
    no_ops: plan.resource_changes.filter((rc) => exactly(rc, 'no-op') && rc.change.importing === undefined)
      .length,
  };
}

function designOf(s: Scenario) {
  return designSchema.parse(parseYaml(readFileSync(s.designPath, 'utf8')));
}

describe('corpus scenarios', () => {
  it('has the scenarios the issue asks for', () => {
    const covered = new Set(corpus.flatMap((s) => s.meta.covers));
    for (const feature of [
      'modules',
      'count',
      'for_each',
      'moved',
      'removed',
      'import',
      '-replace',
      'taint',
      'create_before_destroy',
      'deposed',
      '-destroy',
      'no-change',
      'data source',
      'sensitive',
    ]) {
      expect(covered, feature).toContain(feature);
    }
  });

  it.each(corpus.map((s) => [s.name, s] as const))(
    '%s: plan is terraform output, design valid',
    (_name, s) => {
      const plan = readPlan(s.planPath);
      expect(plan.format_version).toMatch(/^1\.\d+$/);
      if (s.meta.binary === 'tofu') {
        // OpenTofu writes its own version here, and no `applyable`/`complete` fields.
        expect(plan.terraform_version).toBe('1.10.10');
        expect(plan.complete).toBeUndefined();
      } else {
        expect(plan.terraform_version).toBe('1.11.4');
        expect(plan.complete).toBe(true);
      }
      expect(plan.errored).toBe(false);
      expect(Number.isNaN(Date.parse(plan.timestamp))).toBe(false);
      expect(plan.resource_changes.length).toBeGreaterThan(0);
      const design = designOf(s);
      expect(design.package_id).toMatch(/^corpus-/);
      // A retyped name never survives as terraform_data anywhere in the plan.
      const retypePath = join(s.dir, 'retype.json');
      const retyped = (() => {
        try {
          return Object.keys(JSON.parse(readFileSync(retypePath, 'utf8')));
        } catch {
          return [];
        }
      })();
      const text = readFileSync(s.planPath, 'utf8');
      for (const name of retyped) expect(text).not.toMatch(new RegExp(`terraform_data\\.${name}\\b`));
    },
  );

  it.each(corpus.map((s) => [s.name, s] as const))(
    '%s: expectations agree with the plan and the definitions',
    (_name, s) => {
      const plan = readPlan(s.planPath);
      const { expected } = s;
      for (const finding of expected.findings) {
        const change = plan.resource_changes.find((rc) => rc.address === finding.address && !rc.deposed);
        expect(change, finding.address).toBeDefined();
        expect(change?.type).toBe(finding.type);
        expect(change?.change.actions).toEqual(finding.actions);
        expect(finding.severity).toBe(finding.rule === 'unsanctioned_creation' ? 'high' : 'critical');
        expect(finding.capability === undefined).toBe(finding.rule === 'unsanctioned_creation');
      }
      const design = designOf(s);
      const recognized = new Set([...CONTRACT_EXAMPLE_TYPES, ...Object.keys(design.catalog)]);
      expect(expected.counts).toEqual(countByDefinition(plan, recognized, expected.findings.length));
      for (const [threshold, decision] of Object.entries(expected.decisions)) {
        const order = ['low', 'medium', 'high', 'critical'];
        const blocks = expected.findings.some((f) => order.indexOf(f.severity) >= order.indexOf(threshold));
        expect(decision, threshold).toBe(blocks ? 'block' : 'pass');
      }
    },
  );

  it('covers every rule and every action shape', () => {
    const rules = new Set(
      corpus.flatMap((s) =>
        [...s.expected.findings, ...(s.expected.drift?.findings ?? [])].map((f) => f.rule),
      ),
    );
    expect([...rules].sort()).toEqual([
      'capability_dependency_destroyed',
      'capability_dependency_missing',
      'unsanctioned_creation',
      'unsanctioned_resource',
    ]);
    const changes = corpus.flatMap((s) => readPlan(s.planPath).resource_changes);
    const shapes = new Set(changes.map((rc) => rc.change.actions.join(',')));
    for (const shape of [
      'no-op',
      'create',
      'read',
      'update',
      'delete',
      'delete,create',
      'create,delete',
      'forget',
      'create,forget',
      'forget,create',
    ]) {
      expect(shapes, shape).toContain(shape);
    }
    expect(changes.some((rc) => rc.deposed && rc.change.actions.join() === 'delete')).toBe(true);
    expect(changes.some((rc) => rc.deposed && rc.change.actions.join() === 'forget')).toBe(true);
    expect(changes.some((rc) => rc.change.importing && rc.change.actions.join() === 'no-op')).toBe(true);
    expect(changes.some((rc) => rc.change.importing && rc.change.actions.join() === 'update')).toBe(true);
    expect(changes.some((rc) => rc.previous_address)).toBe(true);
    expect(changes.some((rc) => rc.mode === 'data')).toBe(true);
    // Only scenarios marked synthetic may hold the shapes terraform 1.11 cannot produce.
    for (const s of corpus.filter((c) => !c.meta.synthetic)) {
      for (const rc of readPlan(s.planPath).resource_changes) {
        expect(['create,forget', 'forget,create'], `${s.name} ${rc.address}`).not.toContain(
          rc.change.actions.join(),
        );
      }
    }
  });

  it('holds sensitive values in clear text where the sensitive scenario says', () => {
    const sensitive = corpus.find((s) => s.name === 'sensitive');
    const canaries = sensitive?.expected.secret_canaries ?? [];
    expect(canaries.length).toBeGreaterThan(0);
    const plan = readFileSync(sensitive!.planPath, 'utf8');
    const state = readFileSync(sensitive!.statePath!, 'utf8');
    for (const canary of canaries) expect(plan).toContain(canary);
    expect(state).toContain(canaries[0]);
  });

  it('gives every drift scenario a state of the same resources the plan started from', () => {
    const withState = corpus.filter((s) => s.statePath);
    expect(withState.length).toBeGreaterThanOrEqual(3);
    for (const s of withState) {
      const state = JSON.parse(readFileSync(s.statePath!, 'utf8'));
      expect(state.format_version).toBe('1.0');
      expect(state.values.root_module).toBeDefined();
      for (const finding of s.expected.drift!.findings.filter((f) => f.rule === 'unsanctioned_resource')) {
        expect(readFileSync(s.statePath!, 'utf8')).toContain(JSON.stringify(finding.address));
      }
    }
  });
});

describe('bad-input fixtures', () => {
  it('are bad in the way their names say', () => {
    expect(statSync(BAD_INPUTS.empty).size).toBe(0);
    expect(() => JSON.parse(readFileSync(BAD_INPUTS.notJson, 'utf8'))).toThrow();
    const truncated = readFileSync(BAD_INPUTS.truncated, 'utf8');
    expect(() => JSON.parse(truncated)).toThrow();
    expect(
      readFileSync(join(REPO_ROOT, 'test/fixtures/plans/taint.json'), 'utf8').startsWith(truncated),
    ).toBe(true);
    expect(Array.isArray(JSON.parse(readFileSync(BAD_INPUTS.array, 'utf8')))).toBe(true);
    const state = JSON.parse(readFileSync(BAD_INPUTS.stateNotPlan, 'utf8'));
    expect(state.values).toBeDefined();
    expect(state.resource_changes).toBeUndefined();
    const unknown = readPlan(BAD_INPUTS.unknownAction);
    expect(unknown.resource_changes.map((rc) => rc.change.actions.join())).toContain('obliterate');
    expect(JSON.parse(readFileSync(BAD_INPUTS.missingFormatVersion, 'utf8')).format_version).toBeUndefined();
    expect(
      Array.isArray(JSON.parse(readFileSync(BAD_INPUTS.resourceChangesNotArray, 'utf8')).resource_changes),
    ).toBe(false);
    const missing = readPlan(BAD_INPUTS.missingActions);
    expect(missing.resource_changes.some((rc) => rc.change.actions === undefined)).toBe(true);
  });

  const scratch = mkdtempSync(join(tmpdir(), 'tfgate-corpus-test-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.each(['value', 'address'] as const)(
    'generates a huge-string plan with the string in the %s',
    async (where) => {
      const path = join(scratch, `huge-${where}.json`);
      const size = await writeHugeStringPlan(path, { bytes: 3 * 1024 * 1024 + 7, where });
      expect(statSync(path).size).toBe(size);
      const plan = readPlan(path);
      const change = plan.resource_changes[0] as Change & { change: { after: { input: string } } };
      const huge = where === 'value' ? change.change.after.input : change.address;
      expect(huge.length).toBe(3 * 1024 * 1024 + 7);
    },
  );
});

describe('generator freshness', () => {
  const out = mkdtempSync(join(tmpdir(), 'tfgate-corpus-regen-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  // Cheap scenarios that still exercise the generator's hard parts: nested modules with odd for_each
  // keys and retyping, an apply that must fail, a state written beside the plan, and OpenTofu.
  const fresh = ['modules-count-foreach', 'deposed-tainted', 'no-change', 'tofu-removed-default-forget'];

  const summary = (plan: PlanDoc) =>
    plan.resource_changes
      .map((rc) =>
        [
          rc.address,
          rc.type,
          rc.mode,
          rc.change.actions.join(','),
          rc.deposed ? 'deposed' : '',
          rc.previous_address ?? '',
        ].join(' '),
      )
      .sort();

  it('regenerates the same changes with real terraform', async () => {
    await run(
      process.execPath,
      [
        'scripts/gen-corpus.mjs',
        '--plans-dir',
        join(out, 'plans'),
        '--states-dir',
        join(out, 'states'),
        ...fresh,
      ],
      { cwd: REPO_ROOT },
    );
    for (const name of fresh) {
      const committed = readPlan(join(REPO_ROOT, 'test/fixtures/plans', `${name}.json`));
      const regenerated = readPlan(join(out, 'plans', `${name}.json`));
      expect(summary(regenerated), name).toEqual(summary(committed));
      expect(regenerated.format_version).toBe(committed.format_version);
    }
    const addresses = (path: string) =>
      (JSON.parse(readFileSync(path, 'utf8')).values.root_module.resources as Array<{ address: string }>).map(
        (r) => r.address,
      );
    expect(addresses(join(out, 'states', 'no-change.json'))).toEqual(
      addresses(join(REPO_ROOT, 'test/fixtures/states/no-change.json')),
    );
  });

  it('refuses an unknown scenario by name', async () => {
    await expect(
      run(process.execPath, ['scripts/gen-corpus.mjs', '--plans-dir', out, 'no-such-scenario'], {
        cwd: REPO_ROOT,
      }),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('unknown scenario(s): no-such-scenario') });
  });
});

import { describe, expect, it } from 'vitest';
import type { Design } from '../../src/design/index.js';
import { InvalidPlanError, NoDecisionError } from '../../src/errors/index.js';
import type {
  EvalFinding,
  ObservedResource,
  PlanAction,
  PlanInput,
  ResourceChange,
  Severity,
} from '../../src/model/index.js';
import { compilePolicyData } from '../../src/policy/data.js';
import { PolicyEngine, toEvaluationResult } from '../../src/policy/engine.js';
import { findingId } from '../../src/policy/finding-id.js';
import { PAYMENTS_CHANGE_TYPES, PAYMENTS_DESIGN, PLAN_ACTION_SHAPES } from './payments-design.js';

const design: Design = PAYMENTS_DESIGN;
const data = compilePolicyData(design);
const engine = PolicyEngine.loadSync();

function change(
  address: string,
  type: string,
  actions: PlanAction[],
  extra: Partial<ResourceChange> = {},
): ResourceChange {
  const name = address.split('.').at(-1)?.replace(/\[.*$/, '') ?? address;
  return { address, mode: 'managed', type, name, change: { actions }, ...extra };
}

function plan(...changes: ResourceChange[]): PlanInput {
  return { format_version: '1.2', terraform_version: '1.11.4', resource_changes: changes };
}

function rules(findings: EvalFinding[]): string[][] {
  return findings.map((f) => [f.rule, f.address]);
}

describe('plan rules', () => {
  it('flags the creation of an unsanctioned kind, high, with a message that says why', () => {
    const { findings, counts } = engine.evaluatePlan(
      data,
      plan(change('aws_iam_user.ci', 'aws_iam_user', ['create'])),
    );
    expect(findings).toEqual([
      {
        id: findingId('payments', 'unsanctioned_creation', 'aws_iam_user.ci'),
        rule: 'unsanctioned_creation',
        severity: 'high',
        address: 'aws_iam_user.ci',
        type: 'aws_iam_user',
        kind: 'iam',
        actions: ['create'],
        message:
          'creates aws_iam_user.ci (kind iam), which the approved design of package payments does not sanction',
      },
    ]);
    expect(counts).toMatchObject({ resource_changes: 1, creations: 1, findings: 1 });
  });

  it('does not flag the creation of a sanctioned kind', () => {
    const { findings, counts } = engine.evaluatePlan(
      data,
      plan(change('aws_s3_bucket.b', 'aws_s3_bucket', ['create'])),
    );
    expect(findings).toEqual([]);
    expect(counts.creations).toBe(1);
  });

  it('flags the destruction of a dependency, critical, naming every capability that depends on it', () => {
    const { findings, counts } = engine.evaluatePlan(
      data,
      plan(change('aws_db_instance.ledger', 'aws_db_instance', ['delete'])),
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      rule: 'capability_dependency_destroyed',
      severity: 'critical',
      address: 'aws_db_instance.ledger',
      kind: 'relational_database',
      actions: ['delete'],
      capability: 'ledger, settlement',
      message:
        'destroys aws_db_instance.ledger (kind relational_database), which capabilities ledger, settlement of package payments depend on',
    });
    expect(counts).toMatchObject({ destructions: 1, findings: 1 });
  });

  it('names a single capability in the singular', () => {
    const { findings } = engine.evaluatePlan(
      data,
      plan(change('module.queue.aws_sqs_queue.q', 'aws_sqs_queue', ['delete'])),
    );
    expect(findings[0]?.capability).toBe('ledger');
    expect(findings[0]?.message).toBe(
      'destroys module.queue.aws_sqs_queue.q (kind queue), which capability ledger of package payments depends on',
    );
  });

  it('does not flag destroying what no capability depends on', () => {
    const { findings, counts } = engine.evaluatePlan(
      data,
      plan(change('aws_s3_bucket.other', 'aws_s3_bucket', ['delete'])),
    );
    expect(findings).toEqual([]);
    expect(counts.destructions).toBe(1);
  });

  it('matches instances and globs of depends_on entries, and nothing that merely shares a prefix', () => {
    const addresses = [
      'aws_db_instance.ledger[0]',
      'aws_db_instance.ledger["a"]',
      'module.queue.aws_sqs_queue.q',
      'module.queue[1].aws_sqs_queue.q',
      'module.queue["eu"].module.inner.aws_sqs_queue.q[2]',
      'aws_db_instance.ledger2',
      'aws_db_instance.ledgerx[0]',
      'module.queues.aws_sqs_queue.q',
      'module.other.aws_db_instance.ledger',
    ];
    const { findings } = engine.evaluatePlan(
      data,
      plan(
        ...addresses.map((address) =>
          change(address, address.includes('sqs') ? 'aws_sqs_queue' : 'aws_db_instance', ['delete']),
        ),
      ),
    );
    expect(findings.map((f) => f.address).sort()).toEqual(addresses.slice(0, 5).sort());
  });

  it('handles a replace: [delete, create] and [create, delete] are one creation and one destruction each', () => {
    for (const actions of [
      ['delete', 'create'],
      ['create', 'delete'],
    ] as PlanAction[][]) {
      const { findings, counts } = engine.evaluatePlan(
        { ...data, sanctioned_kinds: ['queue'] },
        plan(change('aws_db_instance.ledger', 'aws_db_instance', actions)),
      );
      expect(rules(findings)).toEqual([
        ['capability_dependency_destroyed', 'aws_db_instance.ledger'],
        ['unsanctioned_creation', 'aws_db_instance.ledger'],
      ]);
      expect(findings.map((f) => f.message.split(' ')[0])).toEqual(['replaces', 'replaces']);
      expect(counts).toMatchObject({ resource_changes: 1, creations: 1, destructions: 1, findings: 2 });
    }
  });

  it('does not count deleting a deposed object as a destruction: the live object stays', () => {
    const { findings, counts } = engine.evaluatePlan(
      data,
      plan(
        change('aws_db_instance.ledger', 'aws_db_instance', ['delete'], { deposed: '6c0f0e3b' }),
        change('aws_db_instance.ledger', 'aws_db_instance', ['update']),
      ),
    );
    expect(findings).toEqual([]);
    expect(counts).toMatchObject({ resource_changes: 2, destructions: 0, updates: 1 });
  });

  it('counts read, no-op, import, forget, [create, forget] and update without flagging them', () => {
    const { findings, counts } = engine.evaluatePlan(
      { ...data, sanctioned_kinds: ['object_storage'] },
      plan(
        { ...change('data.aws_db_instance.ledger', 'aws_db_instance', ['read']), mode: 'data' },
        change('aws_db_instance.ledger', 'aws_db_instance', ['no-op']),
        change('aws_iam_user.imported', 'aws_iam_user', ['no-op'], {
          change: { actions: ['no-op'], importing: { id: 'ci' } },
        }),
        change('aws_iam_user.imported_and_updated', 'aws_iam_user', ['update'], {
          change: { actions: ['update'], importing: { id: 'ci2' } },
        }),
        change('aws_db_instance.ledger2', 'aws_db_instance', ['forget']),
        change('aws_iam_user.updated', 'aws_iam_user', ['update']),
        change('aws_s3_bucket.recreated', 'aws_s3_bucket', ['create', 'forget']),
      ),
    );
    expect(findings).toEqual([]);
    expect(counts).toEqual({
      resource_changes: 7,
      creations: 1,
      destructions: 0,
      unrecognized: 0,
      findings: 0,
      updates: 2,
      reads: 1,
      imports: 2,
      forgets: 2,
      no_ops: 1,
    });
  });

  it('counts unrecognized managed types and never flags them, even when created or destroyed', () => {
    const { findings, counts } = engine.evaluatePlan(
      data,
      plan(
        change('vendor_widget.a', 'vendor_widget', ['create']),
        change('aws_db_instance.ledger', 'vendor_database', ['delete']),
        change('terraform_data.x', 'terraform_data', ['delete', 'create']),
        { ...change('data.vendor_lookup.l', 'vendor_lookup', ['read']), mode: 'data' },
      ),
    );
    expect(findings).toEqual([]);
    expect(counts).toMatchObject({ unrecognized: 3, creations: 2, destructions: 2, reads: 1 });
  });

  it("applies the design's catalog: an added type becomes recognized, an override changes the kind", () => {
    const withCatalog = compilePolicyData({
      ...design,
      sanctioned_kinds: ['relational_database', 'generic_data'],
      capabilities: [{ name: 'settlement', depends_on: ['terraform_data.settlement_store'] }],
      catalog: { terraform_data: 'generic_data', aws_s3_bucket: 'relational_database', vendor_widget: 'iam' },
    });
    const { findings, counts } = engine.evaluatePlan(
      withCatalog,
      plan(
        change('terraform_data.settlement_store', 'terraform_data', ['delete']),
        change('terraform_data.new', 'terraform_data', ['create']),
        change('aws_s3_bucket.b', 'aws_s3_bucket', ['create']),
        change('vendor_widget.w', 'vendor_widget', ['create']),
      ),
    );
    expect(rules(findings)).toEqual([
      ['capability_dependency_destroyed', 'terraform_data.settlement_store'],
      ['unsanctioned_creation', 'vendor_widget.w'],
    ]);
    expect(findings[0]?.kind).toBe('generic_data');
    expect(counts.unrecognized).toBe(0);
  });

  it('treats an unknown action as an error, not a pass', () => {
    const bad = plan(change('aws_s3_bucket.b', 'aws_s3_bucket', ['create']), {
      ...change('aws_iam_user.ci', 'aws_iam_user', ['create']),
      change: { actions: ['destroy' as PlanAction] },
    });
    expect(() => engine.evaluatePlan(data, bad)).toThrow(InvalidPlanError);
    expect(() => engine.evaluatePlan(data, bad)).toThrow(/aws_iam_user\.ci has unknown action "destroy"/);
  });

  it('treats a change without an actions list as an error', () => {
    const bad = plan({
      ...change('aws_iam_user.ci', 'aws_iam_user', []),
      change: {} as ResourceChange['change'],
    });
    expect(() => engine.evaluatePlan(data, bad)).toThrow(/aws_iam_user\.ci has no change\.actions list/);
  });

  it('refuses a plan object without a resource_changes array plainly (it was a TypeError)', () => {
    for (const bad of [{ format_version: '1.2' }, null, 'plan.json', { resource_changes: {} }]) {
      expect(() => engine.evaluatePlan(data, bad as unknown as PlanInput)).toThrow(
        expect.objectContaining({
          code: 'invalid_plan',
          message: 'the plan object has no resource_changes array, so it cannot be evaluated',
        }),
      );
    }
  });

  it('evaluates an empty plan to zero counts', () => {
    const { findings, counts } = engine.evaluatePlan(data, plan());
    expect(findings).toEqual([]);
    expect(counts).toEqual({
      resource_changes: 0,
      creations: 0,
      destructions: 0,
      unrecognized: 0,
      findings: 0,
      updates: 0,
      reads: 0,
      imports: 0,
      forgets: 0,
      no_ops: 0,
    });
  });

  it('never lets values reach the policy: only the fields the rules read are sent', () => {
    const withSecret = change('aws_iam_user.ci', 'aws_iam_user', ['create']);
    (withSecret.change as Record<string, unknown>).after = { password: 'hunter2' };
    (withSecret as unknown as Record<string, unknown>).values = { password: 'hunter2' };
    const { findings } = engine.evaluatePlan(data, plan(withSecret));
    expect(findings).toHaveLength(1);
    expect(JSON.stringify(findings)).not.toContain('hunter2');
  });
});

describe('determinism and chunking', () => {
  const many: ResourceChange[] = [];
  const types = PAYMENTS_CHANGE_TYPES;
  const shapes = PLAN_ACTION_SHAPES;
  for (let i = 0; i < 997; i++) {
    const type = types[i % types.length] as string;
    const address = i % 7 === 0 ? `aws_db_instance.ledger[${i}]` : `module.m${i % 13}.${type}.r${i}`;
    const actualType = address.startsWith('aws_db') ? 'aws_db_instance' : type;
    many.push(change(address, actualType, shapes[i % shapes.length] as PlanAction[]));
  }

  it('gives the same findings and counts whatever the chunk size', () => {
    const whole = engine.evaluatePlan(data, plan(...many), { chunkSize: 100_000 });
    const chunked = engine.evaluatePlan(data, plan(...many), { chunkSize: 10 });
    expect(whole.findings.length).toBeGreaterThan(100);
    expect(whole.counts.destructions).toBeGreaterThan(100);
    expect(chunked).toEqual(whole);
  });

  it('sorts findings by address, then rule, whatever the plan order', () => {
    const forward = engine.evaluatePlan(data, plan(...many));
    const backward = engine.evaluatePlan(data, plan(...[...many].reverse()));
    expect(backward.findings).toEqual(forward.findings);
    const keys = forward.findings.map((f) => `${f.address}\u0000${f.rule}`);
    expect(keys).toEqual([...keys].sort());
  });
});

describe('drift rules', () => {
  const observed = (
    address: string,
    type: string,
    mode: 'managed' | 'data' = 'managed',
  ): ObservedResource => ({
    address,
    mode,
    type,
    name: address.split('.').at(-1) ?? address,
  });

  it('flags observed resources of unsanctioned kinds and missing dependencies', () => {
    const drift = engine.evaluateDrift(data, {
      resources: [
        observed('aws_iam_user.ci', 'aws_iam_user'),
        observed('aws_s3_bucket.settlement', 'aws_s3_bucket'),
        observed('module.queue[0].aws_sqs_queue.q', 'aws_sqs_queue'),
        observed('vendor_thing.v', 'vendor_thing'),
        observed('data.aws_db_instance.ledger', 'aws_db_instance', 'data'),
      ],
    });
    expect(drift).toEqual([
      {
        id: findingId('payments', 'capability_dependency_missing', 'aws_db_instance.ledger'),
        rule: 'capability_dependency_missing',
        severity: 'critical',
        address: 'aws_db_instance.ledger',
        capability: 'ledger, settlement',
        message:
          'capabilities ledger, settlement of package payments depend on aws_db_instance.ledger, but no managed resource matching it was observed',
      },
      {
        id: findingId('payments', 'unsanctioned_resource', 'aws_iam_user.ci'),
        rule: 'unsanctioned_resource',
        severity: 'high',
        address: 'aws_iam_user.ci',
        type: 'aws_iam_user',
        kind: 'iam',
        message:
          'aws_iam_user.ci (kind iam) exists, but the approved design of package payments does not sanction kind iam',
      },
    ]);
  });

  it('reports a missing glob dependency under its depends_on entry', () => {
    const drift = engine.evaluateDrift(data, {
      resources: [
        observed('aws_db_instance.ledger["a"]', 'aws_db_instance'),
        observed('aws_s3_bucket.settlement', 'aws_s3_bucket'),
      ],
    });
    expect(drift.map((d) => [d.rule, d.address, d.capability])).toEqual([
      ['capability_dependency_missing', 'module.queue.*', 'ledger'],
    ]);
  });

  it('finds nothing when reality matches the design', () => {
    const drift = engine.evaluateDrift(data, {
      resources: [
        observed('aws_db_instance.ledger', 'aws_db_instance'),
        observed('module.queue.aws_sqs_queue.q', 'aws_sqs_queue'),
        observed('aws_s3_bucket.settlement', 'aws_s3_bucket'),
      ],
    });
    expect(drift).toEqual([]);
  });
});

describe('finding ids', () => {
  it('are stable per package, rule and address, and differ when any of them differs', () => {
    const id = findingId('payments', 'unsanctioned_creation', 'aws_iam_user.ci');
    expect(id).toMatch(/^f_[0-9a-f]{20}$/);
    expect(findingId('payments', 'unsanctioned_creation', 'aws_iam_user.ci')).toBe(id);
    const others = [
      findingId('billing', 'unsanctioned_creation', 'aws_iam_user.ci'),
      findingId('payments', 'unsanctioned_resource', 'aws_iam_user.ci'),
      findingId('payments', 'unsanctioned_creation', 'aws_iam_user.cd'),
      findingId('payments\u0000unsanctioned_creation', '', 'aws_iam_user.ci'),
    ];
    expect(new Set([id, ...others]).size).toBe(5);
  });

  it('are the same across two evaluations and two engines', () => {
    const p = plan(
      change('aws_iam_user.ci', 'aws_iam_user', ['create']),
      change('aws_db_instance.ledger', 'aws_db_instance', ['delete']),
    );
    const first = engine.evaluatePlan(data, p).findings.map((f) => f.id);
    const second = PolicyEngine.loadSync()
      .evaluatePlan(data, p)
      .findings.map((f) => f.id);
    expect(second).toEqual(first);
    expect(new Set(first).size).toBe(2);
  });
});

describe('loading and results', () => {
  it('loads asynchronously and synchronously, with the same results', async () => {
    const p = plan(change('aws_iam_user.ci', 'aws_iam_user', ['create']));
    const asyncEngine = await PolicyEngine.load();
    expect(asyncEngine.evaluatePlan(data, p)).toEqual(engine.evaluatePlan(data, p));
  });

  it('refuses bytes that are not WebAssembly with a no-decision error', async () => {
    const junk = new TextEncoder().encode('not wasm at all');
    expect(() => PolicyEngine.loadSync(junk)).toThrow(NoDecisionError);
    await expect(PolicyEngine.load(junk)).rejects.toThrow(/not valid WebAssembly/);
  });

  it('turns an evaluation into the contract response, blocking at or above the threshold', () => {
    const evaluation = engine.evaluatePlan(data, plan(change('aws_iam_user.ci', 'aws_iam_user', ['create'])));
    expect(toEvaluationResult('payments', 'high', evaluation)).toEqual({
      package_id: 'payments',
      decision: 'block',
      min_severity: 'high',
      findings: evaluation.findings,
      counts: evaluation.counts,
    });
    expect(toEvaluationResult('payments', 'critical', evaluation).decision).toBe('pass');
  });

  it('refuses a threshold that is not one of the four severities, as plain JavaScript may pass it', () => {
    const evaluation = engine.evaluatePlan(data, plan(change('aws_iam_user.ci', 'aws_iam_user', ['create'])));
    for (const threshold of ['CRITICAL', 'severe', '', undefined]) {
      expect(() => toEvaluationResult('payments', threshold as Severity, evaluation)).toThrow(
        expect.objectContaining({
          code: 'invalid_option',
          exitCode: 1,
          message: expect.stringMatching(/^min severity .* is not one of: low, medium, high, critical$/),
        }),
      );
    }
  });
});

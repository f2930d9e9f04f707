// Instances left by finished plan evaluations and taken by the next (PolicyEngineOptions.keepIdleInstances):
// what a reused instance decides must be what a fresh one decides, and a failed one is never reused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlanAction, ResourceChange } from '../../src/model/index.js';
import { compilePolicyData } from '../../src/policy/data.js';
import { PolicyEngine } from '../../src/policy/engine.js';
import { IdleInstances, PlanSession } from '../../src/policy/plan-session.js';
import { PAYMENTS_CHANGE_TYPES, PAYMENTS_DESIGN, PLAN_ACTION_SHAPES } from './payments-design.js';

const data = compilePolicyData(PAYMENTS_DESIGN);
const fresh = PolicyEngine.loadSync();
const NOW = new Date('2026-11-28T00:00:00Z');

const changeArb: fc.Arbitrary<ResourceChange> = fc
  .record({
    type: fc.constantFrom(...PAYMENTS_CHANGE_TYPES),
    name: fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/),
    actions: fc.constantFrom(...PLAN_ACTION_SHAPES),
    ledger: fc.boolean(),
  })
  .map(({ type, name, actions, ledger }) => {
    const t = ledger ? 'aws_db_instance' : type;
    const n = ledger ? 'ledger' : name;
    return { address: `${t}.${n}`, mode: 'managed', type: t, name: n, change: { actions } };
  });
// A plan the policy reports as unreadable: an action it does not know.
const unreadable: ResourceChange = {
  address: 'aws_s3_bucket.x',
  mode: 'managed',
  type: 'aws_s3_bucket',
  name: 'x',
  change: { actions: ['explode' as PlanAction] },
};

function evaluate(engine: PolicyEngine, changes: ResourceChange[], batch: number) {
  const session = engine.openPlan(data, NOW);
  for (let at = 0; at < changes.length; at += batch) session.add(changes.slice(at, at + batch));
  try {
    return session.finish();
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('idle instances', () => {
  it('a reused instance decides every plan of a sequence as a fresh one does (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            changes: fc.array(
              fc.oneof(
                { weight: 20, arbitrary: changeArb },
                { weight: 1, arbitrary: fc.constant(unreadable) },
              ),
              {
                maxLength: 60,
              },
            ),
            batch: fc.integer({ min: 1, max: 25 }),
          }),
          { minLength: 2, maxLength: 6 },
        ),
        (plans) => {
          const reusing = PolicyEngine.loadSync(undefined, { keepIdleInstances: true });
          for (const { changes, batch } of plans) {
            expect(evaluate(reusing, changes, batch)).toEqual(evaluate(fresh, changes, batch));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps a finished session’s instance and hands it to the next session', () => {
    const idle = new IdleInstances();
    const first = new PlanSession(fresh['module' as never], data, NOW.toISOString(), idle);
    first.add([
      {
        address: 'aws_iam_user.a',
        mode: 'managed',
        type: 'aws_iam_user',
        name: 'a',
        change: { actions: ['create'] },
      },
    ]);
    expect(idle.take()).toBeUndefined(); // in use while the session runs
    first.finish();
    const kept = idle.take();
    expect(kept).toBeDefined();
    idle.keep(kept as never);
    const second = new PlanSession(fresh['module' as never], data, NOW.toISOString(), idle);
    second.add([]);
    expect(idle.take()).toBeUndefined(); // the second session has it
    expect(second.finish().counts.resource_changes).toBe(0);
    expect(idle.take()).toBe(kept);
  });

  it('never keeps an instance whose evaluation failed, and input the policy cannot read is no decision', () => {
    const idle = new IdleInstances();
    const session = new PlanSession(fresh['module' as never], data, NOW.toISOString(), idle);
    // Bytes that are not JSON: opa-wasm evaluates them as no input (zero changes, a pass); the session
    // sees one change sent and none counted.
    expect(() => session.addReduced(new TextEncoder().encode(',{"address":'), 1)).toThrow(
      /counted 0 resource changes in a batch of 1/,
    );
    expect(() => session.finish()).toThrow(/could not be evaluated/);
    expect(idle.take()).toBeUndefined();
  });

  it('does not keep an instance grown past 64 MiB', () => {
    const idle = new IdleInstances();
    const session = new PlanSession(fresh['module' as never], data, NOW.toISOString(), idle);
    const big: ResourceChange[] = Array.from({ length: 60_000 }, (_, i) => ({
      address: `aws_s3_bucket.b${i}`,
      mode: 'managed',
      type: 'aws_s3_bucket',
      name: `b${i}`,
      change: { actions: ['create'] },
    }));
    session.add(big);
    session.finish();
    expect(idle.take()).toBeUndefined();
  });

  it('an instance prepared before the first plan is the one that plan takes, and decides as a fresh one', () => {
    const engine = PolicyEngine.loadSync(undefined, { keepIdleInstances: true });
    engine.prepare(data);
    engine.prepare(data); // one is idle already: no second
    const session = engine.openPlan(data, NOW);
    const idle = (session as unknown as { idle: IdleInstances }).idle;
    const prepared = idle.take();
    expect(prepared).toBeDefined();
    expect(idle.isEmpty).toBe(true);
    idle.keep(prepared as never);
    const changes = fc.sample(changeArb, { seed: 7, numRuns: 40 });
    session.add(changes);
    expect(idle.isEmpty).toBe(true); // taken by the session
    expect(session.finish()).toEqual(evaluate(fresh, changes, changes.length));
    expect(idle.take()).toBe(prepared);
  });

  it('is off by default: an engine without the option keeps nothing', () => {
    const engine = PolicyEngine.loadSync();
    const session = engine.openPlan(data, NOW);
    session.add([]);
    session.finish();
    expect((session as unknown as { idle?: IdleInstances }).idle).toBeUndefined();
  });
});

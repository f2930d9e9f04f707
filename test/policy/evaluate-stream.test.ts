// The plan read and evaluated in one pass (src/policy/evaluate-stream.ts): the same evaluation as reading the
// plan whole and evaluating it, whatever the batch size; nothing when the read fails later (fail closed).
import { describe, expect, it, vi } from 'vitest';
import type { Design } from '../../src/design/index.js';
import { IncompletePlanError, InvalidPlanError } from '../../src/errors/index.js';
import type { PlanAcknowledgement, PlanAction } from '../../src/model/index.js';
import { bufferSource, readPlan } from '../../src/plan/index.js';
import { compilePolicyData, withPlanAcknowledgements } from '../../src/policy/data.js';
import { PolicyEngine } from '../../src/policy/engine.js';
import { readAndEvaluatePlan } from '../../src/policy/evaluate-stream.js';
import { findingId } from '../../src/policy/finding-id.js';
import { PAYMENTS_DESIGN } from './payments-design.js';

const design: Design = PAYMENTS_DESIGN;
const data = compilePolicyData(design);
const engine = PolicyEngine.loadSync();
const NOW = new Date('2026-11-25T02:00:00.000Z');

function change(address: string, type: string, actions: PlanAction[], extra: object = {}): object {
  const name = address.split('.').at(-1)?.replace(/\[.*$/, '') ?? address;
  return { address, mode: 'managed', type, name, change: { actions, before: { secret: 'x' } }, ...extra };
}

/** 300 changes: findings of both rules spread over many batches, repeated addresses, data sources, imports. */
function manyChanges(): object[] {
  const changes: object[] = [];
  for (let i = 0; i < 60; i++) {
    changes.push(change(`aws_iam_role.r${(i * 7) % 23}`, 'aws_iam_role', ['create']));
    changes.push(change('aws_db_instance.ledger', 'aws_db_instance', ['delete', 'create']));
    changes.push(change(`module.queue.aws_sqs_queue.q${i}`, 'aws_sqs_queue', ['delete']));
    changes.push({
      ...change(`data.aws_caller_identity.c${i}`, 'aws_caller_identity', ['read']),
      mode: 'data',
    });
    changes.push(
      change(`aws_s3_bucket.b${i}`, 'aws_s3_bucket', ['no-op'], {
        change: { actions: ['no-op'], importing: { id: 'b' } },
      }),
    );
  }
  return changes;
}

function planText(changes: object[], tail = ''): string {
  return `{"format_version":"1.2","terraform_version":"1.11.4","resource_changes":${JSON.stringify(changes)}${tail}}`;
}

async function readWhole(text: string, at: Date, evaluationData = data) {
  const plan = await readPlan(bufferSource(text).open());
  return engine.evaluatePlan(evaluationData, plan, { now: at });
}

describe('readAndEvaluatePlan', () => {
  it('gives what reading the plan whole and evaluating it gives, at every batch size, in the same order', async () => {
    const text = planText(manyChanges());
    const whole = await readWhole(text, NOW);
    expect(whole.findings.length).toBeGreaterThan(100);
    for (const batchChanges of [1, 7, 64, 4096]) {
      const streamed = await readAndEvaluatePlan(bufferSource(text).open(), engine, data, {
        batchChanges,
        now: () => NOW,
      });
      expect(streamed.evaluation, `batches of ${batchChanges}`).toEqual(whole);
      expect(streamed.now).toEqual(NOW);
    }
  });

  it('evaluates as it reads: batches are judged before the read ends', async () => {
    const session = engine.openPlan(data, NOW);
    const open = vi.spyOn(engine, 'openPlan').mockReturnValue(session);
    // Batches of objects, and of reduced changes (those the scanner read in WebAssembly).
    const add = vi.spyOn(session, 'add');
    const addReduced = vi.spyOn(session, 'addReduced');
    const text = planText(manyChanges());
    async function* slowly(): AsyncGenerator<Uint8Array> {
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length; at += 4096) {
        yield bytes.subarray(at, at + 4096);
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Before the last bytes arrive, earlier batches have been evaluated.
      expect(add.mock.calls.length + addReduced.mock.calls.length).toBeGreaterThan(1);
    }
    try {
      await readAndEvaluatePlan(slowly(), engine, data, { batchChanges: 16, now: () => NOW });
    } finally {
      open.mockRestore();
    }
  });

  it('fails closed: an error later in the plan discards every batch already evaluated', async () => {
    const changes = manyChanges();
    const cases: Array<[string, string, unknown]> = [
      ['bad JSON at the end', planText(changes).slice(0, -1), InvalidPlanError],
      ['"errored": true last', planText(changes, ',"errored":true'), IncompletePlanError],
      [
        'an unknown action late',
        planText([...changes, change('aws_iam_role.late', 'aws_iam_role', ['destroy' as PlanAction])]),
        InvalidPlanError,
      ],
    ];
    for (const [name, text, error] of cases) {
      const onChanges = vi.fn();
      const session = engine.openPlan(data, NOW);
      const add = vi.spyOn(session, 'add').mockImplementation(onChanges);
      const addReduced = vi.spyOn(session, 'addReduced').mockImplementation(onChanges);
      const open = vi.spyOn(engine, 'openPlan').mockReturnValue(session);
      try {
        await expect(
          readAndEvaluatePlan(bufferSource(text).open(), engine, data, { batchChanges: 8, now: () => NOW }),
          name,
        ).rejects.toBeInstanceOf(error);
        expect(
          onChanges.mock.calls.length,
          `${name}: batches were evaluated before the error`,
        ).toBeGreaterThan(1);
      } finally {
        open.mockRestore();
        add.mockRestore();
        addReduced.mockRestore();
      }
    }
  });

  it('reports a read error before an evaluation error, as when the plan was read first', async () => {
    const failing = Promise.reject(new Error('the engine failed'));
    const good = planText(manyChanges());
    await expect(
      readAndEvaluatePlan(bufferSource(good.slice(0, -1)).open(), failing, data),
    ).rejects.toBeInstanceOf(InvalidPlanError);
    await expect(readAndEvaluatePlan(bufferSource(good).open(), failing, data)).rejects.toThrow(
      'the engine failed',
    );
  });

  it('waits for the engine and the data: batches read before they are there are held, then judged', async () => {
    const text = planText(manyChanges());
    let release: (value: typeof data) => void = () => {};
    const later = new Promise<typeof data>((resolve) => {
      release = resolve;
    });
    const streamed = readAndEvaluatePlan(bufferSource(text).open(), Promise.resolve(engine), later, {
      batchChanges: 16,
      now: () => NOW,
    });
    setTimeout(() => release(data), 20);
    expect((await streamed).evaluation).toEqual(await readWhole(text, NOW));
  });

  it('drops the batches held for the data when the read fails: none is judged after the error', async () => {
    const text = planText(manyChanges()).slice(0, -1);
    let release: (value: typeof data) => void = () => {};
    const later = new Promise<typeof data>((resolve) => {
      release = resolve;
    });
    const open = vi.spyOn(engine, 'openPlan');
    try {
      await expect(
        readAndEvaluatePlan(bufferSource(text).open(), engine, later, { batchChanges: 16 }),
      ).rejects.toBeInstanceOf(InvalidPlanError);
      release(data);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(open).not.toHaveBeenCalled();
    } finally {
      open.mockRestore();
    }
  });

  it('judges acknowledgements at the moment the plan has been read, though batches were judged earlier', async () => {
    const ledger = 'aws_db_instance.ledger';
    const acks: PlanAcknowledgement[] = [
      {
        finding_id: findingId('payments', 'capability_dependency_destroyed', ledger),
        rule: 'capability_dependency_destroyed',
        address: ledger,
        reason: 'ledger moves, OPS-7',
        // Expires while the plan is read: held when the first batch is judged, expired when the read ends.
        expires_at: '2026-11-25T02:00:01.000Z',
        by: 'platform-key',
        account: 'default',
        at: '2026-11-01T09:00:00.000Z',
      },
      {
        finding_id: findingId('payments', 'unsanctioned_creation', 'aws_iam_role.r3'),
        rule: 'unsanctioned_creation',
        address: 'aws_iam_role.r3',
        reason: 'kept for the migration',
        expires_at: '2026-12-01T00:00:00.000Z',
        by: 'platform-key',
        account: 'default',
        at: '2026-11-01T09:00:00.000Z',
      },
    ];
    const withAcks = withPlanAcknowledgements(data, acks);
    const text = planText(manyChanges());
    const readAt = new Date('2026-11-25T02:00:02.000Z');
    const times = [NOW, readAt];
    const streamed = await readAndEvaluatePlan(bufferSource(text).open(), engine, withAcks, {
      batchChanges: 16,
      now: () => times.shift() ?? readAt,
    });
    const atReadEnd = await readWhole(text, readAt, withAcks);
    expect(streamed.now).toEqual(readAt);
    expect(streamed.evaluation).toEqual(atReadEnd);
    expect(new Set(atReadEnd.expired.map((e) => e.address))).toEqual(new Set([ledger]));
    const acknowledged = atReadEnd.findings.filter((f) => f.acknowledgement).map((f) => f.address);
    expect(new Set(acknowledged)).toEqual(new Set(['aws_iam_role.r3']));
    // Judged at the first batch's moment, the ledger's acknowledgement still held: the test can tell.
    expect(await readWhole(text, NOW, withAcks)).not.toEqual(atReadEnd);
  });

  it('an empty plan is evaluated once, with zero counts', async () => {
    const text = '{"format_version":"1.2","planned_values":{}}';
    const streamed = await readAndEvaluatePlan(bufferSource(text).open(), engine, data, { now: () => NOW });
    expect(streamed.evaluation).toEqual(await readWhole(text, NOW));
    expect(streamed.evaluation.counts.resource_changes).toBe(0);
  });
});

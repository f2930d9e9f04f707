// readPlan's streaming API: resource changes handed to onChanges in batches as the plan is read.
import { describe, expect, it } from 'vitest';
import { IncompletePlanError, InvalidPlanError } from '../../src/errors/index.js';
import type { ResourceChange } from '../../src/model/index.js';
import { readPlan } from '../../src/plan/read-plan.js';
import { CHUNKINGS, type Chunking, splitBytes, streamOf } from './helpers.js';

const SECRET = 'TOP-SECRET-hunter2';

function change(i: number, actions: string[] = ['create']): Record<string, unknown> {
  return {
    address: `aws_s3_bucket.b["k\\"${i}é"]`,
    mode: 'managed',
    type: 'aws_s3_bucket',
    name: 'b',
    index: `k"${i}é`,
    provider_name: 'registry.terraform.io/hashicorp/aws',
    change: {
      actions,
      before: null,
      after: { bucket: `b-${i}`, secret: SECRET, tags: { n: i, s: 'x\\y\u2028\ud83d\ude00' } },
      after_unknown: { arn: true },
      before_sensitive: false,
      after_sensitive: { secret: true },
    },
  };
}

function planText(
  count: number,
  extra: Record<string, unknown> = {},
  changes = range(count).map((i) => change(i)),
) {
  return JSON.stringify({
    format_version: '1.2',
    terraform_version: '1.11.4',
    planned_values: { root_module: {} },
    resource_changes: changes,
    configuration: { root_module: { resources: [{ expressions: { secret: { constant_value: SECRET } } }] } },
    ...extra,
  });
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

async function streamed(text: string, chunking: Chunking = 'whole', batchChanges?: number, seed = 1) {
  const batches: ResourceChange[][] = [];
  const plan = await readPlan(streamOf(text, chunking, seed), {
    description: 'plan.json',
    onChanges: (batch) => batches.push(batch),
    ...(batchChanges === undefined ? {} : { batchChanges }),
  });
  return { plan, batches };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('readPlan resolved');
}

describe('readPlan with onChanges', () => {
  for (const chunking of CHUNKINGS) {
    it(`delivers every change in document order, in batches of batchChanges (${chunking} chunks)`, async () => {
      const text = planText(10);
      const whole = await readPlan(streamOf(text), { description: 'plan.json' });
      const { plan, batches } = await streamed(text, chunking, 3);
      expect(batches.map((b) => b.length)).toEqual([3, 3, 3, 1]);
      expect(batches.flat()).toEqual(whole.resource_changes);
      expect(JSON.stringify(batches)).not.toContain(SECRET);
      expect(plan).toEqual({ ...whole, resource_changes: [] });
    });
  }

  it('loses nothing at any chunk boundary, for many random chunkings and batch sizes', async () => {
    const text = planText(25);
    const expected = (await readPlan(streamOf(text), {})).resource_changes;
    for (let seed = 1; seed <= 40; seed++) {
      const size = 1 + (seed % 7);
      const { batches } = await streamed(text, 'random', size, seed);
      expect(batches.flat()).toEqual(expected);
      expect(batches.every((b, k) => b.length === (k < batches.length - 1 ? size : b.length))).toBe(true);
    }
  });

  it('batches 4096 changes by default', async () => {
    const { batches } = await streamed(planText(5000));
    expect(batches.map((b) => b.length)).toEqual([4096, 904]);
  });

  it('hands each batch on as it fills, while the plan is still being read, and the rest before resolving', async () => {
    const chunks = splitBytes(Buffer.from(planText(40)), 'random', 3);
    let read = 0;
    let resolved = false;
    const seenAt: number[] = [];
    async function* source() {
      for (const chunk of chunks) {
        read++;
        yield chunk;
      }
    }
    const reading = readPlan(source(), {
      batchChanges: 10,
      onChanges: (batch) => {
        expect(resolved).toBe(false);
        seenAt.push(read);
        expect(batch).toHaveLength(10);
      },
    });
    const plan = await reading;
    resolved = true;
    expect(plan.resource_changes).toEqual([]);
    expect(seenAt).toHaveLength(4);
    // The first batches arrive long before the last chunk is read.
    expect(seenAt[0]!).toBeLessThan(chunks.length / 2);
    expect(seenAt[2]!).toBeLessThan(chunks.length);
  });

  it('delivers a plan without resource_changes as no batch at all', async () => {
    const text = JSON.stringify({ format_version: '1.2', planned_values: {} });
    const { plan, batches } = await streamed(text);
    expect(batches).toEqual([]);
    expect(plan.resource_changes).toEqual([]);
  });

  it('still rejects when the plan turns out bad after some batches were delivered', async () => {
    const cases: [string, new (...args: never[]) => Error, RegExp][] = [
      [`${planText(30).slice(0, -1)},"x":}`, InvalidPlanError, /byte \d+/],
      [planText(30, { errored: true }), IncompletePlanError, /"errored": true/],
      [
        planText(30, {}, [...range(25).map((i) => change(i)), change(25, ['explode'])]),
        InvalidPlanError,
        /unknown action "explode".*\$\.resource_changes\[25\]\.change\.actions\[0\]/,
      ],
      [planText(30, { format_version: '9.0' }), InvalidPlanError, /format_version/],
    ];
    for (const [text, type, message] of cases) {
      for (const chunking of ['whole', 'random'] as const) {
        const batches: ResourceChange[][] = [];
        const error = await rejection(
          readPlan(streamOf(text, chunking), { batchChanges: 4, onChanges: (b) => batches.push(b) }),
        );
        expect(error).toBeInstanceOf(type);
        expect(error.message).toMatch(message);
        expect(batches.length).toBeGreaterThan(0);
      }
    }
  });

  it('refuses a second resource_changes key in plain words, however it is spelled', async () => {
    const first = JSON.stringify([change(1)]);
    const second = JSON.stringify([change(2)]);
    const head = '{"format_version":"1.2","planned_values":{},';
    for (const key of ['resource_changes', 'resource\\u005fchanges']) {
      const text = `${head}"resource_changes":${first},"${key}":${second}}`;
      for (const chunking of CHUNKINGS) {
        const error = await rejection(
          readPlan(streamOf(text, chunking), { description: 'plan.json', onChanges: () => {} }),
        );
        expect(error).toBeInstanceOf(InvalidPlanError);
        expect(error.message).toBe(
          `plan.json is not a Terraform plan in JSON: a second "resource_changes" key in the same object: JSON.parse would keep only the last one, and tfgate refuses to guess which one was meant (byte ${Buffer.byteLength(`${head}"resource_changes":${first},`)}, at $.resource_changes)`,
        );
      }
      // Without onChanges the last one wins, as with JSON.parse.
      const plan = await readPlan(streamOf(text), {});
      expect(plan.resource_changes.map((rc) => rc.address)).toEqual([
        (change(2) as { address: string }).address,
      ]);
    }
  });

  it('passes an error thrown by onChanges on as it is', async () => {
    const mine = new Error('caller gave up');
    const error = await rejection(
      readPlan(streamOf(planText(10)), {
        batchChanges: 3,
        onChanges: () => {
          throw mine;
        },
      }),
    );
    expect(error).toBe(mine);
    const atEnd = await rejection(
      readPlan(streamOf(planText(2)), {
        onChanges: () => {
          throw mine;
        },
      }),
    );
    expect(atEnd).toBe(mine);
  });

  it('refuses a batch size that is not a positive integer', async () => {
    for (const batchChanges of [0, -1, 1.5, Number.NaN])
      await expect(readPlan(streamOf(planText(1)), { batchChanges, onChanges: () => {} })).rejects.toThrow(
        /batchChanges must be a positive integer/,
      );
  });
});

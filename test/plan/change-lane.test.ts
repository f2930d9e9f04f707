// The scanner's resource change lane (scripts/json-skip/changes.ts, src/plan/scanner/skip-path.ts): a change it
// reads in WebAssembly is one the JavaScript reads without error, to the same values the policy reads. So a
// plan read with the lane (ReadPlanOptions.onReducedChanges) gives the same outcome as without it: the same
// error, or the same changes in the policy's input form (those of both channels together). Property-tested on
// the reader fuzzer's plans (escapes, duplicate keys, whitespace, mutations) and on compact terraform-shaped
// plans, whole and in random chunks.
//   FC_SEED=<seed> FC_PATH=<path> npx vitest run test/plan/change-lane.test.ts   (replay a failure)
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseUntrustedJson } from '../../src/json/untrusted.js';
import type { ResourceChange } from '../../src/model/index.js';
import { ACTION_SHAPES, readPlan } from '../../src/plan/read-plan.js';
import { arrayNode, JsonScanner, objectNode } from '../../src/plan/scanner/index.js';
import { reducedInput, serializeChanges } from '../../src/policy/plan-session.js';
import { manyChangesPlanDoc, planDoc, style, toBytes } from './fuzz-json.js';
import { splitBytes } from './helpers.js';

const settings = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns: Number(process.env.FC_RUNS ?? numRuns),
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
  ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
});

/** What the policy reads of each change, as its input JSON (read back), sorted: the two channels' order differs. */
function policyInput(changes: readonly ResourceChange[], reduced: readonly Uint8Array[]): string[] {
  const read = (input: Uint8Array) =>
    (parseUntrustedJson(input) as { resource_changes: unknown[] }).resource_changes.map((c) =>
      JSON.stringify(c),
    );
  return [
    ...read(serializeChanges(changes, '{"resource_changes":')),
    ...reduced.flatMap((json) => read(reducedInput(json, '{"resource_changes":'))),
  ].sort();
}

type Outcome = { ok: true; input: string[]; laneRead: number } | { ok: false; message: string };

async function readWith(bytes: Buffer, seed: number, lane: boolean): Promise<Outcome> {
  const changes: ResourceChange[] = [];
  const reduced: Uint8Array[] = [];
  let laneRead = 0;
  const chunks = seed % 3 === 0 ? [bytes] : splitBytes(bytes, 'random', seed);
  try {
    await readPlan(
      (async function* () {
        yield* chunks;
      })(),
      {
        batchChanges: 1 + (seed % 5),
        onChanges: (batch) => changes.push(...batch),
        ...(lane
          ? {
              onReducedChanges: (json: Uint8Array, count: number) => {
                reduced.push(json);
                laneRead += count;
              },
            }
          : {}),
      },
    );
    return { ok: true, input: policyInput(changes, reduced), laneRead };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

async function sameWithLane(bytes: Buffer, seed: number): Promise<number> {
  const without = await readWith(bytes, seed, false);
  const withLane = await readWith(bytes, seed, true);
  if (without.ok && withLane.ok) {
    expect(withLane.input).toEqual(without.input);
    return withLane.laneRead;
  }
  expect(withLane).toEqual(without);
  return 0;
}

const compactChange = fc.record(
  {
    address: fc.string({ minLength: 1, maxLength: 12 }),
    mode: fc.constantFrom('managed', 'data'),
    type: fc.constantFrom('aws_sqs_queue', 'aws_s3_bucket', 'x'),
    name: fc.string({ maxLength: 6 }),
    index: fc.oneof(fc.nat(9), fc.nat(), fc.string({ maxLength: 4 })),
    provider_name: fc.string({ maxLength: 8 }),
    deposed: fc.string({ maxLength: 4 }),
    action_reason: fc.string({ maxLength: 4 }),
    change: fc.record(
      {
        actions: fc.constantFrom(...ACTION_SHAPES).map((shape) => [...shape]),
        before: fc.jsonValue({ maxDepth: 3 }),
        after: fc.jsonValue({ maxDepth: 3 }),
        importing: fc.oneof(fc.constant({ id: 'i-1' }), fc.constant({})),
      },
      { requiredKeys: ['actions'] },
    ),
  },
  { requiredKeys: ['address', 'mode', 'type', 'name', 'change'] },
);

describe('the resource change lane', () => {
  it('reads what the JavaScript reads, or leaves the change to it, for the fuzzer plans', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(planDoc, manyChangesPlanDoc), style, fc.nat(), async (doc, written, seed) => {
        await sameWithLane(toBytes(doc, written), seed);
      }),
      settings(1500),
    );
  }, 120_000);

  it('reads most changes of compact terraform JSON itself, to what the JavaScript reads', async () => {
    let read = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(compactChange, { maxLength: 20 }), fc.nat(), async (changes, seed) => {
        const plan = { format_version: '1.2', planned_values: {}, resource_changes: changes };
        read += await sameWithLane(Buffer.from(JSON.stringify(plan)), seed);
      }),
      settings(500),
    );
    // Random chunks cut most changes, and strings with control characters need \u escapes: the JavaScript
    // reads those.
    expect(read).toBeGreaterThan(300);
  }, 120_000);

  it('leaves to the JavaScript every change it would read differently, and reads the plain ones', async () => {
    const plain =
      '{"address":"a.b","mode":"managed","type":"aws_sqs_queue","name":"b","change":{"actions":["create"]}}';
    const variants = [
      plain,
      plain.replace('"a.b"', '"a.b[\\ud800]"'), // a lone surrogate escape: refused
      plain.replace('"a.b"', '"a.\\u0062"'), // an escape JSON.parse and OPA read alike
      plain.replace('"managed"', '"m\\u0061naged"'),
      plain.replace('"mode"', '"m\\u006fde"'), // an escaped key
      plain.replace('"name":"b",', '"name":"b","address":"a.c",'), // a duplicate: the last one wins
      plain.replace('"name":"b",', '"name":"b","mode":"data","mode":"managed",'),
      plain.replace('"name":"b",', '"name":"b","mode":"data",'),
      plain.replace('"name":"b",', '"name":"b","index":-1,'),
      plain.replace('"name":"b",', '"name":"b","index":1.5,'),
      plain.replace('"name":"b",', '"name":"b","index":4e0,'),
      plain.replace('"name":"b",', '"name":"b","index":12,'),
      plain.replace('"name":"b",', '"name":"b","deposed":"00a1",'),
      plain.replace('"name":"b",', '"name":"b","deposed":null,'),
      plain.replace('"name":"b",', ''), // no name
      plain.replace('"address":"a.b"', '"address":""'),
      plain.replace('["create"]', '[]'),
      plain.replace('["create"]', '["create","create"]'),
      plain.replace('["create"]', '["forget","create"]'),
      plain.replace('["create"]', '["destroy"]'),
      plain.replace('["create"]', '["create"],"importing":null'),
      plain.replace('["create"]', '["create"],"importing":{"id":"x"},"importing":{}'),
      plain.replace('["create"]', '["create"],"actions":["delete"]'),
      plain.replace('{"actions"', ' { "actions" ').replace(',"name"', ' ,\n"name" '),
    ];
    for (const item of variants) {
      const bytes = Buffer.from(`{"format_version":"1.2","resource_changes":[${plain},${item}]}`);
      for (const seed of [0, 3]) await sameWithLane(bytes, seed);
    }
    const read = await readWith(
      Buffer.from(`{"format_version":"1.2","resource_changes":[${plain}]}`),
      0,
      true,
    );
    expect(read).toMatchObject({ ok: true, laneRead: 1 });
  });

  it('keeps its output apart from a second read that runs inside the first, on the same WebAssembly', async () => {
    const change = (i: number) => ({
      address: `aws_sqs_queue.q${i}`,
      mode: 'managed',
      type: 'aws_sqs_queue',
      name: `q${i}`,
      change: { actions: ['create'] },
    });
    // Every change whose number starts with 3 has an escaped key: the JavaScript reads it, and hands on a
    // batch while the scan is under way.
    const text = JSON.stringify({
      format_version: '1.2',
      planned_values: {},
      resource_changes: Array.from({ length: 40 }, (_, i) => change(i)),
    }).replaceAll('{"address":"aws_sqs_queue.q3', '{"addr\\u0065ss":"aws_sqs_queue.q3');
    const inner: string[] = [];
    const changes: ResourceChange[] = [];
    const reduced: Uint8Array[] = [];
    await readPlan(Readable.from([Buffer.from(text)]), {
      batchChanges: 2,
      onChanges: (batch) => {
        changes.push(...batch);
        // A second scan with a lane (an array of changes), synchronously, inside the first one's write.
        const nested: Uint8Array[] = [];
        const item = objectNode('a change', {});
        const scanner = new JsonScanner(
          arrayNode('changes', item, undefined, () => {}),
          {},
          {
            lane: { item, batch: 2, take: (json) => nested.push(json) },
          },
        );
        scanner.write(Buffer.from(JSON.stringify(Array.from({ length: 6 }, (_, i) => change(1000 + i)))));
        scanner.end();
        inner.push(...policyInput([], nested));
      },
      onReducedChanges: (json) => reduced.push(json),
    });
    const outer = policyInput(changes, reduced);
    expect(changes.length).toBeGreaterThan(2);
    expect(outer).toHaveLength(40);
    expect(outer.filter((input) => /q\d{1,2}"/.test(input))).toHaveLength(40);
    expect(inner.length).toBeGreaterThan(6);
    expect(inner.every((input) => /q100\d"/.test(input))).toBe(true);
  });
});

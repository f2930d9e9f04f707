// A plan file read in two parts (src/plan/split-read.ts) reads exactly what one read does: the same plan, the
// same resource changes in the same order (the main part's, then the run's), or the same error, wherever the
// run is guessed to start. Property-tested on the reader fuzzer's plans (fuzz-json.ts: escapes, duplicate keys,
// whitespace, mutations), with the run started at any byte, and often right after a comma before a brace,
// where a real run starts; and on compact terraform-shaped plans, where findResourceChangeRun's guess is used.
//   FC_SEED=<seed> FC_PATH=<path> npx vitest run test/plan/split-read.test.ts   (replay a failure)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResourceChange } from '../../src/model/index.js';
import { ACTION_SHAPES, readPlan } from '../../src/plan/read-plan.js';
import {
  findResourceChangeRun,
  readPlanAroundRun,
  readResourceChangeRun,
} from '../../src/plan/split-read.js';
import { manyChangesPlanDoc, planDoc, style, toBytes } from './fuzz-json.js';
import { streamOf } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tfgate-split-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const settings = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns: Number(process.env.FC_RUNS ?? numRuns),
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
  ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
});

type Read = { ok: true; plan: unknown; changes: ResourceChange[] } | { ok: false; message: string };

async function oneRead(bytes: Buffer): Promise<Read> {
  const changes: ResourceChange[] = [];
  try {
    const plan = await readPlan(streamOf(bytes), { onChanges: (b) => changes.push(...b), batchChanges: 3 });
    return { ok: true, plan, changes };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

let files = 0;

/** Both parts, the run's reader first (as when it ends before the main reader gets there). */
async function twoParts(bytes: Buffer, runStart: number): Promise<Read & { runRead?: boolean }> {
  const path = join(dir, `plan-${files++}.json`);
  writeFileSync(path, bytes);
  const run: ResourceChange[] = [];
  const closeAt = await readResourceChangeRun(path, runStart, (b) => run.push(...b), 2).catch(
    () => undefined,
  );
  const changes: ResourceChange[] = [];
  try {
    const { plan, runRead } = await readPlanAroundRun(path, runStart, async () => closeAt, {
      onChanges: (b) => changes.push(...b),
      batchChanges: 3,
      description: 'the plan JSON',
    });
    return { ok: true, plan, changes: runRead ? [...changes, ...run] : changes, runRead };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  } finally {
    rmSync(path);
  }
}

/**
 * Offsets after a comma between two items of the root's "resource_changes" array (a key written with escapes too),
 * before or after the whitespace that follows it: where a run can start. A sketch of the structure for the
 * test's picks only: whatever it gets wrong, the property must hold.
 */
function itemStarts(bytes: Buffer): number[] {
  const keyText = (token: string): string => {
    try {
      return String(JSON.parse(token));
    } catch {
      return '';
    }
  };
  const starts: number[] = [];
  let depth = 0;
  let inString = false;
  let stringStart = 0;
  let lastRootKey = '';
  let inChanges = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) {
        inString = false;
        if (depth === 1) lastRootKey = keyText(bytes.toString('utf8', stringStart, i + 1));
      }
    } else if (c === 0x22) {
      inString = true;
      stringStart = i;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth === 2 && c === 0x5b && lastRootKey === 'resource_changes') inChanges = true;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 2) inChanges = false;
      depth--;
    } else if (c === 0x2c && depth === 2 && inChanges) {
      let at = i + 1;
      starts.push(at);
      while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x0a)) at++;
      if (at > i + 1) starts.push(at);
    }
  }
  return starts;
}

describe('a plan read in two parts', () => {
  it('reads what one read reads, or fails as it does, wherever the run starts', async () => {
    let splits = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(planDoc, manyChangesPlanDoc),
        style,
        fc.nat(),
        fc.boolean(),
        async (doc, written, pick, atItem) => {
          const bytes = toBytes(doc, written);
          const starts = itemStarts(bytes);
          const runStart =
            atItem && starts.length > 0 ? starts[pick % starts.length]! : pick % (bytes.length + 1);
          const expected = await oneRead(bytes);
          const actual = await twoParts(bytes, runStart);
          if (actual.ok && actual.runRead) splits++;
          const { runRead: _, ...read } = actual;
          expect(read).toEqual(expected);
        },
      ),
      settings(400),
    );
    // The property is about the two-part read: most runs that could start where they were put did.
    expect(splits).toBeGreaterThan(8);
  }, 120_000);

  it('reads compact terraform JSON in two parts wherever findResourceChangeRun starts the run', async () => {
    const change = fc.record(
      {
        address: fc.string({ minLength: 1, maxLength: 12 }),
        mode: fc.constantFrom('managed', 'data'),
        type: fc.constantFrom('aws_sqs_queue', 'aws_s3_bucket', 'examplecorp_widget'),
        name: fc.string({ maxLength: 6 }),
        index: fc.oneof(fc.nat(9), fc.string({ maxLength: 4 })),
        deposed: fc.string({ maxLength: 4 }),
        change: fc.record(
          {
            actions: fc.constantFrom(...ACTION_SHAPES).map((shape) => [...shape]),
            before: fc.jsonValue({ maxDepth: 3 }),
            after: fc.jsonValue({ maxDepth: 3 }),
            importing: fc.constant({ id: 'i-1' }),
          },
          { requiredKeys: ['actions'] },
        ),
      },
      { requiredKeys: ['address', 'mode', 'type', 'name', 'change'] },
    );
    const plan = fc.record({
      format_version: fc.constant('1.2'),
      planned_values: fc.jsonValue({ maxDepth: 3 }),
      resource_changes: fc.array(change, { minLength: 2, maxLength: 30 }),
      prior_state: fc.jsonValue({ maxDepth: 3 }),
    });
    let splits = 0;
    await fc.assert(
      fc.asyncProperty(plan, fc.double({ min: 0, max: 1, noNaN: true }), async (value, fraction) => {
        const bytes = Buffer.from(JSON.stringify(value));
        const path = join(dir, `terraform-${files++}.json`);
        writeFileSync(path, bytes);
        const runStart = await findResourceChangeRun(path, fraction);
        rmSync(path);
        if (runStart === undefined) return;
        const expected = await oneRead(bytes);
        const actual = await twoParts(bytes, runStart);
        // A guess on the bytes only: a run may start in a change's values (an object with an address and a
        // change); then one part reads it all, as it must.
        if (expected.ok && actual.runRead) splits++;
        const { runRead: _, ...read } = actual;
        expect(read).toEqual(expected);
      }),
      settings(200),
    );
    expect(splits).toBeGreaterThan(40);
  }, 120_000);

  it('finds where a run of resource changes starts in compact terraform JSON, past planned_values', async () => {
    const resource = (i: number) =>
      `{"address":"aws_sqs_queue.q${i}","mode":"managed","type":"aws_sqs_queue","name":"q${i}","values":{"change":1}}`;
    const change = (i: number) =>
      `{"address":"aws_sqs_queue.q${i}","mode":"managed","type":"aws_sqs_queue","name":"q${i}","change":{"actions":["create"],"after":{"x":"},{\\"address\\":\\""}}}`;
    const list = (item: (i: number) => string) => Array.from({ length: 400 }, (_, i) => item(i)).join(',');
    const bytes = Buffer.from(
      `{"format_version":"1.2","planned_values":{"root_module":{"resources":[${list(resource)}]}},"resource_changes":[${list(change)}],"prior_state":{"values":{"root_module":{"resources":[${list(resource)}]}}}}`,
    );
    const path = join(dir, 'compact.json');
    writeFileSync(path, bytes);
    // From the start of the file: planned_values' resources have no change, so the first run start is the
    // second resource change (the first follows the bracket, not a comma).
    const first = await findResourceChangeRun(path, 0);
    expect(bytes.subarray(first!, first! + 40).toString()).toContain('"address":"aws_sqs_queue.q1"');
    expect(bytes.toString('latin1', first! - 2, first!)).toBe('},');
    expect(first!).toBeGreaterThan(bytes.indexOf('"resource_changes"'));
    // Past the resource changes (prior_state's resources have none): no run start.
    expect(await findResourceChangeRun(path, 0.9)).toBeUndefined();
    const actual = await twoParts(bytes, first!);
    expect(actual.runRead).toBe(true);
    const { runRead: _, ...read } = actual;
    expect(read).toEqual(await oneRead(bytes));
    rmSync(path);
  });
});

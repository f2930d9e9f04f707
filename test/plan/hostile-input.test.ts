// Regression tests of issue 8, defect 1 ("one reading of JSON"): each input here was read differently by
// the plan or state reader than by JSON.parse, or made it grow without bound. The differential property
// tests (reader-differential.test.ts) generate thousands more; these name each hole.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidPlanError } from '../../src/errors/index.js';
import { readPlan } from '../../src/plan/read-plan.js';
import { readObservedState } from '../../src/plan/read-state.js';
import { JsonScanError, JsonScanner, SKIP, valueNode } from '../../src/plan/scanner/index.js';
import { CHUNKINGS, type Chunking, streamOf } from './helpers.js';
import { escapeEvery, escapeKey, hiddenChangesPlan, hiddenModulesState } from './hostile.js';
import { parseJson } from './json-reference.js';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');
const DESTROY = JSON.stringify(JSON.parse(fixture('plans/destroy.json')));
const STATE = JSON.stringify(JSON.parse(fixture('states/destroy.json')));

/** The resource changes JSON.parse reads (json-reference.ts: keys with escapes read correctly on any Node). */
const changesOf = (text: string) => (parseJson(text) as { resource_changes: unknown[] }).resource_changes;

/** What the rules see of a plan, taken from JSON.parse: the reader must give exactly this. */
function planFields(text: string) {
  const plan = parseJson(text) as Record<string, unknown> & { resource_changes?: Record<string, unknown>[] };
  const pick = (from: Record<string, unknown>, keys: string[]) =>
    Object.fromEntries(keys.filter((k) => k in from).map((k) => [k, from[k]]));
  return {
    ...pick(plan, ['format_version', 'terraform_version']),
    resource_changes: (plan.resource_changes ?? []).map((rc: Record<string, unknown>) => ({
      ...pick(rc, ['address', 'module_address', 'mode', 'type', 'name', 'index', 'provider_name']),
      ...pick(rc, ['deposed', 'previous_address']),
      change: pick(rc.change as Record<string, unknown>, ['actions', 'importing']),
    })),
  };
}

const read = (text: string | Buffer, chunking: Chunking = 'whole', seed = 1) =>
  readPlan(streamOf(text, chunking, seed), { description: 'plan.json' });

async function refusal(promise: Promise<unknown>): Promise<InvalidPlanError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'refused').toBeInstanceOf(InvalidPlanError);
  expect((error as InvalidPlanError).exitCode).toBe(4);
  return error as InvalidPlanError;
}

/** The text cut in two at every byte near `near` (the hostile part), and at its ends. */
async function everyCut(
  text: string | Buffer,
  near: number,
  check: (chunks: Buffer[]) => Promise<void>,
): Promise<void> {
  const bytes = Buffer.from(text);
  const cuts = [0, bytes.length];
  for (let cut = Math.max(1, near - 8); cut < Math.min(bytes.length, near + 48); cut++) cuts.push(cut);
  for (const cut of cuts) await check([bytes.subarray(0, cut), bytes.subarray(cut)]);
}

async function* chunks(parts: Buffer[]) {
  for (const part of parts) yield part;
}

describe('keys are compared after unescaping', () => {
  it('reads resource_changes written with \\u escapes only (a deletion was hidden: 96 bytes of key)', async () => {
    const hidden = escapeKey(DESTROY, 'resource_changes');
    expect(changesOf(hidden).length).toBe(4);
    for (const chunking of CHUNKINGS) {
      const plan = await read(hidden, chunking);
      expect(plan).toEqual(planFields(DESTROY));
      expect(plan.resource_changes.map((rc) => rc.change.actions)).toContainEqual(['delete']);
    }
  });

  it('reads every kept key escaped, at every level, as JSON.parse does', async () => {
    const names = ['format_version', 'terraform_version', 'address', 'mode', 'type', 'name', 'change'];
    let text = DESTROY;
    for (const name of [...names, 'actions', 'provider_name']) text = escapeKey(text, name);
    expect(await read(text, 'random')).toEqual(planFields(DESTROY));
  });

  it('resolves a decoy before an escaped duplicate as JSON.parse does: the last one wins', async () => {
    const hidden = hiddenChangesPlan(DESTROY);
    expect(changesOf(hidden).length).toBe(4);
    expect(await read(hidden, 'random')).toEqual(planFields(hidden));
    // And the other way round: the escaped key first, the plain one last.
    const reversed = DESTROY.replace(
      '"resource_changes":',
      `"${escapeEvery('resource_changes')}":[],"resource_changes":`,
    );
    expect(await read(reversed)).toEqual(planFields(reversed));
  });

  it('reads escaped keys of a state, nested modules included', async () => {
    let text = STATE;
    for (const name of ['values', 'root_module', 'resources', 'address', 'mode', 'type', 'name'])
      text = escapeKey(text, name);
    const expected = await readObservedState(streamOf(STATE));
    expect(expected.resources.length).toBeGreaterThan(0);
    for (const chunking of CHUNKINGS)
      expect(await readObservedState(streamOf(text, chunking))).toEqual(expected);
    const hidden = hiddenModulesState(STATE);
    expect(await readObservedState(streamOf(hidden, 'random'))).toEqual(expected);
  });

  it('reads escaped keys right where JSON.parse does not (Node 24 and 26: nodejs/node#63785)', async () => {
    JSON.parse('{"h":[],"\\\\":0,"importin\\\\":1}'); // leaves "\\" and "importin\\" in V8's key cache
    const text = DESTROY.replace('"actions":["delete"]', '"actions":["delete"],"importin\\u0067":{"\\"":1}');
    const importing = (await read(text)).resource_changes[0]!.change.importing;
    expect(importing).toEqual({ '"': 1 });
    expect(parseJson(text)).toEqual(
      JSON.parse(DESTROY.replace('"actions":["delete"]', '"actions":["delete"],"importing":{"\\"":1}')),
    );
  });

  it('skips a key too long to be a field, but still validates it', async () => {
    const long = `"${'k'.repeat(500)}\\u00e9":1,`;
    const text = DESTROY.replace('"format_version"', `${long}"format_version"`);
    expect(await read(text, 'random')).toEqual(planFields(DESTROY));
    await refusal(read(DESTROY.replace('"format_version"', `"${'k'.repeat(500)}\\q":1,"format_version"`)));
  });
});

describe('duplicate keys: the last one wins, at every level the reader keeps', () => {
  const firstChange = DESTROY.indexOf('"change":');

  it('a replaced value that breaks the schema does not count (it did: the first one refused the plan)', async () => {
    const cases = [
      DESTROY.replace('"mode":"managed"', '"mode":"bogus","mode":"managed"'),
      DESTROY.replace('"actions":["delete"]', '"actions":["explode"],"actions":["delete"]'),
      DESTROY.replace('"actions":["delete"]', '"actions":{"x":1},"actions":["delete"]'),
      DESTROY.replace('"resource_changes":', '"resource_changes":"none","resource_changes":'),
      DESTROY.replace('"format_version":"1.2"', '"format_version":7,"format_version":"1.2"'),
      `${DESTROY.slice(0, firstChange)}"change":{},${DESTROY.slice(firstChange)}`,
      `${DESTROY.slice(0, firstChange)}"change":{"actions":["delete"],"importing":[]},${DESTROY.slice(firstChange)}`,
    ];
    for (const text of cases) {
      expect(changesOf(text).length, text.slice(0, 80)).toBe(4);
      expect(await read(text, 'random'), text.slice(0, 200)).toEqual(planFields(DESTROY));
    }
  });

  it('a later value that breaks the schema is refused, whatever came before', async () => {
    await refusal(read(DESTROY.replace('"mode":"managed"', '"mode":"managed","mode":"bogus"')));
    await refusal(read(DESTROY.replace('"actions":["delete"]', '"actions":["delete"],"actions":[]')));
    const text = DESTROY.replace(/\}$/, ',"resource_changes":{"a":1}}');
    const error = await refusal(read(text));
    expect(error.message).toMatch(/expected an array of resource changes, found an object/);
    expect(error.details?.path).toBe('$.resource_changes');
    expect(error.details?.offset).toBe(text.length - 8);
  });

  it('a kept container replaced by another value: the last one is read', async () => {
    const noop = DESTROY.replace('"actions":["delete"]', '"actions":["delete"],"actions":["no-op"]');
    expect((await read(noop)).resource_changes[0]!.change.actions).toEqual(['no-op']);
    const emptied = DESTROY.replace(/\}$/, ',"resource_changes":[]}');
    expect((await read(emptied)).resource_changes).toEqual([]);
    const importing = DESTROY.replace(
      '"actions":["delete"]',
      '"actions":["delete"],"importing":{"id":{"a":[1]},"id":"x","__proto__":{"y":2}}',
    );
    expect(await read(importing, 'random')).toEqual(planFields(importing));
    const own = (await read(importing)).resource_changes[0]!.change.importing as object;
    expect(Object.getPrototypeOf(own)).toBe(Object.prototype);
    expect(Object.keys(own)).toEqual(['id', '__proto__']);
  });
});

describe('strings are validated where they are skipped, too', () => {
  const before = DESTROY.indexOf('"before":{') + '"before":{'.length;
  const inSkipped = (member: string) => `${DESTROY.slice(0, before)}${member},${DESTROY.slice(before)}`;

  it('refuses what JSON.parse refuses: raw control characters and bad escapes (they were accepted)', async () => {
    for (const member of [
      '"k":"a\nb"',
      '"k":"a\u0000b"',
      '"k":"\\x41"',
      '"k":"\\u00G1"',
      '"k\\a":1',
      '"k":"\\',
      // Long enough for the long-string path, a control character at each offset of an 8-byte step.
      ...[16, 17, 20, 23, 24, 31, 40].map((at) => `"k":"${'a'.repeat(at)}\t${'b'.repeat(30)}"`),
    ]) {
      const text = inSkipped(member);
      expect(() => JSON.parse(text), member).toThrow();
      const error = await refusal(read(text, 'random'));
      expect(error.message, member).toMatch(/inside (a string|\$\.resource_changes\[0\]\.change\.before)/);
      await everyCut(text, before, async (parts) => void (await refusal(readPlan(chunks(parts)))));
    }
  });

  it('accepts every valid escape cut at every byte, and a lone surrogate where nothing reads it', async () => {
    const text = inSkipped('"k\\"\\\\":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\\ud800"');
    const expected = planFields(text);
    await everyCut(text, before, async (parts) => expect(await readPlan(chunks(parts))).toEqual(expected));
  });

  it('refuses invalid UTF-8 anywhere, cut at every byte (it was accepted in skipped strings)', async () => {
    const at = Buffer.from(DESTROY).indexOf('"before":{') + '"before":{'.length;
    for (const bad of [
      [0xc3, 0x28],
      [0x80],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf5, 0x80, 0x80, 0x80],
      [0xe2, 0x82],
    ]) {
      const bytes = Buffer.concat([
        Buffer.from(DESTROY).subarray(0, at),
        Buffer.from('"k":"a'),
        Buffer.from(bad),
        Buffer.from('b",'),
        Buffer.from(DESTROY).subarray(at),
      ]);
      expect(() => JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))).toThrow();
      const error = await refusal(read(bytes));
      expect(error.message).toMatch(/invalid UTF-8 inside a string/);
      expect(error.details?.offset).toBe(at + 6);
      await everyCut(bytes, at, async (parts) => void (await refusal(readPlan(chunks(parts)))));
    }
    const valid = inSkipped('"k":"é日😀"');
    await everyCut(valid, before, async (parts) =>
      expect(await readPlan(chunks(parts))).toEqual(planFields(valid)),
    );
    // A sequence cut off by the end of the input.
    await refusal(read(Buffer.concat([Buffer.from(DESTROY), Buffer.from([0xe2, 0x82])])));
  });

  it('refuses a lone surrogate escape in a kept string (JSON.parse keeps it, OPA reads U+FFFD)', async () => {
    const text = DESTROY.replace('"type":"aws_db_instance"', '"type":"aws_db_instance\\ud800"');
    expect(JSON.parse(text).resource_changes[0].type).toBe('aws_db_instance\ud800');
    const error = await refusal(read(text, 'random'));
    expect(error.message).toMatch(/an unpaired surrogate \(U\+D[89A-F][0-9A-F]{2},/);
    expect(error.details?.path).toBe('$.resource_changes[0].type');
    const pair = DESTROY.replace('"type":"aws_db_instance"', '"type":"aws_db_instance\\uD83D\\uDE00"');
    expect(await read(pair, 'random')).toEqual(planFields(pair));
    // The same with non-ASCII text beside the escape (the fast path decodes UTF-8 there), in every chunking.
    const wide = DESTROY.replace('"type":"aws_db_instance"', '"type":"aws_db_instance_é日😀\\ud800"');
    for (const chunking of ['whole', 'bytes', 'random'] as const) {
      const refused = await refusal(read(wide, chunking));
      expect(refused.details?.path).toBe('$.resource_changes[0].type');
      expect(refused.message).toMatch(/an unpaired surrogate \(U\+D800,/);
    }
    const widePair = DESTROY.replace(
      '"type":"aws_db_instance"',
      '"type":"aws_db_instance_é日😀\\uD83D\\uDE00\\"\\u00e9"',
    );
    for (const chunking of ['whole', 'bytes', 'random'] as const)
      expect(await read(widePair, chunking)).toEqual(planFields(widePair));
    expect((planFields(widePair).resource_changes[0] as Record<string, unknown>).type).toBe(
      'aws_db_instance_é日😀😀"é',
    );
  });
});

describe('numbers are read as JSON.parse reads them', () => {
  it('-0 stays -0, 1e400 is Infinity (no count index), and a skipped number of any length is read in passing', async () => {
    const minusZero = DESTROY.replace('"mode":"managed"', '"index":-0,"mode":"managed"');
    expect(Object.is(JSON.parse(minusZero).resource_changes[0].index, -0)).toBe(true);
    expect(Object.is((await read(minusZero)).resource_changes[0]!.index, -0)).toBe(true);
    const infinite = DESTROY.replace('"mode":"managed"', '"index":1e400,"mode":"managed"');
    expect(JSON.parse(infinite).resource_changes[0].index).toBe(Number.POSITIVE_INFINITY);
    const error = await refusal(read(infinite));
    expect(error.message).toMatch(/expected a string or a non-negative integer, found a number/);
    const before = DESTROY.indexOf('"before":{') + '"before":{'.length;
    const long = `${DESTROY.slice(0, before)}"n":-${'9'.repeat(200_000)}.5e-99999,${DESTROY.slice(before)}`;
    expect(await read(long, 'random')).toEqual(planFields(long));
  });
});

describe('every growth path is bounded while it grows', () => {
  function feedUntilRefused(scanner: JsonScanner, head: string, unit: string, units: number): number {
    scanner.write(Buffer.from(head));
    const chunk = Buffer.from(unit.repeat(Math.ceil(4096 / unit.length)));
    for (let fed = 0; fed < units; fed += chunk.length) {
      try {
        scanner.write(chunk);
      } catch (error) {
        expect(error).toBeInstanceOf(JsonScanError);
        return scanner.bytes;
      }
    }
    throw new Error('never refused');
  }

  it('a kept number of a million digits is refused after about 1 KB (it was held whole first)', () => {
    const bytes = feedUntilRefused(new JsonScanner(valueNode()), '[', '1', 1_000_000);
    expect(bytes).toBeLessThan(8192);
  });

  it('a chain of long keys inside a kept value is refused at its size cap (keys were never counted)', () => {
    const scanner = new JsonScanner(valueNode(), { maxValueBytes: 64 * 1024 });
    const bytes = feedUntilRefused(scanner, '', `{"${'k'.repeat(1000)}":`, 8_000_000);
    expect(bytes).toBeLessThan(64 * 1024 + 8192);
  });

  it('a kept string built from escapes counts its raw bytes', () => {
    const scanner = new JsonScanner(valueNode(), { maxStringBytes: 64 * 1024 });
    const bytes = feedUntilRefused(scanner, '"', '\\u0061', 1_000_000);
    expect(bytes).toBeLessThan(64 * 1024 + 8192);
  });

  it('a skipped string of escapes and deep skipped nesting stay refused or constant', () => {
    const scanner = new JsonScanner(SKIP);
    scanner.write(Buffer.from('["'));
    for (let c = 0; c < 256; c++) scanner.write(Buffer.from('\\u00e9'.repeat(10_000)));
    scanner.write(Buffer.from('"]'));
    expect(scanner.end()).toBeUndefined();
    expect(() => new JsonScanner(SKIP).write(Buffer.from('{"a":'.repeat(20_000)))).toThrow(/nesting deeper/);
  });
});

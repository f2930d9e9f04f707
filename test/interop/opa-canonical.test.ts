// The canonical digest of structured files against the real opa: `opa sign` hashes every data.json of a
// directory, and tfgate's streaming renderer must give the same digest for each, on hand-picked edge cases
// (key order, escapes, surrogates, numbers, duplicate keys) and on generated JSON written every way it can be.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJsonDigest } from '../../src/policy/bundle/canonical-json.js';
import { generateTestKeys } from '../policy/bundle-fixtures.js';
import { jsonTextArb } from '../policy/fuzz/arbitraries.js';

let dir: string;
let keyPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-opa-canonical-'));
  keyPath = join(dir, 'signing.pem');
  await writeFile(keyPath, generateTestKeys().privatePem);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Each text as <n>/data.json of one directory, signed by opa: the digest opa gives each, by index. */
async function opaDigests(name: string, texts: readonly string[]): Promise<string[]> {
  const bundleDir = join(dir, name);
  await Promise.all(
    texts.map(async (text, i) => {
      await mkdir(join(bundleDir, String(i)), { recursive: true });
      await writeFile(join(bundleDir, String(i), 'data.json'), text);
    }),
  );
  await execa('opa', ['sign', '--signing-key', keyPath, '--bundle', '.'], { cwd: bundleDir });
  const { signatures } = JSON.parse(await readFile(join(bundleDir, '.signatures.json'), 'utf8'));
  const payload = JSON.parse(Buffer.from(signatures[0].split('.')[1], 'base64url').toString('utf8'));
  const byName = new Map<string, string>(
    payload.files.map((f: { name: string; hash: string }) => [f.name.replace(/^\//, ''), f.hash]),
  );
  return texts.map((_, i) => byName.get(`${i}/data.json`) ?? 'missing');
}

const ours = (text: string) => canonicalJsonDigest(Buffer.from(text, 'utf8')).toString('hex');

const EDGE_CASES = [
  // key order: byte-wise on UTF-8, where UTF-16 order differs (U+FFFF sorts before U+1F600 in UTF-8 only)
  '{"b":1,"a":2,"B":3,"é":4,"\uffff":5,"😀":6,"\ue000":7,"":8}',
  // escapes, written and unwritten the same way
  '{"\\u0061":"\\u00e9\\u00E9\\/\\b\\f\\n\\r\\t\\"\\\\","a2":"é/"}',
  '{"sep":"\u2028\u2029","esc":"\\u2028\\u2029","html":"<&>","del":"\u007f","ctl":"\\u0001\\u001f\\u0000"}',
  // surrogates: escaped pairs, and lone ones, which Go reads as U+FFFD (keys then collide: the last wins)
  '{"pair":"\\ud83d\\ude00","lone":"\\ud800","low":"x\\udc00y","rev":"\\ude00\\ud83d"}',
  '{"\\ud800":1,"\\udc00":2,"\\ufffd":3,"\\udbff":4}',
  // numbers: kept as written
  '[0,-0,1.50,1e3,1E+3,1e-3,0.1e-7,-12.0,1e400,123456789012345678901234567890,1.0000000000000000000001]',
  // duplicate keys: the last wins, whatever order and escapes they come in
  '{"a":1,"b":{"x":1,"x":[2]},"a":{"c":3},"\\u0061":4}',
  // whitespace everywhere, a byte order mark, empty containers, deep-ish nesting
  '\ufeff \t\r\n{ "a" : [ { } , [ ] , "" , [[[[[[[[[[{"z":null,"y":true,"x":false}]]]]]]]]]] ] }\n',
];

describe('tfgate hashes structured files exactly as opa does', () => {
  it('on edge cases opa accepts: key order, escapes, surrogates, numbers, duplicate keys, whitespace', async () => {
    const theirs = await opaDigests('edge', EDGE_CASES);
    expect(EDGE_CASES.map(ours)).toEqual(theirs);
  });

  it('on generated JSON written every way JSON allows (fast-check; the seed is in the failure message)', async () => {
    const seed = process.env.TFGATE_FUZZ_SEED ? Number(process.env.TFGATE_FUZZ_SEED) : Date.now() % 2 ** 31;
    const texts = fc.sample(jsonTextArb, { seed, numRuns: 400 });
    const theirs = await opaDigests('generated', texts);
    const mismatches = texts.filter((text, i) => ours(text) !== theirs[i]);
    expect(mismatches, `seed ${seed}: tfgate and opa disagree on these documents`).toEqual([]);
  });
});

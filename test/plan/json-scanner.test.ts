import { describe, expect, it } from 'vitest';
import {
  JsonScanError,
  JsonScanner,
  objectNode,
  type SchemaNode,
  SKIP,
  valueNode,
} from '../../src/plan/scanner/index.js';
import { CHUNKINGS, type Chunking, splitBytes } from './helpers.js';

function scan(text: string | Buffer, root: SchemaNode, chunking: Chunking = 'whole', seed = 1): unknown {
  const scanner = new JsonScanner(root);
  for (const chunk of splitBytes(Buffer.from(text), chunking, seed)) scanner.write(chunk);
  return scanner.end();
}

function scanError(text: string | Buffer, root: SchemaNode, chunking: Chunking = 'whole'): JsonScanError {
  try {
    scan(text, root, chunking);
  } catch (error) {
    if (error instanceof JsonScanError) return error;
    throw error;
  }
  throw new Error(`accepted: ${String(text).slice(0, 80)}`);
}

const KEEP_ALL = valueNode();

const VALID = [
  '{}',
  '[]',
  '0',
  '-0',
  '12.5e-3',
  '1E+2',
  '-0.0e0',
  'true',
  'false',
  'null',
  '""',
  '"a\\"b\\\\"',
  '"\\u00e9\\ud83d\\ude00 \\n\\t\\/"',
  '" ünï 日本 😀 "',
  ' \n\t\r{ "a" : [ 1 , 2.0 , { } , [ ] , "x" , null , true , false ] } \n',
  '{"a":{"b":{"c":[[[["deep"]]]]}},"":"empty key","\\"k\\"":1}',
  '[1,-2,3e10,0.5,-0.25E-2,123456789012345678901234567890]',
  '{"dup":1,"dup":2}',
  '["\\\\","\\\\\\\\","\\\\\\"","x\\\\"]',
];

const INVALID = [
  '',
  '   ',
  '{',
  '[',
  '{"a"',
  '{"a":',
  '{"a":1',
  '{"a":1,',
  '{"a":1,}',
  '[1,]',
  '[,1]',
  '{,}',
  '{"a" 1}',
  '{"a":1 "b":2}',
  '{a:1}',
  "{'a':1}",
  '[1 2]',
  '{"a":1}}',
  '[1]]',
  '{"a":1]',
  '[1}',
  '{}{}',
  '{} x',
  '01',
  '-',
  '1.',
  '.5',
  '1e',
  '1e+',
  '+1',
  '-a',
  '0x10',
  'tru',
  'truex',
  'nul',
  'NULL',
  'True',
  '"abc',
  '"abc\\"',
  '["a"',
  '[nan]',
  '[Infinity]',
  '{"a":-}',
  '{"a":[1,2,}',
];

describe('JsonScanner validation agrees with JSON.parse', () => {
  for (const chunking of CHUNKINGS) {
    it(`accepts valid JSON and keeps exactly what JSON.parse gives (${chunking} chunks)`, () => {
      for (const text of VALID) {
        expect(scan(text, KEEP_ALL, chunking), text).toEqual(JSON.parse(text));
        expect(() => scan(text, SKIP, chunking), text).not.toThrow();
      }
    });

    it(`rejects invalid JSON whether kept or skipped (${chunking} chunks)`, () => {
      for (const text of INVALID) {
        expect(() => JSON.parse(text), `JSON.parse should reject ${text}`).toThrow();
        expect(() => scan(text, KEEP_ALL, chunking), text).toThrow(JsonScanError);
        expect(() => scan(text, SKIP, chunking), text).toThrow(JsonScanError);
        // Nested inside a skipped object member, too.
        const nested = `{"skip":${text}`;
        if (!text.trim()) continue;
        expect(() => scan(`${nested}}`, SKIP, chunking), nested).toThrow(JsonScanError);
      }
    });
  }

  it('validates control characters, escapes and UTF-8 in kept strings', () => {
    for (const bad of ['"a\nb"', '"tab\there"', '"\\x41"', '"\\u12"', '"\\ud83d\\u"']) {
      expect(() => JSON.parse(bad), bad).toThrow();
      expect(() => scan(bad, KEEP_ALL), bad).toThrow(JsonScanError);
    }
    expect(() => scan(Buffer.from([0x22, 0xc3, 0x28, 0x22]), KEEP_ALL)).toThrow(/invalid UTF-8/);
    expect(() => scan(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), KEEP_ALL)).toThrow(/invalid UTF-8/);
  });

  it('validates skipped strings as strictly as kept ones (JSON.parse refuses these)', () => {
    for (const bad of ['{"secret":"line1\nline2"}', '{"s":"\\x41"}', '{"s\\q":1}', '{"s":"\\u12G4"}']) {
      expect(() => JSON.parse(bad), bad).toThrow();
      for (const chunking of CHUNKINGS) expect(() => scan(bad, SKIP, chunking), bad).toThrow(JsonScanError);
    }
  });

  it('reports byte offsets: where the bad byte is, or where the input ended', () => {
    expect(scanError('{"a":1 "b":2}', SKIP).offset).toBe(7);
    expect(scanError('{"a":[1,2,}', SKIP).offset).toBe(10);
    expect(scanError('{"a":tru}', SKIP).offset).toBe(8);
    expect(scanError('{"a":01}', SKIP).reason).toMatch(/leading zeros/);
    expect(scanError('{"a":[1,2', SKIP).offset).toBe(9);
    expect(scanError('{"a":[1,2', SKIP).reason).toMatch(/unexpected end of input/);
    expect(scanError('{"a":"abc', SKIP).reason).toMatch(/string that starts at byte 5 is not terminated/);
    expect(scanError('{} x', SKIP).offset).toBe(3);
    expect(scanError('', SKIP).reason).toMatch(/empty input/);
  });

  it('resumes every token across chunk boundaries at every split point', () => {
    const text = '{"k\\"ey":["v\\\\",-12.5e+3,true,false,null,"é日😀",{"x":[0]}],"z":"\\u00e9"}';
    const expected = JSON.parse(text);
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      for (const root of [KEEP_ALL, SKIP]) {
        const scanner = new JsonScanner(root);
        scanner.write(bytes.subarray(0, cut));
        scanner.write(bytes.subarray(cut));
        const result = scanner.end();
        if (root === KEEP_ALL) expect(result, `cut at ${cut}`).toEqual(expected);
      }
    }
  });

  it('tracks backslash runs across chunks in skipped strings', () => {
    // The chunk boundary falls inside runs of backslashes before quotes, at every position.
    const text = `{"a":"${'\\\\'.repeat(5)}\\"${'\\\\'.repeat(3)}","b":"ok"}`;
    expect(JSON.parse(text).b).toBe('ok');
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const scanner = new JsonScanner(SKIP);
      scanner.write(bytes.subarray(0, cut));
      scanner.write(bytes.subarray(cut));
      expect(() => scanner.end(), `cut at ${cut}`).not.toThrow();
    }
  });

  it('caps nesting depth with a clear error instead of exhausting memory', () => {
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    expect(scanError(deep, SKIP).reason).toMatch(/nesting deeper than 10000/);
  });

  it('skips a 64 MB string in 1024 chunks without rescanning it (quadratic work would time out)', () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    // Some chunks end inside an escape: its state must carry over to the next chunk.
    const escaped = Buffer.from(chunk);
    escaped.write('\\u00', escaped.length - 4, 'latin1');
    const afterEscape = Buffer.from(chunk);
    afterEscape.write('e9', 0, 'latin1');
    const scanner = new JsonScanner(objectNode('an object', { after: valueNode() }));
    scanner.write(Buffer.from('{"values":"'));
    for (let c = 0; c < 1024; c++) scanner.write(c % 4 === 0 ? escaped : c % 4 === 1 ? afterEscape : chunk);
    scanner.write(Buffer.from('","after":1}'));
    expect(scanner.end()).toEqual({ after: 1 });
  });
});

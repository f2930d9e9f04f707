// The scanner's WebAssembly skip path (scripts/json-skip/skip.ts, src/plan/scanner/wasm-skip.ts): its bytes are
// those the pinned AssemblyScript compiles from the committed source, and the scanner decides exactly as with
// the JavaScript skip path alone: the same kept value, or the same error at the same byte and path, for any
// generated JSON (escapes, numbers, literals, deep nesting, mutations: control characters, bad escapes,
// truncation) cut into chunks of any size.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSkipWasm } from '../../scripts/json-skip.mjs';
import {
  JsonScanError,
  JsonScanner,
  objectNode,
  type SchemaNode,
  SKIP,
  valueNode,
} from '../../src/plan/scanner/index.js';
import { SKIP_WASM_BASE64, SKIP_WASM_SOURCE_SHA256 } from '../../src/plan/scanner/skip-wasm.js';
import { checkSharedConstants } from '../../src/plan/scanner/wasm-skip.js';
import { anyDoc, planDoc, style, toBytes } from './fuzz-json.js';
import { splitBytes } from './helpers.js';

interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Global: new (descriptor: { value: 'i32' }, value: number) => { value: number };
}

describe('the committed WebAssembly', () => {
  it('is refused when a layout or grammar constant differs from the one the JavaScript writes and reads', () => {
    // Node's WebAssembly, which the project's TypeScript libraries do not describe.
    const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
    const { exports: constants } = new wasm.Instance(
      new wasm.Module(Buffer.from(SKIP_WASM_BASE64, 'base64')),
      {},
    );
    expect(() => checkSharedConstants(constants)).not.toThrow();
    for (const name of ['OUT', 'STATE', 'S_AFTER']) {
      const moved = { ...constants, [name]: new wasm.Global({ value: 'i32' }, 12_345) };
      expect(() => checkSharedConstants(moved), name).toThrow(`the skip module's ${name} is 12345`);
    }
    const { OUT_BYTES: _missing, ...without } = constants;
    expect(() => checkSharedConstants(without)).toThrow("the skip module's OUT_BYTES is undefined");
  });

  it('is what the pinned compiler makes of the committed source', async () => {
    const { sourceSha256, bytes } = await compileSkipWasm();
    expect(SKIP_WASM_SOURCE_SHA256, 'run node scripts/json-skip.mjs').toBe(sourceSha256);
    expect(SKIP_WASM_BASE64, 'run node scripts/json-skip.mjs').toBe(bytes.toString('base64'));
  }, 60_000);
});

type Outcome = { value: unknown } | { error: string };

function scan(bytes: Buffer, root: SchemaNode, seed: number, javascriptSkipOnly: boolean): Outcome {
  const scanner = new JsonScanner(root, {}, { javascriptSkipOnly });
  try {
    const chunks = seed % 3 === 0 ? [bytes] : splitBytes(bytes, 'random', seed);
    for (const chunk of chunks) scanner.write(chunk);
    return { value: scanner.end() };
  } catch (error) {
    if (!(error instanceof JsonScanError)) throw error;
    return { error: `${error.reason} at byte ${error.offset} (${error.path}, exact ${error.exact})` };
  }
}

// A document's root kept, one field descended into, everything else skipped: skips start at several depths.
const someKept = objectNode('an object', { resource_changes: valueNode(), k: valueNode() });

describe('the WebAssembly skip path', () => {
  it('decides as the JavaScript skip path does, whole or in chunks, for any JSON and mutations of it', () => {
    fc.assert(
      fc.property(fc.oneof(anyDoc, planDoc), style, fc.nat(), (doc, written, seed) => {
        const bytes = toBytes(doc, written);
        for (const root of [SKIP, someKept]) {
          expect(scan(bytes, root, seed, false)).toEqual(scan(bytes, root, seed, true));
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 3000) },
    );
  });

  it('agrees at the nesting limit, on long strings and on a skipped chunk larger than its memory', () => {
    const deep = (levels: number) => Buffer.from(`{"x":${'['.repeat(levels)}${']'.repeat(levels)}}`);
    const long = Buffer.from(`{"x":["${'a\\u00e9\\n'.repeat(300_000)}", 1e5, -0.5, true, false, null]}`);
    const cases: Array<[string, Buffer]> = [
      ['at the limit', deep(9_999)],
      ['past the limit', deep(10_000)],
      ['past the module stack', deep(20_000)],
      ['a long string', long],
      [
        'a long string with a control character',
        Buffer.concat([long.subarray(0, 1_500_000), Buffer.from('\u0001'), long.subarray(1_500_000)]),
      ],
    ];
    for (const [name, bytes] of cases) {
      for (const seed of [0, 1]) {
        const limits = name === 'past the module stack' ? { maxDepth: 30_000 } : {};
        const outcome = (javascriptSkipOnly: boolean) => {
          const scanner = new JsonScanner(SKIP, limits, { javascriptSkipOnly });
          try {
            for (const chunk of seed === 0 ? [bytes] : splitBytes(bytes, 'random', seed))
              scanner.write(chunk);
            return { value: scanner.end() };
          } catch (error) {
            return { error: (error as Error).message };
          }
        };
        expect(outcome(false), name).toEqual(outcome(true));
      }
    }
  });
});

// The skip path in WebAssembly (scripts/json-skip/skip.ts, compiled into skip-wasm.ts): a chunk's skipped
// territory validated about three times as fast as in JavaScript (SIMD over string bodies), measured on the
// 147 MB plan of bench/gen-plan; and its resource change lane (scripts/json-skip/changes.ts), which reads a
// resource change whole and writes the policy's input for it. One instance per thread; its memory holds one
// chunk at a time, copied in by the scan that asks (skip-path.ts), so scanners that take turns on a thread
// each get their own bytes back, and the lane's output, which a scanner empties before control leaves it.
import * as alphabet from './bytes.js';
import { SKIP_WASM_BASE64 } from './skip-wasm.js';

/** The largest chunk the module takes (JsonScanner.write cuts larger ones). */
export const WASM_CHUNK_BYTES = 1 << 20;
/** Nesting levels the module's stack holds; deeper, the JavaScript skips. */
export const WASM_STACK_LEVELS = 16384;
// The memory's layout, as common.ts has it: the chunk, the state (three i32), the container types by depth, the
// lane's output.
const STATE = WASM_CHUNK_BYTES;
const STACK = WASM_CHUNK_BYTES + 64;
const OUT = 17 << 16;
export const LANE_OUT_BYTES = 2 << 16;
/** What the lane returns when the JavaScript must read the change itself. */
export const LANE_BAIL = 0xffffffff;

export interface SkipWasm {
  /** Skip from `from` in the chunk's first `n` bytes: where it stopped; the depth and state there in `state`. */
  skip(from: number, n: number, depth: number, kept: number, st: number, maxDepth: number): number;
  /**
   * Read the resource change whose `{` is at `from`, at nesting `depth` inside it: the index after it, its
   * policy input appended to `out` (state[2] bytes so far); or LANE_BAIL, nothing written.
   */
  change(from: number, n: number, depth: number, maxDepth: number): number;
  chunk: Uint8Array;
  /** [depth, grammar state] after skip(); [2]: the bytes of `out` written. */
  state: Int32Array;
  out: Uint8Array;
  /** The scanner whose lane output is in `out`. */
  outOwner: object | undefined;
  /** Container types by depth. */
  stack: Uint8Array;
  /** The scan whose chunk is in memory (SkipPath numbers them). */
  loaded: number;
}

// The tsconfig has no DOM lib and @types/node declares no WebAssembly global: type what is used.
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (
    module: object,
    imports: object,
  ) => {
    exports: {
      skip: SkipWasm['skip'];
      change: SkipWasm['change'];
      memory: { buffer: ArrayBuffer };
    } & Record<string, unknown>;
  };
}

/** The module's layout and grammar constants (scripts/json-skip/common.ts) that this side writes and reads. */
const SHARED_CONSTANTS: Record<string, number> = {
  CHUNK_BYTES: WASM_CHUNK_BYTES,
  STATE,
  STACK,
  STACK_BYTES: WASM_STACK_LEVELS,
  OUT,
  OUT_BYTES: LANE_OUT_BYTES,
  S_VALUE: alphabet.S_VALUE,
  S_ARR_FIRST: alphabet.S_ARR_FIRST,
  S_OBJ_FIRST: alphabet.S_OBJ_FIRST,
  S_KEY: alphabet.S_KEY,
  S_COLON: alphabet.S_COLON,
  S_AFTER: alphabet.S_AFTER,
  S_DONE: alphabet.S_DONE,
  OBJ: alphabet.OBJ,
  ARR: alphabet.ARR,
};

/** A module built from other constants than this file's would misread every chunk: refuse it (a defect). */
export function checkSharedConstants(exports: Record<string, unknown>): void {
  for (const [name, expected] of Object.entries(SHARED_CONSTANTS)) {
    const actual = (exports[name] as { value?: unknown } | undefined)?.value;
    if (actual !== expected) {
      throw new Error(`the skip module's ${name} is ${String(actual)}, wasm-skip.ts expects ${expected}`);
    }
  }
}

let instance: SkipWasm | undefined;

/** This thread's instance, made on first use (compiling 9 KB takes well under a millisecond). */
export function skipWasm(): SkipWasm {
  if (instance) return instance;
  const api = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const { exports } = new api.Instance(new api.Module(Buffer.from(SKIP_WASM_BASE64, 'base64')), {});
  checkSharedConstants(exports);
  const buffer = exports.memory.buffer;
  instance = {
    skip: exports.skip,
    change: exports.change,
    chunk: new Uint8Array(buffer, 0, WASM_CHUNK_BYTES),
    state: new Int32Array(buffer, STATE, 3),
    stack: new Uint8Array(buffer, STACK, WASM_STACK_LEVELS),
    out: new Uint8Array(buffer, OUT, LANE_OUT_BYTES),
    outOwner: undefined,
    loaded: 0,
  };
  return instance;
}

// The skip path in WebAssembly (scripts/json-skip/skip.ts, compiled into skip-wasm.ts): a chunk's skipped
// territory validated about three times as fast as in JavaScript (SIMD over string bodies), measured on the
// 147 MB plan of bench/gen-plan. One instance per thread; its memory holds one chunk at a time, copied in by
// the scan that asks (skip-path.ts), so scanners that take turns on a thread each get their own bytes back.
import { SKIP_WASM_BASE64 } from './skip-wasm.js';

/** The largest chunk the module takes (JsonScanner.write cuts larger ones). */
export const WASM_CHUNK_BYTES = 1 << 20;
/** Nesting levels the module's stack holds; deeper, the JavaScript skips. */
export const WASM_STACK_LEVELS = 16384;
// The memory's layout, as skip.ts has it: the chunk, the state (two i32), the container types by depth.
const STATE = WASM_CHUNK_BYTES;
const STACK = WASM_CHUNK_BYTES + 64;

export interface SkipWasm {
  /** Skip from `from` in the chunk's first `n` bytes: where it stopped; the depth and state there in `state`. */
  skip(from: number, n: number, depth: number, kept: number, st: number, maxDepth: number): number;
  chunk: Uint8Array;
  /** [depth, grammar state] after skip(). */
  state: Int32Array;
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
    exports: { skip: SkipWasm['skip']; memory: { buffer: ArrayBuffer } };
  };
}

let instance: SkipWasm | undefined;

/** This thread's instance, made on first use (compiling 1.5 KB takes well under a millisecond). */
export function skipWasm(): SkipWasm {
  if (instance) return instance;
  const api = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const { exports } = new api.Instance(new api.Module(Buffer.from(SKIP_WASM_BASE64, 'base64')), {});
  const buffer = exports.memory.buffer;
  instance = {
    skip: exports.skip,
    chunk: new Uint8Array(buffer, 0, WASM_CHUNK_BYTES),
    state: new Int32Array(buffer, STATE, 2),
    stack: new Uint8Array(buffer, STACK, WASM_STACK_LEVELS),
    loaded: 0,
  };
  return instance;
}

// The plan scanner's skip path in WebAssembly (AssemblyScript), compiled with the rest of this folder (index.ts)
// by scripts/json-skip.mjs into src/plan/scanner/skip-wasm.ts. It validates skipped territory as src/plan/scanner/skip-path.ts does, and
// stops, leaving the rest to that JavaScript, wherever anything is not plainly valid and complete in the
// chunk: an error to describe, a token cut by the chunk's end, the nesting limit. So it never decides alone
// that input is invalid, and accepts exactly what the JavaScript accepts. Memory layout: common.ts.
import {
  ARR,
  isDigit,
  isSpace,
  numberEnd,
  OBJ,
  S_AFTER,
  S_ARR_FIRST,
  S_COLON,
  S_DONE,
  S_KEY,
  S_OBJ_FIRST,
  S_VALUE,
  STACK,
  STACK_BYTES,
  STATE,
  stringEnd,
} from './common';

/**
 * Skip from `from` in the chunk's first `n` bytes, in grammar state `st` at nesting `depth` (the types of the
 * levels from `kept` up are at STACK), until the nesting is back to `kept`, the chunk ends, or the JavaScript
 * must take over. Returns where it stopped; the state there is at STATE. The nesting limit is `maxDepth`.
 */
export function skip(from: u32, n: u32, depth: u32, kept: u32, st: u32, maxDepth: u32): u32 {
  let i = from;
  while (i < n) {
    const c = <u32>load<u8>(i);
    if (c <= 0x20 && isSpace(c)) {
      i++;
      continue;
    }
    if (st === S_AFTER) {
      if (c === 0x2c) {
        st = <u32>load<u8>(STACK + depth - 1) === OBJ ? S_KEY : S_VALUE;
        i++;
        continue;
      }
    } else if (st === S_KEY || st === S_OBJ_FIRST) {
      if (c === 0x22) {
        const q = stringEnd(i + 1, n);
        if (q < 0) break;
        // Compact JSON: the colon usually follows the key at once.
        if (<u32>q + 1 < n && <u32>load<u8>(<u32>q + 1) === 0x3a) {
          st = S_VALUE;
          i = <u32>q + 2;
        } else {
          st = S_COLON;
          i = <u32>q + 1;
        }
        continue;
      }
    } else if (st === S_COLON) {
      if (c === 0x3a) {
        st = S_VALUE;
        i++;
        continue;
      }
    } else {
      // S_VALUE or S_ARR_FIRST
      if (c === 0x22) {
        const q = stringEnd(i + 1, n);
        if (q < 0) break;
        st = S_AFTER;
        i = <u32>q + 1;
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (depth >= maxDepth || depth >= STACK_BYTES) break;
        store<u8>(STACK + depth, c === 0x7b ? OBJ : ARR);
        depth++;
        st = c === 0x7b ? S_OBJ_FIRST : S_ARR_FIRST;
        i++;
        continue;
      }
      if (c === 0x2d || isDigit(c)) {
        const end = numberEnd(i, n);
        if (end < 0) break;
        st = S_AFTER;
        i = <u32>end;
        continue;
      }
      if (c === 0x74 || c === 0x6e) {
        // true, null
        if (i + 4 > n || load<u32>(i) !== (c === 0x74 ? 0x65757274 : 0x6c6c756e)) break;
        st = S_AFTER;
        i += 4;
        continue;
      }
      if (c === 0x66) {
        // false
        if (i + 5 > n || load<u32>(i + 1) !== 0x65736c61) break;
        st = S_AFTER;
        i += 5;
        continue;
      }
    }
    // A closing bracket where one may come: the container ends, and maybe the skipped territory with it.
    if (
      c === 0x7d
        ? st === S_OBJ_FIRST || (st === S_AFTER && <u32>load<u8>(STACK + depth - 1) === OBJ)
        : c === 0x5d && (st === S_ARR_FIRST || (st === S_AFTER && <u32>load<u8>(STACK + depth - 1) === ARR))
    ) {
      depth--;
      i++;
      if (depth === kept) {
        st = depth === 0 ? S_DONE : S_AFTER;
        break;
      }
      st = S_AFTER;
      continue;
    }
    // Anything else is an error: the JavaScript describes it.
    break;
  }
  store<u32>(STATE, depth);
  store<u32>(STATE + 4, st);
  return i;
}

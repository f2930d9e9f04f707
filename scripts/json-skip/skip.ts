// The plan scanner's skip path in WebAssembly (AssemblyScript), compiled by scripts/json-skip.mjs into
// src/plan/scanner/skip-wasm.ts. It validates skipped territory as src/plan/scanner/skip-path.ts does, and
// stops, leaving the rest to that JavaScript, wherever anything is not plainly valid and complete in the
// chunk: an error to describe, a token cut by the chunk's end, the nesting limit. So it never decides alone
// that input is invalid, and accepts exactly what the JavaScript accepts.
//
// Memory: the chunk at [0, CHUNK_BYTES); the state (depth, grammar state) as two i32 at STATE; the container
// types (1 object, 2 array) by depth at STACK, up to STACK_BYTES levels. Grammar states as in bytes.ts.

const CHUNK_BYTES: u32 = 1 << 20;
const STATE: u32 = CHUNK_BYTES;
const STACK: u32 = CHUNK_BYTES + 64;
const STACK_BYTES: u32 = 16384;

const S_VALUE: u32 = 0;
const S_ARR_FIRST: u32 = 1;
const S_OBJ_FIRST: u32 = 2;
const S_KEY: u32 = 3;
const S_COLON: u32 = 4;
const S_AFTER: u32 = 5;
const S_DONE: u32 = 6;
const OBJ: u32 = 1;
const ARR: u32 = 2;

function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

function isHex(c: u32): bool {
  return c - 0x30 < 10 || (c | 0x20) - 0x61 < 6;
}

/**
 * The index of the quote that closes a string whose body starts at `from`, or -1 when the JavaScript must take
 * over: the chunk ends first, or there is something to report (a raw control character, an invalid escape, an
 * escape within the chunk's last five bytes). Sixteen bytes a step while none is a quote, a backslash or a
 * control character.
 */
function stringEnd(from: u32, n: u32): i32 {
  let i = from;
  const quote = i8x16.splat(0x22);
  const backslash = i8x16.splat(0x5c);
  const space = i8x16.splat(0x20);
  while (i < n) {
    while (i + 16 <= n) {
      const v = v128.load(i);
      const special = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_u(v, space));
      const bits = i8x16.bitmask(special);
      if (bits !== 0) {
        i += ctz(bits);
        break;
      }
      i += 16;
    }
    // A special byte at i, or fewer than sixteen bytes left: byte by byte to the next special one.
    while (i < n) {
      const c = <u32>load<u8>(i);
      if (c === 0x22 || c === 0x5c || c < 0x20) break;
      i++;
    }
    if (i >= n) return -1;
    const c = <u32>load<u8>(i);
    if (c === 0x22) return i;
    if (c !== 0x5c || i + 5 >= n) return -1;
    const e = <u32>load<u8>(i + 1);
    if (
      e === 0x22 ||
      e === 0x5c ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    ) {
      i += 2;
    } else if (
      e === 0x75 &&
      isHex(<u32>load<u8>(i + 2)) &&
      isHex(<u32>load<u8>(i + 3)) &&
      isHex(<u32>load<u8>(i + 4)) &&
      isHex(<u32>load<u8>(i + 5))
    ) {
      i += 6;
    } else {
      return -1;
    }
  }
  return -1;
}

/** Index just past a valid number starting at `i`, or -1 when it is invalid or reaches the chunk's end. */
function numberEnd(from: u32, n: u32): i32 {
  let i = from;
  let c = <u32>load<u8>(i);
  if (c === 0x2d) {
    if (++i >= n) return -1;
    c = <u32>load<u8>(i);
  }
  if (c === 0x30) {
    i++;
  } else if (c - 0x31 < 9) {
    i++;
    while (i < n && isDigit(<u32>load<u8>(i))) i++;
  } else {
    return -1;
  }
  if (i >= n) return -1;
  c = <u32>load<u8>(i);
  if (c === 0x2e) {
    const digits = ++i;
    while (i < n && isDigit(<u32>load<u8>(i))) i++;
    if (i === digits || i >= n) return -1;
    c = <u32>load<u8>(i);
  }
  if (c === 0x65 || c === 0x45) {
    if (++i >= n) return -1;
    c = <u32>load<u8>(i);
    if (c === 0x2b || c === 0x2d) i++;
    const digits = i;
    while (i < n && isDigit(<u32>load<u8>(i))) i++;
    if (i === digits || i >= n) return -1;
    c = <u32>load<u8>(i);
  }
  // A digit right after a leading zero is an error the JavaScript reports.
  return isDigit(c) ? -1 : i;
}

/**
 * Skip from `from` in the chunk's first `n` bytes, in grammar state `st` at nesting `depth` (the types of the
 * levels from `kept` up are at STACK), until the nesting is back to `kept`, the chunk ends, or the JavaScript
 * must take over. Returns where it stopped; the state there is at STATE. The nesting limit is `maxDepth`.
 */
export function skip(from: u32, n: u32, depth: u32, kept: u32, st: u32, maxDepth: u32): u32 {
  let i = from;
  while (i < n) {
    const c = <u32>load<u8>(i);
    if (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) {
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

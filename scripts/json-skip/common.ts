// What the skip path (skip.ts) and the resource change lane (changes.ts) share: the memory's layout, the
// grammar states (as in src/plan/scanner/bytes.ts), and the string and number loops.
//
// Memory: the chunk at [0, CHUNK_BYTES); the state (depth, grammar state, output position) as i32 at STATE;
// the container types (1 object, 2 array) by depth at STACK, up to STACK_BYTES levels; the lane's output at
// OUT, OUT_BYTES long; then, from page 19, the module's static data (scripts/json-skip.mjs: --memoryBase), where
// no JavaScript writes.

export const CHUNK_BYTES: u32 = 1 << 20;
export const STATE: u32 = CHUNK_BYTES;
export const STACK: u32 = CHUNK_BYTES + 64;
export const STACK_BYTES: u32 = 16384;
export const OUT: u32 = 17 << 16;
export const OUT_BYTES: u32 = 2 << 16;

export const S_VALUE: u32 = 0;
export const S_ARR_FIRST: u32 = 1;
export const S_OBJ_FIRST: u32 = 2;
export const S_KEY: u32 = 3;
export const S_COLON: u32 = 4;
export const S_AFTER: u32 = 5;
export const S_DONE: u32 = 6;
export const OBJ: u32 = 1;
export const ARR: u32 = 2;

export function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

export function isHex(c: u32): bool {
  return c - 0x30 < 10 || (c | 0x20) - 0x61 < 6;
}

/** JSON's whitespace: space, line feed, carriage return, tab. */
export function isSpace(c: u32): bool {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The byte after a backslash in a two-byte escape: " \ / b f n r t. */
export function isSimpleEscape(e: u32): bool {
  return (
    e === 0x22 ||
    e === 0x5c ||
    e === 0x2f ||
    e === 0x62 ||
    e === 0x66 ||
    e === 0x6e ||
    e === 0x72 ||
    e === 0x74
  );
}

/**
 * The index of the quote that closes a string whose body starts at `from`, or -1 when the JavaScript must take
 * over: the chunk ends first, or there is something to report (a raw control character, an invalid escape, an
 * escape within the chunk's last five bytes). Sixteen bytes a step while none is a quote, a backslash or a
 * control character.
 */
export function stringEnd(from: u32, n: u32): i32 {
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
    if (isSimpleEscape(e)) {
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
export function numberEnd(from: u32, n: u32): i32 {
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

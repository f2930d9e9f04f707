// The scanner's alphabet: grammar and token states, byte tables, and the pure byte-level functions (number
// and string ends) that the skip path runs in its hot loop with its state in registers.
// Grammar states.
export const S_VALUE = 0; // a value must follow (top level, after ':', after ',' in an array)
export const S_ARR_FIRST = 1; // after '[': a value or ']'
export const S_OBJ_FIRST = 2; // after '{': a key or '}'
export const S_KEY = 3; // after ',' in an object: a key
export const S_COLON = 4; // after a key
export const S_AFTER = 5; // after a value: ',' or the closing bracket
export const S_DONE = 6; // after the top-level value: only whitespace
// Token states (a token may span chunks).
export const S_STRING = 7;
export const S_NUMBER = 8;
export const S_LITERAL = 9;

// What a string in progress is for.
export const STR_SKIP = 0; // skipped value or key
export const STR_VALUE = 1; // kept value
export const STR_KEY = 2; // key of a kept generic object
export const STR_FIELD = 3; // key of a schema object: compared against its fields, skipped when too long

// Escape state of a string in progress, carried across chunks.
export const ESC_NONE = 0;
// 1-4: that many hex digits of a \uXXXX escape are still expected.
export const ESC_BACKSLASH = 5; // after a backslash

// Number states: see https://www.json.org (minus, int, frac, exp).
export const N_MINUS = 1;
export const N_ZERO = 2;
export const N_INT = 3;
export const N_DOT = 4;
export const N_FRAC = 5;
export const N_E = 6;
export const N_ESIGN = 7;
export const N_EXP = 8;

// Container types on the nesting stack.
export const OBJ = 1;
export const ARR = 2;

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;

export const LITERALS: Record<number, { text: string; bytes: Uint8Array; value: boolean | null }> = {
  116: { text: 'true', bytes: Buffer.from('true'), value: true },
  102: { text: 'false', bytes: Buffer.from('false'), value: false },
  110: { text: 'null', bytes: Buffer.from('null'), value: null },
};

/** Bytes that end the fast loop over a string body: a quote, a backslash, a raw control character. */
export const STRING_SPECIAL = new Uint8Array(256);
STRING_SPECIAL.fill(1, 0, 0x20);
STRING_SPECIAL[QUOTE] = 1;
STRING_SPECIAL[BACKSLASH] = 1;
/** The characters after a backslash that make a one-character escape. */
export const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;
export const HEX_DIGIT = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX_DIGIT[c.charCodeAt(0)] = 1;
/** A lone surrogate (in `u` mode, a valid pair is one code point and does not match). */
export const LONE_SURROGATE = /\p{Cs}/u;

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Whether a byte can start a JSON value. */
export function startsValue(c: number): boolean {
  return c === 0x7b || c === 0x5b || c === QUOTE || c === 0x2d || isDigit(c) || c in LITERALS;
}

/**
 * Index just past a valid number starting at buf[i], or -1 when it is invalid or reaches the chunk's end
 * (the general number code then reports the error or resumes across the chunk).
 */
export function numberEnd(buf: Buffer, i: number): number {
  const n = buf.length;
  let c = buf[i]!;
  if (c === 0x2d) {
    if (++i >= n) return -1;
    c = buf[i]!;
  }
  if (c === 0x30) {
    i++;
  } else if (c >= 0x31 && c <= 0x39) {
    i++;
    while (i < n && isDigit(buf[i]!)) i++;
  } else {
    return -1;
  }
  if (i >= n) return -1;
  c = buf[i]!;
  if (c === 0x2e) {
    const digits = ++i;
    while (i < n && isDigit(buf[i]!)) i++;
    if (i === digits || i >= n) return -1;
    c = buf[i]!;
  }
  if (c === 0x65 || c === 0x45) {
    if (++i >= n) return -1;
    c = buf[i]!;
    if (c === 0x2b || c === 0x2d) i++;
    const digits = i;
    while (i < n && isDigit(buf[i]!)) i++;
    if (i === digits || i >= n) return -1;
    c = buf[i]!;
  }
  // A digit right after a leading zero is an error the general code reports.
  return isDigit(c) ? -1 : i;
}

/**
 * The skip path's string loop: the index of the quote that closes a string whose body starts at
 * buf[from], validated on the way (escapes; raw control characters), or -1 when the stateful loop must
 * take over: the chunk ends first, or there is something to report. A pure function, so the hot loop
 * keeps its state in registers. Four bytes a step while none is special: measured (Node 20, 22, 26) as
 * fast as finding the quote with indexOf and looking at the backslashes before it, which validated nothing.
 */
export function stringEnd(buf: Buffer, from: number): number {
  const n = buf.length;
  const special = STRING_SPECIAL;
  let i = from;
  while (
    i + 3 < n &&
    (special[buf[i]!]! | special[buf[i + 1]!]! | special[buf[i + 2]!]! | special[buf[i + 3]!]!) === 0
  )
    i += 4;
  // A special byte among the next four, or the chunk's last few bytes.
  for (; i < n; i++) {
    const c = buf[i]!;
    if (special[c] !== 0) return c === QUOTE ? i : escapedStringEnd(buf, i);
  }
  return -1;
}

/** stringEnd for a body with escapes (or a control character): a byte loop that validates each escape. */
function escapedStringEnd(buf: Buffer, from: number): number {
  const n = buf.length;
  for (let i = from; i < n; i++) {
    const c = buf[i]!;
    if (STRING_SPECIAL[c] === 0) continue;
    if (c === QUOTE) return i;
    if (c !== BACKSLASH || i + 5 >= n) return -1;
    const e = buf[i + 1]!;
    if (SIMPLE_ESCAPE[e] === 1) {
      i++;
    } else if (
      e === 0x75 &&
      (HEX_DIGIT[buf[i + 2]!]! &
        HEX_DIGIT[buf[i + 3]!]! &
        HEX_DIGIT[buf[i + 4]!]! &
        HEX_DIGIT[buf[i + 5]!]!) ===
        1
    ) {
      i += 5;
    } else {
      return -1;
    }
  }
  return -1;
}

interface Latin1Buffer {
  latin1Slice(start: number, end: number): string;
}
const hasLatin1Slice =
  typeof (Buffer.prototype as unknown as Partial<Latin1Buffer>).latin1Slice === 'function';

/** buf[start, end) as a string of bytes (ASCII here). latin1Slice skips toString's argument handling. */
export function latin1(buf: Buffer, start: number, end: number): string {
  return hasLatin1Slice
    ? (buf as unknown as Latin1Buffer).latin1Slice(start, end)
    : buf.toString('latin1', start, end);
}

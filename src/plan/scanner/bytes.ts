// The scanner's alphabet: grammar and token states and byte tables, shared by the tokenizer, the skip path
// and the scanner. Modules with hot loops copy what they compare with into module-local constants: V8 folds a
// module's own constants into optimized code but loads imported ones from their cells at every use
// (measured on the plan-reader benchmark: about 10% of the reader's CPU).
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

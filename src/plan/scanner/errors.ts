// What the scanner says when it refuses input: the error, and the plain-words descriptions of bytes and of
// what the grammar expected, shared by the general loop and the skip path so both say the same thing.
import * as alphabet from './bytes.js';

/** Where and why the scan failed. `path` is the deepest JSON path known (skipped keys are not read). */
export class JsonScanError extends Error {
  override readonly name = 'JsonScanError';
  constructor(
    readonly reason: string,
    readonly offset: number,
    readonly path: string | undefined,
    /** True when the path points at the value itself, false when the error is somewhere inside it. */
    readonly exact: boolean,
    /** Set when the problem is an unpaired surrogate escape: the code unit, e.g. "D800". */
    readonly loneSurrogate?: string,
  ) {
    super(`${reason} at byte ${offset}${path ? ` (${exact ? '' : 'inside '}${shownPath(path)})` : ''}`);
  }
}

/** A path as a message shows it: whole up to 240 characters, else its two ends (10,000 levels of `[0]` are 30 KB). */
function shownPath(path: string): string {
  if (path.length <= 240) return path;
  // Cut at the steps' starts, so no step shows half of itself.
  const head = path.slice(0, 120);
  const tail = path.slice(-100);
  const tailStart = tail.search(/[.[]/);
  return `${head.slice(0, Math.max(head.lastIndexOf('['), head.lastIndexOf('.'), 1))}…${tailStart < 0 ? tail : tail.slice(tailStart)}`;
}

/**
 * A schema problem held back until its container closes. Its path is relative to the frame holding it and
 * grows by one segment per level as it is passed up, so holding many problems costs no path walks.
 */
export interface HeldProblem {
  readonly reason: string;
  readonly offset: number;
  readonly at: string;
  /** An unpaired surrogate escape's code unit ("D800"), so callers need not read the English reason. */
  readonly loneSurrogate?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One step of a JSON path: `.name`, or `["odd name"]`. */
export function keySegment(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

export function describeByte(c: number): string {
  if (c === 0x22) return `'"'`;
  if (c >= 0x21 && c <= 0x7e) return `'${String.fromCharCode(c)}'`;
  if (c === 0x00) return 'a NUL byte (is the file UTF-16 encoded? write it as UTF-8)';
  return `byte 0x${c.toString(16).padStart(2, '0')}`;
}

export function describeValueStart(c: number): string {
  if (c === 0x7b) return 'an object';
  if (c === 0x5b) return 'an array';
  if (c === alphabet.QUOTE) return 'a string';
  if (c === 0x2d || alphabet.isDigit(c)) return 'a number';
  if (c === 0x74 || c === 0x66) return 'a boolean';
  if (c === 0x6e) return 'null';
  return describeByte(c);
}

/**
 * Why byte `c` cannot come next in grammar state `st` (`top` is the innermost container's type): the one
 * wording of every syntax error between tokens.
 */
export function unexpectedByte(st: number, top: number | undefined, c: number): string {
  switch (st) {
    case alphabet.S_AFTER:
      return top === alphabet.OBJ
        ? `expected ',' or '}' after an object member, found ${describeByte(c)}`
        : `expected ',' or ']' after an array element, found ${describeByte(c)}`;
    case alphabet.S_OBJ_FIRST:
      return `expected '"' (an object key) or '}', found ${describeByte(c)}`;
    case alphabet.S_KEY:
      return `expected '"' (an object key) after ',', found ${describeByte(c)}`;
    case alphabet.S_COLON:
      return `expected ':' after an object key, found ${describeByte(c)}`;
    case alphabet.S_DONE:
      return `unexpected data after the end of the JSON document: ${describeByte(c)}`;
    default:
      return `expected a JSON value, found ${describeByte(c)}`;
  }
}

/** What the grammar expected when the input ended in state `st`. */
export function expectedAtEnd(st: number, top: number | undefined): string {
  switch (st) {
    case alphabet.S_VALUE:
      return 'expected a value';
    case alphabet.S_ARR_FIRST:
      return "expected a value or ']'";
    case alphabet.S_OBJ_FIRST:
      return "expected an object key or '}'";
    case alphabet.S_KEY:
      return 'expected an object key';
    case alphabet.S_COLON:
      return "expected ':'";
    case alphabet.S_AFTER:
      return top === alphabet.OBJ ? "expected ',' or '}'" : "expected ',' or ']'";
    default:
      return 'expected more input';
  }
}

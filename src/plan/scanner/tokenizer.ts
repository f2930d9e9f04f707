// The tokenizer: the nesting stack, the grammar state, and the tokens (strings, numbers, literals) as
// resumable state machines, so any token may be split across chunks. What a token is for (kept or skipped,
// and where a kept one goes) is the scanner's (scanner.ts); the skip path (skip-path.ts) is its fast loop.
import * as alphabet from './bytes.js';
import { describeByte, expectedAtEnd, JsonScanError, keySegment, unexpectedByte } from './errors.js';
import {
  DEFAULT_LIMITS,
  type Frame,
  MAX_NUMBER_CHARS,
  type ScannerLimits,
  type SchemaNode,
  SKIP,
} from './schema.js';

// Module-local copies (see bytes.ts).
const {
  BACKSLASH,
  ESC_BACKSLASH,
  ESC_NONE,
  HEX_DIGIT,
  LITERALS,
  N_DOT,
  N_E,
  N_ESIGN,
  N_EXP,
  N_FRAC,
  N_INT,
  N_MINUS,
  N_ZERO,
  QUOTE,
  S_AFTER,
  S_DONE,
  S_LITERAL,
  S_NUMBER,
  S_STRING,
  S_VALUE,
  SIMPLE_ESCAPE,
  STR_SKIP,
  STRING_SPECIAL,
} = alphabet;

export abstract class Tokenizer {
  protected readonly limits: ScannerLimits;

  /** Container types (OBJ, ARR) of the nesting stack, kept or skipped. */
  protected types = new Uint8Array(64);
  protected depth = 0;
  /** Frames of the kept containers: the first frames.length levels of the stack; deeper ones are skipped. */
  protected readonly frames: Frame[] = [];
  protected st = S_VALUE;
  /** Absolute offset of the current chunk's first byte. */
  protected base = 0;

  // String in progress.
  protected strMode = STR_SKIP;
  protected strStart = 0; // absolute offset of the opening quote
  protected strEsc = ESC_NONE;
  protected strParts: Buffer[] = [];
  protected strLen = 0;
  protected strIsKey = false;
  protected strNode: SchemaNode = SKIP;

  // Number in progress.
  protected numState = 0;
  protected numStart = 0;
  protected numText = '';
  protected numNode: SchemaNode = SKIP;

  // Literal in progress.
  protected litFirst = 0;
  protected litPos = 0;
  protected litStart = 0;
  protected litNode: SchemaNode = SKIP;

  constructor(limits: Partial<ScannerLimits>) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** A kept token (node is not SKIP) is complete: check it and attach it to its parent. */
  protected abstract deliver(value: unknown, node: SchemaNode, start: number, end: number): void;
  /** A string ended at buf[q]; text is undefined when it was skipped. */
  protected abstract completeString(text: string | undefined, q: number): void;
  /** Scan a kept string's body from buf[i], keeping its bytes: the index after its quote, or -1. */
  protected abstract captureString(buf: Buffer, i: number): number;

  protected push(type: number, at: number): void {
    const depth = this.depth;
    if (depth >= this.limits.maxDepth)
      this.fail(`nesting deeper than ${this.limits.maxDepth} levels is not accepted`, at);
    if (depth === this.types.length) {
      const grown = new Uint8Array(this.types.length * 2);
      grown.set(this.types);
      this.types = grown;
    }
    this.types[depth] = type;
    this.depth = depth + 1;
  }

  /** The state after a value: the document's end at the top level, else ',' or a closing bracket. */
  protected afterValue(): number {
    return this.depth === 0 ? S_DONE : S_AFTER;
  }

  // ---- strings --------------------------------------------------------------------------------------

  protected beginString(mode: number, at: number, node: SchemaNode, isKey: boolean): void {
    this.st = S_STRING;
    this.strMode = mode;
    this.strStart = at;
    this.strEsc = ESC_NONE;
    this.strLen = 0;
    if (this.strParts.length > 0) this.strParts = [];
    this.strIsKey = isKey;
    this.strNode = node;
  }

  /** Scan a string body from buf[i]. Returns the index after the closing quote, or -1 at the chunk's end. */
  protected continueString(buf: Buffer, i: number): number {
    if (this.strMode === STR_SKIP) return this.skipString(buf, i);
    return this.captureString(buf, i);
  }

  protected skipString(buf: Buffer, i: number): number {
    const q = this.scanString(buf, i);
    if (q < 0) return -1;
    this.completeString(undefined, q);
    return q + 1;
  }

  /**
   * The string loop with state, for kept strings and whatever stringEnd leaves: validates escapes and
   * refuses raw control characters (UTF-8 is validated per chunk), and finds the closing quote. Returns the
   * quote's index, or -1 at the chunk's end with the escape state saved in strEsc.
   */
  protected scanString(buf: Buffer, i: number): number {
    const n = buf.length;
    if (this.strEsc !== ESC_NONE) {
      i = this.resumeEscape(buf, i);
      if (i < 0) return -1;
    }
    for (; i < n; i++) {
      const c = buf[i]!;
      if (STRING_SPECIAL[c] === 0) continue;
      if (c === QUOTE) return i;
      if (c === BACKSLASH) {
        this.strEsc = ESC_BACKSLASH;
        i = this.resumeEscape(buf, i + 1);
        if (i < 0) return -1;
        i--; // the loop's i++
        continue;
      }
      this.fail(`control character ${describeByte(c)} inside a string: it must be escaped`, this.base + i);
    }
    return -1;
  }

  /** Finish an escape byte by byte (it may be cut by the chunk's end). Returns the index after it, or -1. */
  private resumeEscape(buf: Buffer, i: number): number {
    const n = buf.length;
    let esc = this.strEsc;
    for (; esc !== ESC_NONE; i++) {
      if (i >= n) {
        this.strEsc = esc;
        return -1;
      }
      const c = buf[i]!;
      if (esc === ESC_BACKSLASH) {
        if (c === 0x75) esc = 4;
        else if (SIMPLE_ESCAPE[c] === 1) esc = ESC_NONE;
        else
          this.fail(
            `invalid escape sequence '\\${c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : ''}' inside a string (${describeByte(c)} after a backslash)`,
            this.base + i - 1,
          );
      } else {
        if (HEX_DIGIT[c] !== 1)
          this.fail(
            `invalid escape sequence inside a string: '\\u' needs four hex digits, found ${describeByte(c)}`,
            this.base + i,
          );
        esc--;
      }
    }
    this.strEsc = ESC_NONE;
    return i;
  }

  // ---- numbers and literals ---------------------------------------------------------------------------

  /** Start the number whose first byte `c` is at buf[i]; the index where it stopped, or -1. */
  protected startNumber(buf: Buffer, i: number, c: number, node: SchemaNode): number {
    this.st = S_NUMBER;
    this.numState = c === 0x2d ? N_MINUS : c === 0x30 ? N_ZERO : N_INT;
    this.numStart = this.base + i;
    this.numNode = node;
    this.numText = node.kind === 'skip' ? '' : String.fromCharCode(c);
    return this.continueNumber(buf, i + 1);
  }

  protected continueNumber(buf: Buffer, i: number): number {
    const n = buf.length;
    const start = i;
    let s = this.numState;
    for (; i < n; i++) {
      const c = buf[i]!;
      const digit = c >= 0x30 && c <= 0x39;
      switch (s) {
        case N_MINUS:
          if (c === 0x30) s = N_ZERO;
          else if (digit) s = N_INT;
          else
            this.fail(`invalid number: expected a digit after '-', found ${describeByte(c)}`, this.base + i);
          continue;
        case N_ZERO:
          if (c === 0x2e) s = N_DOT;
          else if (c === 0x65 || c === 0x45) s = N_E;
          else if (digit) this.fail('invalid number: leading zeros are not allowed', this.numStart);
          else break;
          continue;
        case N_INT:
          if (digit) continue;
          if (c === 0x2e) s = N_DOT;
          else if (c === 0x65 || c === 0x45) s = N_E;
          else break;
          continue;
        case N_DOT:
          if (digit) s = N_FRAC;
          else
            this.fail(`invalid number: expected a digit after '.', found ${describeByte(c)}`, this.base + i);
          continue;
        case N_FRAC:
          if (digit) continue;
          if (c === 0x65 || c === 0x45) s = N_E;
          else break;
          continue;
        case N_E:
        case N_ESIGN:
          if (digit) s = N_EXP;
          else if (s === N_E && (c === 0x2b || c === 0x2d)) s = N_ESIGN;
          else
            this.fail(
              `invalid number: expected a digit in the exponent, found ${describeByte(c)}`,
              this.base + i,
            );
          continue;
        case N_EXP:
          if (digit) continue;
          break;
      }
      // The number ended before buf[i] (not consumed).
      break;
    }
    this.numState = s;
    if (this.numNode.kind !== 'skip') {
      this.numText += buf.toString('latin1', start, i);
      // Checked as it grows: a kept number of a billion digits must not be held first.
      if (this.numText.length > MAX_NUMBER_CHARS)
        this.fail(
          `number longer than ${MAX_NUMBER_CHARS} characters where a short value is expected`,
          this.numStart,
        );
    }
    if (i >= n) return -1;
    this.endNumber(this.base + i);
    return i;
  }

  protected endNumber(at: number): void {
    const s = this.numState;
    if (s !== N_ZERO && s !== N_INT && s !== N_FRAC && s !== N_EXP)
      this.fail('invalid number: it ends too early', at);
    this.st = this.afterValue();
    if (this.numNode.kind !== 'skip') {
      this.deliver(Number(this.numText), this.numNode, this.numStart, at);
    }
  }

  /** Start the literal whose first byte `c` is at buf[i]; the index after it, or -1. */
  protected startLiteral(buf: Buffer, i: number, c: number, node: SchemaNode): number {
    this.st = S_LITERAL;
    this.litFirst = c;
    this.litPos = 1;
    this.litStart = this.base + i;
    this.litNode = node;
    return this.continueLiteral(buf, i + 1);
  }

  protected continueLiteral(buf: Buffer, i: number): number {
    const lit = LITERALS[this.litFirst]!;
    const bytes = lit.bytes;
    const n = buf.length;
    let pos = this.litPos;
    while (pos < bytes.length) {
      if (i >= n) {
        this.litPos = pos;
        return -1;
      }
      if (buf[i] !== bytes[pos])
        this.fail(`invalid literal: expected '${lit.text}', found ${describeByte(buf[i]!)}`, this.base + i);
      pos++;
      i++;
    }
    this.st = this.afterValue();
    if (this.litNode.kind !== 'skip') this.deliver(lit.value, this.litNode, this.litStart, this.base + i);
    return i;
  }

  // ---- errors -----------------------------------------------------------------------------------------

  /** Byte `c` at offset `at` cannot come next. */
  protected unexpected(c: number, at: number): never {
    this.fail(unexpectedByte(this.st, this.types[this.depth - 1], c), at);
  }

  /** The input ended in the middle of the document. */
  protected endedEarly(at: number): never {
    this.fail(
      `unexpected end of input (truncated?): ${expectedAtEnd(this.st, this.types[this.depth - 1])}`,
      at,
    );
  }

  /** The deepest path known, and whether it names the current value exactly. */
  private pathHere(): { path: string; exact: boolean } {
    let path = '$';
    const frames = this.frames;
    for (let f = 0; f < frames.length; f++) {
      const frame = frames[f]!;
      if (frame.isObject) {
        if (frame.key === undefined) return { path, exact: false };
        path += keySegment(frame.key);
      } else {
        path += `[${frame.index}]`;
      }
    }
    return { path, exact: this.depth <= frames.length };
  }

  protected fail(reason: string, offset: number): never {
    const { path, exact } = this.pathHere();
    throw new JsonScanError(reason, offset, path, exact);
  }
}

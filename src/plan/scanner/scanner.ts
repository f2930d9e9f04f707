// A resumable, byte-level JSON scanner. It validates the whole document but materializes only the parts a
// schema keeps, so a 140 MB plan whose bytes are mostly secret values is read in constant memory.
//
// Design: one state machine over Buffer chunks with an explicit container stack, so any token may be split
// across chunks (tokenizer.ts). Kept containers have a Frame (a prefix of the stack, kept-values.ts);
// everything deeper is skipped by a fast loop (skip-path.ts, in WebAssembly first: wasm-skip.ts). This
// module reads chunks and starts values; kept strings are finished in kept-values.ts.
//
// One reading of JSON: what the schema keeps is exactly what JSON.parse gives for the same bytes decoded as
// UTF-8, or the input is refused. So, kept or skipped alike:
// - the input must be valid UTF-8 (checked per chunk, natively); a byte order mark is refused, like
//   JSON.parse does (UTF-16 input, PowerShell's `>` redirection, gets its own message);
// - every string is validated (escapes, raw control characters), and keys are compared after unescaping;
// - duplicate keys: the last one wins. A schema problem in a kept value (a type, a check, a missing field)
//   is therefore held back until its object closes, and dropped when a later duplicate replaces the value;
// - where JSON.parse and OPA would read a kept string differently (a lone surrogate escape), it is refused.
// Syntax errors and resource limits (ScannerLimits) are refused at once.
import * as alphabet from './bytes.js';
import { documentStartProblem } from './document-start.js';
import { describeValueStart } from './errors.js';
import { KeptValues } from './kept-values.js';
import { MAX_FIELD_NAME, matchName, type ScannerLimits, type SchemaNode, SKIP } from './schema.js';
import type { ChangeLane } from './skip-path.js';
import { Utf8Validator } from './utf8.js';
import { WASM_CHUNK_BYTES } from './wasm-skip.js';

// Module-local copies (see bytes.ts).
const {
  S_AFTER,
  S_ARR_FIRST,
  S_COLON,
  S_DONE,
  S_KEY,
  S_LITERAL,
  S_NUMBER,
  S_OBJ_FIRST,
  S_STRING,
  S_VALUE,
  STR_FIELD,
  STR_KEY,
  STR_SKIP,
  STR_VALUE,
} = alphabet;
const { ARR, BACKSLASH, isDigit, LITERALS, LONE_SURROGATE, latin1, OBJ, QUOTE, startsValue } = alphabet;

export interface ScanOptions {
  /** Skip in JavaScript alone, without the WebAssembly skip path (to compare the two: they must agree). */
  javascriptSkipOnly?: boolean;
  /** Items read whole in WebAssembly when they plainly can be (skip-path.ts): they never reach `each`. */
  lane?: ChangeLane;
}

/**
 * Feed chunks with write(), then call end() for the kept root value. Throws JsonScanError on the first
 * problem, with the byte offset and the deepest known JSON path.
 */
export class JsonScanner extends KeptValues {
  private readonly utf8 = new Utf8Validator();
  /** The chunk being scanned ends the input (see write). */
  private lastChunk = false;

  constructor(root: SchemaNode, limits: Partial<ScannerLimits> = {}, options: ScanOptions = {}) {
    super(root, limits);
    if (options.javascriptSkipOnly) this.wasmSkip = false;
    this.lane = options.lane;
  }

  /** Total bytes fed so far. */
  get bytes(): number {
    return this.base;
  }

  /**
   * `last` says this chunk ends the input, so a word cut by its end ("tr") is text, not a literal still
   * arriving. Readers hold back the first bytes until a word fits (scanStream), so only the document's
   * start needs it.
   */
  write(buf: Buffer, last = false): void {
    // In pieces the WebAssembly skip path takes whole (wasm-skip.ts).
    let from = 0;
    for (; buf.length - from > WASM_CHUNK_BYTES; from += WASM_CHUNK_BYTES)
      this.writePiece(buf.subarray(from, from + WASM_CHUNK_BYTES), false);
    this.writePiece(from === 0 ? buf : buf.subarray(from), last);
  }

  private writePiece(buf: Buffer, last: boolean): void {
    this.lastChunk = last;
    const bad = this.utf8.check(buf, this.base);
    if (bad < 0) {
      this.scan(buf);
      return;
    }
    // Scan up to and including the invalid byte first: an earlier error, or a clearer one for the byte
    // itself (a UTF-16 byte order mark, a byte outside any string), wins, and the path is the byte's.
    if (bad >= this.base) this.scan(buf.subarray(0, bad - this.base + 1));
    this.fail(
      this.st === S_STRING
        ? 'invalid UTF-8 inside a string (the input must be UTF-8 encoded)'
        : 'invalid UTF-8 (the input must be UTF-8 encoded)',
      bad,
    );
  }

  private scan(buf: Buffer): void {
    this.newChunk();
    const n = buf.length;
    // Resume a token split across chunks.
    let i =
      this.st === S_STRING
        ? this.continueString(buf, 0)
        : this.st === S_NUMBER
          ? this.continueNumber(buf, 0)
          : this.st === S_LITERAL
            ? this.continueLiteral(buf, 0)
            : 0;
    while (i >= 0 && i < n) {
      if (this.depth > this.frames.length) {
        i = this.skipRun(buf, i);
        continue;
      }
      const c = buf[i]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      const st = this.st;
      if (st === S_AFTER) {
        const top = this.types[this.depth - 1];
        if (c === 0x2c) {
          if (top === OBJ) {
            // Compact JSON: the next key's quote follows the comma at once.
            if (i + 1 < n && buf[i + 1] === QUOTE) {
              i = this.startKey(buf, i + 1);
              continue;
            }
            this.st = S_KEY;
          } else {
            this.st = S_VALUE;
            const depth = this.depth;
            if (depth === this.frames.length) this.frames[depth - 1]!.index++;
          }
          i++;
        } else if ((c === 0x7d && top === OBJ) || (c === 0x5d && top === ARR)) {
          this.close(this.base + i);
          i++;
        } else {
          this.unexpected(c, this.base + i);
        }
      } else if (st === S_VALUE || st === S_ARR_FIRST) {
        if (c === 0x5d && st === S_ARR_FIRST) {
          this.close(this.base + i);
          i++;
        } else {
          i = this.startValue(buf, i, c);
        }
      } else if (st === S_OBJ_FIRST || st === S_KEY) {
        if (c === QUOTE) {
          i = this.startKey(buf, i);
        } else if (c === 0x7d && st === S_OBJ_FIRST) {
          this.close(this.base + i);
          i++;
        } else {
          this.unexpected(c, this.base + i);
        }
      } else if (st === S_COLON && c === 0x3a) {
        this.st = S_VALUE;
        i++;
      } else {
        // S_COLON without ':', or S_DONE: data after the end of the document.
        this.unexpected(c, this.base + i);
      }
    }
    this.flushLane();
    this.base += n;
  }

  /** Finish the document and return the kept root value. */
  end(): unknown {
    const at = this.base;
    const cut = this.utf8.incompleteAt();
    if (cut >= 0) this.fail('invalid UTF-8: the input ends inside a character', cut);
    switch (this.st) {
      case S_DONE:
        return this.result;
      case S_NUMBER:
        if (this.depth === 0) {
          this.endNumber(at);
          return this.result;
        }
        break;
      case S_STRING:
        this.fail(
          `unexpected end of input: the string that starts at byte ${this.strStart} is not terminated`,
          at,
        );
        break;
      case S_LITERAL:
        this.fail(`unexpected end of input inside '${LITERALS[this.litFirst]!.text}'`, at);
    }
    if (at === 0) this.fail('empty input: expected a JSON document', 0);
    if (this.depth === 0 && this.st === S_VALUE) this.fail('no JSON value: the input is only whitespace', at);
    this.endedEarly(at);
  }

  // ---- values ---------------------------------------------------------------------------------------

  /** Start the value at buf[i]; returns the index after what was consumed, or -1 at the chunk's end. */
  private startValue(buf: Buffer, i: number, c: number): number {
    const at = this.base + i;
    let node = this.nodeHere();
    if (this.depth === 0) {
      const problem = documentStartProblem(buf, i, c, this.lastChunk);
      if (problem !== undefined) this.fail(problem, at);
    }
    if (node.kind === 'object' ? c !== 0x7b : node.kind === 'array' && c !== 0x5b) {
      if (!startsValue(c)) this.unexpected(c, at);
      // The wrong type: held back (a later duplicate key may replace it) and the value skipped.
      const what = node.kind === 'object' || node.kind === 'array' ? node.what : 'a value';
      this.reject({ reason: `expected ${what}, found ${describeValueStart(c)}`, offset: at, at: '' });
      node = SKIP;
    }
    if (c === QUOTE)
      return node.kind === 'skip' ? this.startSkippedString(buf, i) : this.startString(buf, i, node);
    if (c === 0x7b || c === 0x5b) {
      if (node === this.lane?.item) {
        const end = this.laneRead(buf, i);
        if (end >= 0) {
          this.st = this.afterValue();
          return end;
        }
      }
      const isObject = c === 0x7b;
      this.push(isObject ? OBJ : ARR, at);
      this.st = isObject ? S_OBJ_FIRST : S_ARR_FIRST;
      // A skipped container (before, after, ...) goes to the skip loop at once.
      if (node.kind === 'skip') return this.skipRun(buf, i + 1);
      if (node.kind === 'value' && this.valueStart < 0) this.valueStart = at;
      this.openFrame(node, isObject, at);
      return i + 1;
    }
    if (c === 0x2d || isDigit(c)) return this.startNumber(buf, i, c, node);
    if (c in LITERALS) return this.startLiteral(buf, i, c, node);
    this.unexpected(c, at);
  }

  private startSkippedString(buf: Buffer, i: number): number {
    this.beginString(STR_SKIP, this.base + i, SKIP, false);
    return this.continueString(buf, i + 1);
  }

  /**
   * A kept string. Fast path: a short string wholly in this chunk is decoded directly, or handed to
   * JSON.parse with its quotes when it has escapes (for_each addresses do: `a.b[\"key\"]`).
   */
  private startString(buf: Buffer, i: number, node: SchemaNode): number {
    const at = this.base + i;
    const n = buf.length;
    const from = i + 1;
    const limit = Math.min(n, from + 4096);
    let escapes = false;
    let wide = false;
    let j = from;
    for (; j < limit; j++) {
      const b = buf[j]!;
      if (b === BACKSLASH) {
        escapes = true;
        j++;
        continue;
      }
      if (b === QUOTE || b < 0x20) break;
      if (b >= 0x80) wide = true;
    }
    if (j < n && buf[j] === QUOTE) {
      // Non-ASCII: valid UTF-8 (write() checked the chunk), and whole, as a quote cannot cut a character.
      const text = escapes
        ? parseEscapedToken(wide ? buf.toString('utf8', i, j + 1) : latin1(buf, i, j + 1))
        : wide
          ? buf.toString('utf8', from, j)
          : latin1(buf, from, j);
      if (text !== undefined) {
        this.st = this.afterValue();
        this.deliver(text, node, at, this.base + j + 1);
        return j + 1;
      }
      // Invalid or a lone surrogate: the string loop says exactly what is wrong, and where.
    }
    this.beginString(STR_VALUE, at, node, false);
    return this.continueString(buf, from);
  }

  // ---- keys and kept strings ----------------------------------------------------------------------------

  private startKey(buf: Buffer, i: number): number {
    const at = this.base + i;
    const frame = this.frames[this.depth - 1]!;
    const node = frame.node;
    if (node.kind !== 'object') {
      this.beginString(STR_KEY, at, SKIP, true);
      return this.continueString(buf, i + 1);
    }
    // Fast path: a plain ASCII key wholly in this chunk is matched by its bytes, without a string.
    const n = buf.length;
    const from = i + 1;
    const limit = Math.min(n, from + MAX_FIELD_NAME + 1);
    let j = from;
    for (; j < limit; j++) {
      const c = buf[j]!;
      if (c === QUOTE || c === BACKSLASH || c < 0x20 || c >= 0x80) break;
    }
    if (j < n && buf[j] === QUOTE) {
      const field = matchName(node.byLength, buf, from, j);
      if (field) this.setKey(frame, node, field.name, field.node, at);
      else this.setKey(frame, node, latin1(buf, from, j), SKIP, at);
      // Compact JSON: the colon follows the key at once.
      if (j + 1 < n && buf[j + 1] === 0x3a) {
        this.st = S_VALUE;
        return j + 2;
      }
      this.st = S_COLON;
      return j + 1;
    }
    this.beginString(STR_FIELD, at, SKIP, true);
    return this.continueString(buf, from);
  }
}

/**
 * A short escaped string token (with its quotes) read by JSON.parse: it holds no key, so V8's key cache
 * (nodejs/node#63785) is not involved. Undefined when invalid or when it holds a lone surrogate escape.
 */
function parseEscapedToken(token: string): string | undefined {
  let text: string;
  try {
    text = JSON.parse(token) as string;
  } catch {
    return undefined;
  }
  return token.includes('\\u') && LONE_SURROGATE.test(text) ? undefined : text;
}

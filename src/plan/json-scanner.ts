// A resumable, byte-level JSON scanner. It validates the whole document but materializes only the parts a
// schema keeps, so a 140 MB plan whose bytes are mostly secret values is read in constant memory.
//
// Design: one state machine over Buffer chunks with an explicit container stack, so any token may be split
// across chunks. Kept containers have a Frame (a prefix of the stack); everything deeper is skipped.
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
import { isAscii, isUtf8 } from 'node:buffer';

/** Where and why the scan failed. `path` is the deepest JSON path known (skipped keys are not read). */
export class JsonScanError extends Error {
  override readonly name = 'JsonScanError';
  constructor(
    readonly reason: string,
    readonly offset: number,
    readonly path: string | undefined,
    /** True when the path points at the value itself, false when the error is somewhere inside it. */
    readonly exact: boolean,
  ) {
    super(`${reason} at byte ${offset}${path ? ` (${exact ? '' : 'inside '}${path})` : ''}`);
  }
}

/** A problem found by a schema check: what was expected, and optionally a path suffix such as `[1]`. */
export interface Problem {
  message: string;
  at?: string;
}

export interface SkipNode {
  readonly kind: 'skip';
}
/** An object whose listed fields are descended into; every other field is skipped. */
export interface ObjectNode {
  readonly kind: 'object';
  /** Used in messages: "expected <what>". */
  readonly what: string;
  readonly fields: ReadonlyMap<string, SchemaNode>;
  /** fields plus well-known skipped names, as bytes: keys are matched without allocating a string. */
  readonly names: readonly FieldName[];
  /** Fields (kept or skipped) whose presence close() is told about. */
  readonly track?: ReadonlySet<string>;
  readonly close?: (value: Record<string, unknown>, seen: ReadonlySet<string>) => Problem | undefined;
}

export interface FieldName {
  readonly bytes: Uint8Array;
  readonly name: string;
  readonly node: SchemaNode;
}
export interface ArrayNode {
  readonly kind: 'array';
  readonly what: string;
  readonly item: SchemaNode;
  readonly close?: (value: unknown[]) => Problem | undefined;
}
/** A value materialized whole (small by contract: strings and the whole value are capped). */
export interface ValueNode {
  readonly kind: 'value';
  readonly check?: (value: unknown) => Problem | undefined;
}
export type SchemaNode = SkipNode | ObjectNode | ArrayNode | ValueNode;

export const SKIP: SkipNode = { kind: 'skip' };
const GENERIC: ValueNode = { kind: 'value' };

export interface ObjectNodeOptions {
  close?: (value: Record<string, unknown>, seen: ReadonlySet<string>) => Problem | undefined;
  /** Fields whose presence close() is told about, kept or not. */
  track?: readonly string[];
  /** Names usually present and skipped: matched without allocation, and named in error paths. */
  skipped?: readonly string[];
}

export function objectNode(
  what: string,
  fields: Record<string, SchemaNode>,
  options: ObjectNodeOptions = {},
): ObjectNode {
  const map = new Map(Object.entries(fields));
  for (const name of [...map.keys(), ...(options.skipped ?? []), ...(options.track ?? [])]) {
    if (name.length > MAX_FIELD_NAME || !/^[\x20-\x7e]*$/.test(name))
      throw new Error(
        `field name ${JSON.stringify(name)}: at most ${MAX_FIELD_NAME} printable ASCII characters`,
      );
  }
  const names: FieldName[] = [...map].map(([name, node]) => ({ bytes: Buffer.from(name), name, node }));
  for (const name of options.skipped ?? []) {
    if (!map.has(name)) names.push({ bytes: Buffer.from(name), name, node: SKIP });
  }
  const node: { -readonly [K in keyof ObjectNode]: ObjectNode[K] } = {
    kind: 'object',
    what,
    fields: map,
    names,
  };
  if (options.close) node.close = options.close;
  if (options.track) node.track = new Set(options.track);
  return node;
}

export function arrayNode(
  what: string,
  item: SchemaNode,
  close?: (value: unknown[]) => Problem | undefined,
): ArrayNode {
  return close ? { kind: 'array', what, item, close } : { kind: 'array', what, item };
}

export function valueNode(check?: (value: unknown) => Problem | undefined): ValueNode {
  return check ? { kind: 'value', check } : { kind: 'value' };
}

export interface ScannerLimits {
  /** Longest kept string, in bytes. */
  maxStringBytes: number;
  /** Largest kept value (e.g. change.importing), in bytes of JSON text. */
  maxValueBytes: number;
  /** Deepest nesting accepted anywhere, kept or skipped. */
  maxDepth: number;
}

/** Longest kept number, in characters (a count index or a number inside a kept value). */
const MAX_NUMBER_CHARS = 1024;

/** Longest field name of a schema object (objectNode checks), plus slack. */
const MAX_FIELD_NAME = 64;
/**
 * A key of a schema object longer than this, in raw bytes, cannot unescape to a field name (they are
 * printable ASCII, 6 bytes at most each, as in `\u0061`), so it is skipped without being kept.
 */
const MAX_FIELD_KEY_BYTES = 6 * MAX_FIELD_NAME;

export const DEFAULT_LIMITS: ScannerLimits = {
  maxStringBytes: 1024 * 1024,
  maxValueBytes: 1024 * 1024,
  maxDepth: 10_000,
};

/** A kept container being built. */
interface Frame {
  readonly node: ObjectNode | ArrayNode | ValueNode;
  readonly isObject: boolean;
  readonly obj: Record<string, unknown> | undefined;
  readonly arr: unknown[] | undefined;
  readonly start: number;
  /** Current member key (objects); undefined when not read (too long to be a field). */
  key: string | undefined;
  /** Index of the element being read (arrays). */
  index: number;
  /** Schema node of the value after the current key (objects). */
  next: SchemaNode;
  /** Tracked keys seen so far (ObjectNode.track). */
  seen: Set<string> | undefined;
  /** Held-back schema problems of members, by key (objects): a later duplicate key may replace them. */
  problems: Map<string, HeldProblem> | undefined;
  /** The first problem nothing can replace: an element's (arrays), a key's (kept generic objects). */
  problem: HeldProblem | undefined;
}

/**
 * A schema problem held back until its container closes. Its path is relative to the frame holding it and
 * grows by one segment per level as it is passed up, so holding many problems costs no path walks.
 */
interface HeldProblem {
  readonly reason: string;
  readonly offset: number;
  readonly at: string;
}

// Grammar states.
const S_VALUE = 0; // a value must follow (top level, after ':', after ',' in an array)
const S_ARR_FIRST = 1; // after '[': a value or ']'
const S_OBJ_FIRST = 2; // after '{': a key or '}'
const S_KEY = 3; // after ',' in an object: a key
const S_COLON = 4; // after a key
const S_AFTER = 5; // after a value: ',' or the closing bracket
const S_DONE = 6; // after the top-level value: only whitespace
// Token states (a token may span chunks).
const S_STRING = 7;
const S_NUMBER = 8;
const S_LITERAL = 9;

// What a string in progress is for.
const STR_SKIP = 0; // skipped value or key
const STR_VALUE = 1; // kept value
const STR_KEY = 2; // key of a kept generic object
const STR_FIELD = 3; // key of a schema object: compared against its fields, skipped when too long

// Escape state of a string in progress (strEsc), carried across chunks.
const ESC_NONE = 0;
// 1-4: that many hex digits of a \uXXXX escape are still expected.
const ESC_BACKSLASH = 5; // after a backslash

// Number states: see https://www.json.org (minus, int, frac, exp).
const N_MINUS = 1;
const N_ZERO = 2;
const N_INT = 3;
const N_DOT = 4;
const N_FRAC = 5;
const N_E = 6;
const N_ESIGN = 7;
const N_EXP = 8;

const OBJ = 1;
const ARR = 2;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const LITERALS: Record<number, { text: string; bytes: Uint8Array; value: boolean | null }> = {
  116: { text: 'true', bytes: Buffer.from('true'), value: true },
  102: { text: 'false', bytes: Buffer.from('false'), value: false },
  110: { text: 'null', bytes: Buffer.from('null'), value: null },
};

/** Bytes that end the fast loop over a string body: a quote, a backslash, a raw control character. */
const STRING_SPECIAL = new Uint8Array(256);
STRING_SPECIAL.fill(1, 0, 0x20);
STRING_SPECIAL[QUOTE] = 1;
STRING_SPECIAL[BACKSLASH] = 1;
/** The characters after a backslash that make a one-character escape. */
const SIMPLE_ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;
const HEX_DIGIT = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX_DIGIT[c.charCodeAt(0)] = 1;
/** A lone surrogate (in `u` mode, a valid pair is one code point and does not match). */
const LONE_SURROGATE = /\p{Cs}/u;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function describeByte(c: number): string {
  if (c === 0x22) return `'"'`;
  if (c >= 0x21 && c <= 0x7e) return `'${String.fromCharCode(c)}'`;
  if (c === 0x00) return 'a NUL byte (is the file UTF-16 encoded? write it as UTF-8)';
  return `byte 0x${c.toString(16).padStart(2, '0')}`;
}

function describeValueStart(c: number): string {
  if (c === 0x7b) return 'an object';
  if (c === 0x5b) return 'an array';
  if (c === 0x22) return 'a string';
  if (c === 0x2d || isDigit(c)) return 'a number';
  if (c === 0x74 || c === 0x66) return 'a boolean';
  if (c === 0x6e) return 'null';
  return describeByte(c);
}

function keySegment(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/**
 * Feed chunks with write(), then call end() for the kept root value. Throws JsonScanError on the first
 * problem, with the byte offset and the deepest known JSON path.
 */
export class JsonScanner {
  private readonly root: SchemaNode;
  private readonly limits: ScannerLimits;

  private types = new Uint8Array(64);
  private depth = 0;
  private readonly frames: Frame[] = [];
  private st = S_VALUE;
  /** Absolute offset of the current chunk's first byte. */
  private base = 0;

  private result: unknown = undefined;

  // String in progress.
  private strMode = STR_SKIP;
  private strStart = 0; // absolute offset of the opening quote
  private strEsc = ESC_NONE;
  private strParts: Buffer[] = [];
  private strLen = 0;
  private strIsKey = false;
  private strNode: SchemaNode = SKIP;

  // Number in progress.
  private numState = 0;
  private numStart = 0;
  private numText = '';
  private numNode: SchemaNode = SKIP;

  // Literal in progress.
  private litFirst = 0;
  private litPos = 0;
  private litStart = 0;
  private litNode: SchemaNode = SKIP;

  /** Absolute start offset of the outermost kept ValueNode container, or -1. */
  private valueStart = -1;

  // UTF-8 validation: a sequence cut by the chunk's end is completed by the next chunk.
  private utf8Carry: Buffer | undefined;
  private utf8CarryAt = 0;

  constructor(root: SchemaNode, limits: Partial<ScannerLimits> = {}) {
    this.root = root;
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Total bytes fed so far. */
  get bytes(): number {
    return this.base;
  }

  write(buf: Buffer): void {
    const bad = this.checkUtf8(buf);
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

  /**
   * Validate the chunk as UTF-8 with the native validator. A multi-byte sequence cut by the chunk's end is
   * kept and checked with the next chunk's first bytes. Returns the absolute offset of the first invalid
   * byte (exact within a chunk, the sequence's start when it was cut), or -1.
   */
  private checkUtf8(buf: Buffer): number {
    const n = buf.length;
    let from = 0;
    const carry = this.utf8Carry;
    if (carry !== undefined) {
      const take = Math.min(n, sequenceLength(carry[0]!) - carry.length);
      const joined = Buffer.concat([carry, buf.subarray(0, take)]);
      if (joined.length < sequenceLength(carry[0]!)) {
        this.utf8Carry = joined;
        return -1;
      }
      this.utf8Carry = undefined;
      if (!isUtf8(joined)) return this.utf8CarryAt;
      from = take;
    }
    // A lead byte among the last three whose sequence does not fit: carried to the next chunk.
    let end = n;
    for (let k = n - 1; k >= from && k >= n - 3; k--) {
      const c = buf[k]!;
      if (c < 0x80) break;
      if (c >= 0xc0) {
        if (k + sequenceLength(c) > n) end = k;
        break;
      }
    }
    if (!isUtf8(buf.subarray(from, end))) return this.base + firstInvalidUtf8(buf, from, end);
    if (end < n) {
      this.utf8Carry = Buffer.from(buf.subarray(end));
      this.utf8CarryAt = this.base + end;
    }
    return -1;
  }

  private scan(buf: Buffer): void {
    const n = buf.length;
    let i = 0;
    // Resume a token split across chunks.
    if (this.st === S_STRING) {
      i = this.continueString(buf, 0);
      if (i < 0) {
        this.base += n;
        return;
      }
    } else if (this.st === S_NUMBER) {
      i = this.continueNumber(buf, 0);
      if (i < 0) {
        this.base += n;
        return;
      }
    } else if (this.st === S_LITERAL) {
      i = this.continueLiteral(buf, 0);
      if (i < 0) {
        this.base += n;
        return;
      }
    }

    while (i < n) {
      if (this.depth > this.frames.length) {
        i = this.skipRun(buf, i);
        if (i < 0) {
          this.base += n;
          return;
        }
        continue;
      }
      const c = buf[i]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      switch (this.st) {
        case S_AFTER: {
          const top = this.types[this.depth - 1];
          if (c === 0x2c) {
            if (top === OBJ) {
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
            this.fail(
              top === OBJ
                ? `expected ',' or '}' after an object member, found ${describeByte(c)}`
                : `expected ',' or ']' after an array element, found ${describeByte(c)}`,
              this.base + i,
            );
          }
          break;
        }
        case S_VALUE:
        case S_ARR_FIRST: {
          if (c === 0x5d && this.st === S_ARR_FIRST) {
            this.close(this.base + i);
            i++;
            break;
          }
          i = this.startValue(buf, i, c);
          if (i < 0) {
            this.base += n;
            return;
          }
          break;
        }
        case S_OBJ_FIRST:
        case S_KEY: {
          if (c === QUOTE) {
            i = this.startKey(buf, i);
            if (i < 0) {
              this.base += n;
              return;
            }
          } else if (c === 0x7d && this.st === S_OBJ_FIRST) {
            this.close(this.base + i);
            i++;
          } else {
            this.fail(
              this.st === S_OBJ_FIRST
                ? `expected '"' (an object key) or '}', found ${describeByte(c)}`
                : `expected '"' (an object key) after ',', found ${describeByte(c)}`,
              this.base + i,
            );
          }
          break;
        }
        case S_COLON: {
          if (c !== 0x3a)
            this.fail(`expected ':' after an object key, found ${describeByte(c)}`, this.base + i);
          this.st = S_VALUE;
          i++;
          break;
        }
        case S_DONE: {
          this.fail(`unexpected data after the end of the JSON document: ${describeByte(c)}`, this.base + i);
        }
      }
    }
    this.base += n;
  }

  /** Finish the document and return the kept root value. */
  end(): unknown {
    const at = this.base;
    if (this.utf8Carry !== undefined)
      this.fail('invalid UTF-8: the input ends inside a character', this.utf8CarryAt);
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
      case S_LITERAL: {
        const lit = LITERALS[this.litFirst]!;
        this.fail(`unexpected end of input inside '${lit.text}'`, at);
        break;
      }
    }
    if (at === 0) this.fail('empty input: expected a JSON document', 0);
    if (this.depth === 0 && this.st === S_VALUE) this.fail('no JSON value: the input is only whitespace', at);
    this.fail(`unexpected end of input (truncated?): ${this.expectedHere()}`, at);
  }

  /**
   * The hot loop: validate skipped territory (deeper than every kept frame) with as little work per token
   * as possible. Returns where it stopped: back at the kept level, at the chunk's end (n), or -1 when a
   * token continues into the next chunk (its state is saved for the resume path in write()).
   */
  private skipRun(buf: Buffer, i: number): number {
    const n = buf.length;
    const kept = this.frames.length;
    let types = this.types;
    let depth = this.depth;
    let st = this.st;
    while (i < n) {
      const c = buf[i]!;
      if (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) {
        i++;
        continue;
      }
      if (st === S_AFTER) {
        const top = types[depth - 1];
        if (c === 0x2c) {
          st = top === OBJ ? S_KEY : S_VALUE;
          i++;
          continue;
        }
        if ((c === 0x7d && top === OBJ) || (c === 0x5d && top === ARR)) {
          depth--;
          i++;
          if (depth === kept) {
            this.depth = depth;
            this.st = depth === 0 ? S_DONE : S_AFTER;
            return i;
          }
          continue;
        }
      } else if (st === S_KEY || st === S_OBJ_FIRST) {
        if (c === QUOTE) {
          const q = stringEnd(buf, i + 1);
          if (q < 0) {
            this.depth = depth;
            this.beginString(STR_SKIP, this.base + i, SKIP, true);
            return this.skipString(buf, i + 1);
          }
          // Compact JSON: the colon usually follows the key at once.
          if (q + 1 < n && buf[q + 1] === 0x3a) {
            st = S_VALUE;
            i = q + 2;
          } else {
            st = S_COLON;
            i = q + 1;
          }
          continue;
        }
        if (c === 0x7d && st === S_OBJ_FIRST) {
          st = S_AFTER; // closed just below
          depth--;
          i++;
          if (depth === kept) {
            this.depth = depth;
            this.st = depth === 0 ? S_DONE : S_AFTER;
            return i;
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
        if (c === QUOTE) {
          const q = stringEnd(buf, i + 1);
          if (q < 0) {
            this.depth = depth;
            this.beginString(STR_SKIP, this.base + i, SKIP, false);
            return this.skipString(buf, i + 1);
          }
          st = S_AFTER;
          i = q + 1;
          continue;
        }
        if (c === 0x7b || c === 0x5b) {
          if (depth === types.length || depth >= this.limits.maxDepth) {
            this.depth = depth;
            this.st = st;
            this.push(c === 0x7b ? OBJ : ARR, this.base + i);
            types = this.types;
            depth = this.depth;
          } else {
            types[depth++] = c === 0x7b ? OBJ : ARR;
          }
          st = c === 0x7b ? S_OBJ_FIRST : S_ARR_FIRST;
          i++;
          continue;
        }
        if (c === 0x5d && st === S_ARR_FIRST) {
          depth--;
          i++;
          if (depth === kept) {
            this.depth = depth;
            this.st = depth === 0 ? S_DONE : S_AFTER;
            return i;
          }
          st = S_AFTER;
          continue;
        }
        if (c === 0x74 || c === 0x66 || c === 0x6e) {
          const bytes = LITERALS[c]!.bytes;
          const len = bytes.length;
          if (i + len <= n && buf[i + 1] === bytes[1] && buf[i + 2] === bytes[2] && buf[i + 3] === bytes[3]) {
            if (len === 4 || buf[i + 4] === bytes[4]) {
              st = S_AFTER;
              i += len;
              continue;
            }
          }
        } else if (c === 0x2d || isDigit(c)) {
          const end = numberEnd(buf, i);
          if (end >= 0) {
            st = S_AFTER;
            i = end;
            continue;
          }
        }
        // Numbers and literals split across chunks or invalid: the general token code says what is wrong.
        if (c === 0x2d || isDigit(c) || c === 0x74 || c === 0x66 || c === 0x6e) {
          this.depth = depth;
          this.st = st;
          i = this.startValue(buf, i, c);
          if (i < 0) return -1;
          st = this.st;
          continue;
        }
      }
      // Anything else is an error: let the general loop describe it.
      this.depth = depth;
      this.st = st;
      this.describeSkipError(c, this.base + i);
    }
    this.depth = depth;
    this.st = st;
    return n;
  }

  private describeSkipError(c: number, at: number): never {
    switch (this.st) {
      case S_AFTER:
        this.fail(
          this.types[this.depth - 1] === OBJ
            ? `expected ',' or '}' after an object member, found ${describeByte(c)}`
            : `expected ',' or ']' after an array element, found ${describeByte(c)}`,
          at,
        );
        break;
      case S_OBJ_FIRST:
        this.fail(`expected '"' (an object key) or '}', found ${describeByte(c)}`, at);
        break;
      case S_KEY:
        this.fail(`expected '"' (an object key) after ',', found ${describeByte(c)}`, at);
        break;
      case S_COLON:
        this.fail(`expected ':' after an object key, found ${describeByte(c)}`, at);
        break;
    }
    this.fail(`expected a JSON value, found ${describeByte(c)}`, at);
  }

  // ---- values ---------------------------------------------------------------------------------------

  /** The schema node for the value starting now. */
  private nodeHere(): SchemaNode {
    const depth = this.depth;
    if (depth === 0) return this.root;
    if (depth > this.frames.length) return SKIP;
    const frame = this.frames[depth - 1]!;
    if (frame.isObject) return frame.next;
    const node = frame.node;
    return node.kind === 'array' ? node.item : GENERIC;
  }

  /** Start the value at buf[i]; returns the index after what was consumed, or -1 at the chunk's end. */
  private startValue(buf: Buffer, i: number, c: number): number {
    const at = this.base + i;
    let node = this.nodeHere();
    if (this.depth === 0) this.checkDocumentStart(buf, i, c);
    if (node.kind === 'object' ? c !== 0x7b : node.kind === 'array' && c !== 0x5b) {
      if (!startsValue(c)) this.fail(`expected a JSON value, found ${describeByte(c)}`, at);
      // The wrong type: held back (a later duplicate key may replace it) and the value skipped.
      this.reject(this.typeError(node, c, at));
      node = SKIP;
    }
    const kind = node.kind;
    if (c === QUOTE) {
      if (kind === 'skip') {
        this.beginString(STR_SKIP, at, SKIP, false);
        return this.continueString(buf, i + 1);
      }
      // Fast path: a short ASCII string wholly in this chunk is sliced directly, or handed to JSON.parse
      // with its quotes when it has escapes (for_each addresses do: `a.b[\"key\"]`).
      const n = buf.length;
      const from = i + 1;
      const limit = Math.min(n, from + 4096);
      let escapes = false;
      let j = from;
      for (; j < limit; j++) {
        const b = buf[j]!;
        if (b === BACKSLASH) {
          escapes = true;
          j++;
          continue;
        }
        if (b === QUOTE || b < 0x20 || b >= 0x80) break;
      }
      if (j < n && buf[j] === QUOTE) {
        let text: string;
        if (!escapes) {
          text = latin1(buf, from, j);
        } else {
          const token = latin1(buf, i, j + 1);
          try {
            text = JSON.parse(token) as string;
          } catch {
            // Let the string loop say exactly what is wrong, and where.
            this.beginString(STR_VALUE, at, node, false);
            return this.continueString(buf, from);
          }
          if (token.includes('\\u') && LONE_SURROGATE.test(text)) {
            this.beginString(STR_VALUE, at, node, false);
            return this.continueString(buf, from);
          }
        }
        this.st = this.depth === 0 ? S_DONE : S_AFTER;
        this.deliver(text, node, at, this.base + j + 1);
        return j + 1;
      }
      this.beginString(STR_VALUE, at, node, false);
      return this.continueString(buf, from);
    }
    if (c === 0x7b || c === 0x5b) {
      const isObject = c === 0x7b;
      if (kind === 'skip') {
        this.push(isObject ? OBJ : ARR, at);
      } else if (kind === 'value') {
        if (this.valueStart < 0) this.valueStart = at;
        this.push(isObject ? OBJ : ARR, at);
        this.frames.push(newFrame(node, isObject, at));
      } else {
        this.push(isObject ? OBJ : ARR, at);
        this.frames.push(newFrame(node, isObject, at));
      }
      this.st = isObject ? S_OBJ_FIRST : S_ARR_FIRST;
      return i + 1;
    }
    if (c === 0x2d || isDigit(c)) {
      this.st = S_NUMBER;
      this.numState = c === 0x2d ? N_MINUS : c === 0x30 ? N_ZERO : N_INT;
      this.numStart = at;
      this.numNode = node;
      this.numText = kind === 'skip' ? '' : String.fromCharCode(c);
      return this.continueNumber(buf, i + 1);
    }
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.st = S_LITERAL;
      this.litFirst = c;
      this.litPos = 1;
      this.litStart = at;
      this.litNode = node;
      return this.continueLiteral(buf, i + 1);
    }
    this.fail(`expected a JSON value, found ${describeByte(c)}`, at);
  }

  /** Friendlier messages for the usual wrong files, at the very first byte. */
  private checkDocumentStart(buf: Buffer, i: number, c: number): void {
    const at = this.base + i;
    if (c === 0xef)
      this.fail('the input starts with a UTF-8 byte order mark, which tfgate does not accept: remove it', at);
    if (c === 0xff || c === 0xfe)
      this.fail('the input looks UTF-16 encoded (it starts with a byte order mark): write it as UTF-8', at);
    if (c === 0x50 && (i + 1 >= buf.length || buf[i + 1] === 0x4b))
      this.fail("found 'P': this looks like a binary plan file (a zip archive), not its JSON rendering", at);
    if (c !== 0x7b && c !== 0x5b && c !== QUOTE && c !== 0x2d && !isDigit(c) && !(c in LITERALS))
      this.fail(`not JSON: expected '{', found ${describeByte(c)}`, at);
  }

  private push(type: number, at: number): void {
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

  private close(at: number): void {
    const depth = this.depth;
    this.depth = depth - 1;
    if (depth === this.frames.length) {
      const frame = this.frames.pop()!;
      const node = frame.node;
      const value = frame.isObject ? frame.obj! : frame.arr!;
      // A member's or element's problem comes first; the object's own check sees only final members.
      let held = firstProblem(frame);
      if (node.kind === 'value') {
        if (held) this.reject(held);
        else this.deliver(value, node, frame.start, at + 1);
        if (this.valueStart === frame.start) this.valueStart = -1;
      } else {
        if (held === undefined) {
          const problem = frame.isObject
            ? (node as ObjectNode).close?.(frame.obj!, frame.seen ?? NOTHING_SEEN)
            : (node as ArrayNode).close?.(frame.arr!);
          if (problem) held = { reason: problem.message, offset: frame.start, at: problem.at ?? '' };
        }
        if (held) this.reject(held);
        else this.deliver(value, node, frame.start, at + 1);
      }
    }
    this.st = this.depth === 0 ? S_DONE : S_AFTER;
  }

  /**
   * A kept value has a schema problem. Duplicate keys resolve as JSON.parse resolves them (the last one
   * wins), so the problem is held by the parent under the member's key until the parent closes: a later
   * value for the same key replaces it. At the top level there is nothing to wait for.
   */
  private reject(problem: HeldProblem): void {
    const frames = this.frames;
    if (frames.length === 0) throw new JsonScanError(problem.reason, problem.offset, `$${problem.at}`, true);
    const parent = frames[frames.length - 1]!;
    if (parent.isObject) {
      const key = parent.key!;
      parent.problems ??= new Map();
      parent.problems.set(key, { ...problem, at: keySegment(key) + problem.at });
      delete parent.obj![key]; // an earlier value of the same key is replaced for JSON.parse too
    } else {
      parent.problem ??= { ...problem, at: `[${parent.index}]${problem.at}` };
    }
  }

  /** The kept value being built must end by `end` within its cap. */
  private checkValueSize(end: number): void {
    if (this.valueStart >= 0 && end - this.valueStart > this.limits.maxValueBytes)
      this.fail(
        `value larger than ${this.limits.maxValueBytes} bytes where a small value is expected`,
        this.valueStart,
      );
  }

  /** A kept value is complete: check it and attach it to its parent. */
  private deliver(value: unknown, node: SchemaNode, start: number, end: number): void {
    if (node.kind === 'value') {
      this.checkValueSize(end);
      if (node.check) {
        const problem = node.check(value);
        if (problem) {
          this.reject({ reason: problem.message, offset: start, at: problem.at ?? '' });
          return;
        }
      }
    }
    const frames = this.frames;
    if (frames.length === 0) {
      this.result = value;
      return;
    }
    const parent = frames[frames.length - 1]!;
    if (parent.isObject) {
      // A key too long to compare is never a field, so it is never delivered; key is always set here.
      const key = parent.key!;
      parent.problems?.delete(key); // a later duplicate replaces an earlier, rejected value
      if (key === '__proto__') {
        // JSON.parse makes "__proto__" an own property; an assignment would set the prototype.
        Object.defineProperty(parent.obj!, key, {
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else {
        parent.obj![key] = value;
      }
    } else {
      parent.arr!.push(value);
    }
  }

  // ---- strings --------------------------------------------------------------------------------------

  private startKey(buf: Buffer, i: number): number {
    const at = this.base + i;
    const depth = this.depth;
    if (depth > this.frames.length) {
      this.beginString(STR_SKIP, at, SKIP, true);
      return this.continueString(buf, i + 1);
    }
    const frame = this.frames[depth - 1]!;
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
      const field = matchName(node.names, buf, from, j);
      if (field) this.setKey(frame, node, field.name, field.node);
      else this.setKey(frame, node, latin1(buf, from, j), SKIP);
      this.st = S_COLON;
      return j + 1;
    }
    this.beginString(STR_FIELD, at, SKIP, true);
    return this.continueString(buf, from);
  }

  private setKey(frame: Frame, node: ObjectNode, key: string, next: SchemaNode): void {
    frame.key = key;
    frame.next = next;
    if (node.track?.has(key)) {
      frame.seen ??= new Set();
      frame.seen.add(key);
    }
  }

  private beginString(mode: number, at: number, node: SchemaNode, isKey: boolean): void {
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
  private continueString(buf: Buffer, i: number): number {
    if (this.strMode === STR_SKIP) return this.skipString(buf, i);
    return this.captureString(buf, i);
  }

  private skipString(buf: Buffer, i: number): number {
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
  private scanString(buf: Buffer, i: number): number {
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

  /** Kept strings (and keys of schema objects): scanned by scanString, their bytes kept up to a cap. */
  private captureString(buf: Buffer, i: number): number {
    const start = i;
    const q = this.scanString(buf, i);
    const end = q < 0 ? buf.length : q;
    const len = this.strLen + (end - start);
    if (len > (this.strMode === STR_FIELD ? MAX_FIELD_KEY_BYTES : this.limits.maxStringBytes)) {
      if (this.strMode !== STR_FIELD)
        this.fail(
          `string longer than ${this.limits.maxStringBytes} bytes where a short value is expected`,
          this.strStart,
        );
      // Too long to unescape to any field name: not a field, so the rest is skipped (still validated).
      this.strMode = STR_SKIP;
      this.strParts = [];
      if (q < 0) return -1;
      this.completeString(undefined, q);
      return q + 1;
    }
    this.strLen = len;
    if (q < 0) {
      // A copy: the caller may reuse the chunk's memory.
      if (end > start) this.strParts.push(Buffer.from(buf.subarray(start, end)));
      return -1;
    }
    const parts = this.strParts;
    let bytes: Buffer;
    if (parts.length === 0) {
      bytes = buf.subarray(start, q);
    } else {
      parts.push(buf.subarray(start, q));
      bytes = Buffer.concat(parts, len);
      this.strParts = [];
    }
    this.finishCaptured(bytes, q);
    return q + 1;
  }

  /** Decode a captured string body (valid UTF-8 with valid escapes: both were checked while scanning). */
  private finishCaptured(bytes: Buffer, q: number): void {
    let text = isAscii(bytes) ? latin1(bytes, 0, bytes.length) : bytes.toString('utf8');
    if (bytes.includes(BACKSLASH)) {
      text = JSON.parse(`"${text}"`) as string;
      // JSON.parse keeps a lone surrogate; Go (OPA) reads it as U+FFFD. A kept string must read the same,
      // so it is a problem of the value (held back like the others: a later duplicate may replace it).
      const lone = this.strMode === STR_FIELD ? null : LONE_SURROGATE.exec(text);
      if (lone) {
        const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
        const problem: HeldProblem = {
          reason: `an unpaired surrogate (U+${unit}, a \\u escape for half of a UTF-16 pair) where tfgate reads a value (OPA would read U+FFFD there, JSON.parse would keep it)`,
          offset: this.strStart,
          at: '',
        };
        if (this.strMode === STR_VALUE) {
          this.reject(problem);
          this.completeString(undefined, q);
          return;
        }
        // A key of a kept generic object: the object is refused whatever the key's value.
        this.frames[this.frames.length - 1]!.problem ??= problem;
      }
    }
    this.completeString(text, q);
  }

  /** A string ended at buf[q]; text is undefined when it was skipped. */
  private completeString(text: string | undefined, q: number): void {
    if (this.strIsKey) {
      this.st = S_COLON;
      const depth = this.depth;
      if (depth === this.frames.length) {
        const frame = this.frames[depth - 1]!;
        frame.key = text;
        const node = frame.node;
        if (node.kind === 'object') {
          if (text === undefined) {
            frame.key = undefined;
            frame.next = SKIP;
          } else {
            this.setKey(frame, node, text, node.fields.get(text) ?? SKIP);
          }
        } else {
          // A key of a kept value: the value's size cap counts keys too, so a deep chain of long keys
          // (never delivered until its innermost value ends) cannot grow without bound.
          this.checkValueSize(this.base + q + 1);
          frame.next = GENERIC;
        }
      }
      return;
    }
    const depth = this.depth;
    this.st = depth === 0 ? S_DONE : S_AFTER;
    if (text !== undefined) this.deliver(text, this.strNode, this.strStart, this.base + q + 1);
  }

  // ---- numbers and literals ---------------------------------------------------------------------------

  private continueNumber(buf: Buffer, i: number): number {
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
          if (c === 0x2b || c === 0x2d) s = N_ESIGN;
          else if (digit) s = N_EXP;
          else
            this.fail(
              `invalid number: expected a digit in the exponent, found ${describeByte(c)}`,
              this.base + i,
            );
          continue;
        case N_ESIGN:
          if (digit) s = N_EXP;
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

  private endNumber(at: number): void {
    const s = this.numState;
    if (s !== N_ZERO && s !== N_INT && s !== N_FRAC && s !== N_EXP)
      this.fail('invalid number: it ends too early', at);
    this.st = this.depth === 0 ? S_DONE : S_AFTER;
    if (this.numNode.kind !== 'skip') {
      this.deliver(Number(this.numText), this.numNode, this.numStart, at);
    }
  }

  private continueLiteral(buf: Buffer, i: number): number {
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
    this.st = this.depth === 0 ? S_DONE : S_AFTER;
    if (this.litNode.kind !== 'skip') this.deliver(lit.value, this.litNode, this.litStart, this.base + i);
    return i;
  }

  // ---- errors -----------------------------------------------------------------------------------------

  private expectedHere(): string {
    switch (this.st) {
      case S_VALUE:
        return 'expected a value';
      case S_ARR_FIRST:
        return "expected a value or ']'";
      case S_OBJ_FIRST:
        return "expected an object key or '}'";
      case S_KEY:
        return 'expected an object key';
      case S_COLON:
        return "expected ':'";
      case S_AFTER:
        return this.types[this.depth - 1] === OBJ ? "expected ',' or '}'" : "expected ',' or ']'";
      default:
        return 'expected more input';
    }
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

  private fail(reason: string, offset: number): never {
    const { path, exact } = this.pathHere();
    throw new JsonScanError(reason, offset, path, exact);
  }

  private typeError(node: SchemaNode, c: number, at: number): HeldProblem {
    const what = node.kind === 'object' || node.kind === 'array' ? node.what : 'a value';
    return { reason: `expected ${what}, found ${describeValueStart(c)}`, offset: at, at: '' };
  }
}

const NOTHING_SEEN: ReadonlySet<string> = new Set();

/** The frame's held-back problem that comes first in the document. */
function firstProblem(frame: Frame): HeldProblem | undefined {
  let first = frame.problem;
  if (frame.problems === undefined) return first;
  for (const held of frame.problems.values()) if (!first || held.offset < first.offset) first = held;
  return first;
}

/** Whether a byte can start a JSON value. */
function startsValue(c: number): boolean {
  return c === 0x7b || c === 0x5b || c === QUOTE || c === 0x2d || isDigit(c) || c in LITERALS;
}

/**
 * Index just past a valid number starting at buf[i], or -1 when it is invalid or reaches the chunk's end
 * (the general number code then reports the error or resumes across the chunk).
 */
function numberEnd(buf: Buffer, i: number): number {
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
function stringEnd(buf: Buffer, from: number): number {
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

/** Bytes in the UTF-8 sequence a byte starts; 1 for ASCII and for bytes that cannot start one. */
function sequenceLength(c: number): number {
  if (c < 0xc2) return 1;
  if (c < 0xe0) return 2;
  if (c < 0xf0) return 3;
  return c < 0xf5 ? 4 : 1;
}

/** Index of the first byte of buf[from, end) that does not start a valid UTF-8 sequence (error path). */
function firstInvalidUtf8(buf: Buffer, from: number, end: number): number {
  for (let i = from; i < end; ) {
    const len = sequenceLength(buf[i]!);
    if (i + len > end || !isUtf8(buf.subarray(i, i + len))) return i;
    i += len;
  }
  return end;
}

interface Latin1Buffer {
  latin1Slice(start: number, end: number): string;
}
const hasLatin1Slice =
  typeof (Buffer.prototype as unknown as Partial<Latin1Buffer>).latin1Slice === 'function';

/** buf[start, end) as a string of bytes (ASCII here). latin1Slice skips toString's argument handling. */
function latin1(buf: Buffer, start: number, end: number): string {
  return hasLatin1Slice
    ? (buf as unknown as Latin1Buffer).latin1Slice(start, end)
    : buf.toString('latin1', start, end);
}

function matchName(
  names: readonly FieldName[],
  buf: Buffer,
  start: number,
  end: number,
): FieldName | undefined {
  const len = end - start;
  outer: for (let f = 0; f < names.length; f++) {
    const field = names[f]!;
    const bytes = field.bytes;
    if (bytes.length !== len) continue;
    for (let k = 0; k < len; k++) if (bytes[k] !== buf[start + k]) continue outer;
    return field;
  }
  return undefined;
}

function newFrame(node: ObjectNode | ArrayNode | ValueNode, isObject: boolean, start: number): Frame {
  return {
    node,
    isObject,
    obj: isObject ? {} : undefined,
    arr: isObject ? undefined : [],
    start,
    key: undefined,
    index: 0,
    next: SKIP,
    seen: undefined,
    problems: undefined,
    problem: undefined,
  };
}

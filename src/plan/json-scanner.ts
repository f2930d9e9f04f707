// A resumable, byte-level JSON scanner. It validates the whole document but materializes only the parts a
// schema keeps, so a 140 MB plan whose bytes are mostly secret values is read in constant memory.
//
// Design: one state machine over Buffer chunks with an explicit container stack, so any token may be split
// across chunks. Kept containers have a Frame (a prefix of the stack); everything deeper is skipped.
// Skipped string bodies are found with Buffer#indexOf (memchr) instead of a per-byte loop.
//
// Deliberate relaxation, for speed: inside *skipped* strings, control characters, escape sequences and UTF-8
// are not validated (only the closing quote is found). Kept strings are fully validated. Structure,
// literals, numbers, trailing data and truncation are validated everywhere.
// A UTF-8 byte order mark is refused, like JSON.parse does: Terraform never writes one, and RFC 8259 forbids
// adding one. UTF-16 input (PowerShell's `>` redirection) is refused with its own message.

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

const utf8 = new TextDecoder('utf-8', { fatal: true });
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
  private strEsc = false; // the previous byte was an unescaped backslash
  private strHasEsc = false;
  private strHasHigh = false;
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

  constructor(root: SchemaNode, limits: Partial<ScannerLimits> = {}) {
    this.root = root;
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Total bytes fed so far. */
  get bytes(): number {
    return this.base;
  }

  write(buf: Buffer): void {
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
          const q = findStringEnd(buf, i + 1);
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
          const q = findStringEnd(buf, i + 1);
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
    const node = this.nodeHere();
    const kind = node.kind;
    if (this.depth === 0) this.checkDocumentStart(buf, i, c);
    if (c === QUOTE) {
      if (kind === 'skip') {
        this.beginString(STR_SKIP, at, SKIP, false);
        return this.continueString(buf, i + 1);
      }
      if (kind !== 'value') this.typeError(node, c, at);
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
          try {
            text = JSON.parse(latin1(buf, i, j + 1)) as string;
          } catch {
            this.fail('invalid escape sequence inside a string', at);
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
      } else if ((kind === 'object') === isObject) {
        this.push(isObject ? OBJ : ARR, at);
        this.frames.push(newFrame(node, isObject, at));
      } else {
        this.typeError(node, c, at);
      }
      this.st = isObject ? S_OBJ_FIRST : S_ARR_FIRST;
      return i + 1;
    }
    if (c === 0x2d || isDigit(c)) {
      if (kind !== 'skip' && kind !== 'value') this.typeError(node, c, at);
      this.st = S_NUMBER;
      this.numState = c === 0x2d ? N_MINUS : c === 0x30 ? N_ZERO : N_INT;
      this.numStart = at;
      this.numNode = node;
      this.numText = kind === 'skip' ? '' : String.fromCharCode(c);
      return this.continueNumber(buf, i + 1);
    }
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      if (kind !== 'skip' && kind !== 'value') this.typeError(node, c, at);
      this.st = S_LITERAL;
      this.litFirst = c;
      this.litPos = 1;
      this.litStart = at;
      this.litNode = node;
      return this.continueLiteral(buf, i + 1);
    }
    if (kind !== 'skip' && kind !== 'value') this.typeError(node, c, at);
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
      if (node.kind === 'value') {
        this.deliver(value, node, frame.start, at + 1);
        if (this.valueStart === frame.start) this.valueStart = -1;
      } else {
        const problem = frame.isObject
          ? (node as ObjectNode).close?.(frame.obj!, frame.seen ?? NOTHING_SEEN)
          : (node as ArrayNode).close?.(frame.arr!);
        if (problem) this.problem(problem, frame.start);
        this.deliver(value, node, frame.start, at + 1);
      }
    }
    this.st = this.depth === 0 ? S_DONE : S_AFTER;
  }

  /** A kept value is complete: check it and attach it to its parent. */
  private deliver(value: unknown, node: SchemaNode, start: number, end: number): void {
    if (node.kind === 'value') {
      if (this.valueStart >= 0 && end - this.valueStart > this.limits.maxValueBytes)
        this.fail(
          `value larger than ${this.limits.maxValueBytes} bytes where a small value is expected`,
          this.valueStart,
        );
      if (node.check) {
        const problem = node.check(value);
        if (problem) this.problem(problem, start);
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
      parent.obj![parent.key!] = value;
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
    const limit = Math.min(n, from + MAX_FIELD_KEY + 1);
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
    this.strEsc = false;
    this.strHasEsc = false;
    this.strHasHigh = false;
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

  /** Find the closing quote with indexOf; only backslash runs right before a quote are looked at. */
  private skipString(buf: Buffer, i: number): number {
    const n = buf.length;
    let from = i;
    if (this.strEsc) {
      // The previous chunk ended with a backslash: this byte is escaped.
      if (i >= n) return -1;
      this.strEsc = false;
      i++;
      from = i;
    }
    for (;;) {
      const q = buf.indexOf(QUOTE, i);
      if (q < 0) {
        let k = n - 1;
        while (k >= from && buf[k] === BACKSLASH) k--;
        this.strEsc = ((n - 1 - k) & 1) === 1;
        return -1;
      }
      if (q > from && buf[q - 1] === BACKSLASH) {
        let k = q - 2;
        while (k >= from && buf[k] === BACKSLASH) k--;
        if (((q - 1 - k) & 1) === 1) {
          i = q + 1;
          continue;
        }
      }
      this.completeString(undefined, q);
      return q + 1;
    }
  }

  /** Kept strings are short: a byte loop that also validates control characters and notes escapes. */
  private captureString(buf: Buffer, i: number): number {
    const n = buf.length;
    const start = i;
    let esc = this.strEsc;
    let hasEsc = this.strHasEsc;
    let hasHigh = this.strHasHigh;
    for (; i < n; i++) {
      const c = buf[i]!;
      if (esc) {
        esc = false;
      } else if (c === QUOTE) {
        break;
      } else if (c === BACKSLASH) {
        esc = true;
        hasEsc = true;
      } else if (c < 0x20) {
        this.fail(`control character ${describeByte(c)} inside a string: it must be escaped`, this.base + i);
      } else if (c >= 0x80) {
        hasHigh = true;
      }
    }
    this.strEsc = esc;
    this.strHasEsc = hasEsc;
    this.strHasHigh = hasHigh;
    const len = this.strLen + (i - start);
    const cap = this.strMode === STR_FIELD ? MAX_FIELD_KEY : this.limits.maxStringBytes;
    if (len > cap) {
      if (this.strMode === STR_FIELD) {
        // Longer than any field name, so not a field: finish it in skip mode without keeping its bytes.
        // strEsc (set above) tells skipString whether buf[i] is escaped. If buf[i] is the closing quote it
        // is found again there.
        this.strMode = STR_SKIP;
        this.strParts = [];
        return this.skipString(buf, i);
      }
      this.fail(
        `string longer than ${this.limits.maxStringBytes} bytes where a short value is expected`,
        this.strStart,
      );
    }
    if (i >= n) {
      if (i > start) this.strParts.push(Buffer.from(buf.subarray(start, i)));
      this.strLen = len;
      return -1;
    }
    this.strLen = len;
    const parts = this.strParts;
    let bytes: Buffer;
    if (parts.length === 0) {
      bytes = buf.subarray(start, i);
    } else {
      parts.push(buf.subarray(start, i));
      bytes = Buffer.concat(parts, len);
      this.strParts = [];
    }
    this.finishCaptured(bytes, i);
    return i + 1;
  }

  private finishCaptured(bytes: Buffer, q: number): void {
    let text: string;
    if (!this.strHasEsc && !this.strHasHigh) {
      text = latin1(bytes, 0, bytes.length);
    } else {
      let raw: string;
      try {
        raw = this.strHasHigh ? utf8.decode(bytes) : bytes.toString('latin1');
      } catch {
        this.fail('invalid UTF-8 inside a string', this.strStart);
      }
      if (this.strHasEsc) {
        try {
          text = JSON.parse(`"${raw}"`) as string;
        } catch {
          this.fail('invalid escape sequence inside a string', this.strStart);
        }
      } else {
        text = raw;
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
    if (this.numNode.kind !== 'skip') this.numText += buf.toString('latin1', start, i);
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
      if (this.numText.length > 1024) this.fail('number too long', this.numStart);
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

  private typeError(node: SchemaNode, c: number, at: number): never {
    const what = node.kind === 'object' || node.kind === 'array' ? node.what : 'a value';
    const { path } = this.pathHere();
    throw new JsonScanError(`expected ${what}, found ${describeValueStart(c)}`, at, path, true);
  }

  private problem(problem: Problem, at: number): never {
    const { path } = this.pathHere();
    throw new JsonScanError(problem.message, at, path + (problem.at ?? ''), true);
  }
}

const NOTHING_SEEN: ReadonlySet<string> = new Set();

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
 * Index of the quote that closes a string whose body starts at buf[from], or -1 if it is not in this
 * chunk. Short bodies are walked in JS (cheaper than a native call); longer ones use indexOf (memchr).
 * A quote preceded by an odd run of backslashes is escaped; runs are counted back to `from` only.
 */
function findStringEnd(buf: Buffer, from: number): number {
  const n = buf.length;
  let i = from;
  const limit = Math.min(n, from + 24);
  for (; i < limit; i++) {
    const c = buf[i]!;
    if (c === QUOTE) break;
    if (c === BACKSLASH) {
      i = limit; // escapes present: take the general path below
      break;
    }
  }
  if (i < limit) return i;
  i = from;
  for (;;) {
    const q = buf.indexOf(QUOTE, i);
    if (q < 0) return -1;
    if (q > from && buf[q - 1] === BACKSLASH) {
      let k = q - 2;
      while (k >= from && buf[k] === BACKSLASH) k--;
      if (((q - 1 - k) & 1) === 1) {
        i = q + 1;
        continue;
      }
    }
    return q;
  }
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

/** Longest field name of any schema object, plus slack: longer keys are skipped without being kept. */
const MAX_FIELD_KEY = 64;

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
  };
}

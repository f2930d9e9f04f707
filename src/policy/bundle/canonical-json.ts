// OPA's digest of a structured bundle file (v1/bundle/hash.go): the JSON read as Go's encoding/json reads it,
// rendered with object keys sorted and primitives encoded as Go writes them, then hashed. The rendering is
// made in one forward pass over the bytes with no tree of values, so it takes memory about the size of its
// output; and it is what opa reads, so the verifier parses it (not the raw file) for what the rules see.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { Bytes } from './bytes.js';

/** Not JSON that tfgate and opa read the same way: the message says where and why. */
export class CanonicalJsonError extends SyntaxError {
  override readonly name = 'CanonicalJsonError';
}

/** Deeper documents are refused: tfgate's data is a few levels deep. */
export const MAX_JSON_DEPTH = 512;
/**
 * Larger objects are refused: each member's key is kept and sorted until the object closes, and the largest
 * table in tfgate's data (the catalog) has a few thousand entries.
 */
export const MAX_JSON_MEMBERS = 100_000;

/** SHA-256 of a structured file (data.json, .manifest) as OPA computes it; throws CanonicalJsonError. */
export function canonicalJsonDigest(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(canonicalJson(bytes)).digest();
}

/**
 * The bytes OPA hashes for a structured file: keys sorted byte-wise, duplicate keys resolved as Go resolves
 * them (the last wins), lone surrogate escapes read as U+FFFD, numbers kept as written, no whitespace.
 */
export function canonicalJson(bytes: Uint8Array): Buffer {
  return renderCanonicalJson(bytes).bytes;
}

export interface CanonicalRendering {
  bytes: Buffer;
  /** Some key is written with an escape (a quote, backslash, control character, U+2028 or U+2029 in it). */
  escapedKeys: boolean;
}

/** canonicalJson, saying too whether a key needed an escape (canonical-read.ts then avoids JSON.parse). */
export function renderCanonicalJson(bytes: Uint8Array): CanonicalRendering {
  const canonicalizer = new Canonicalizer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return { bytes: canonicalizer.run(), escapedKeys: canonicalizer.escapedKeys };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A string as Go's json.Encoder writes it with SetEscapeHTML(false): like JSON.stringify, except that
 * U+2028 and U+2029 are escaped, and lone surrogates (which Go decodes to U+FFFD) become U+FFFD.
 */
export function encodeGoString(value: string): string {
  return JSON.stringify(value.replace(LONE_SURROGATE, '\uFFFD'))
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Go's order of byte-wise sorted UTF-8: for keys below U+D800 the same as UTF-16 order, so `<` serves. */
function compareKeys(wide: boolean): (a: string, b: string) => number {
  return wide
    ? (a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
    : (a, b) => (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The members to write, by index, in Go's key order; of equal keys only the last (Go's map keeps the last
 * value). Keys already in order, the common case, cost one pass.
 */
function memberOrder(keys: readonly string[], wide: boolean): number[] {
  const compare = compareKeys(wide);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = compare(keys[i - 1]!, keys[i]!) < 0;
  const order = keys.map((_, i) => i);
  if (sorted) return order;
  // Stable, so of equal keys the last in the document comes last in its run: keep only that one.
  order.sort((a, b) => compare(keys[a]!, keys[b]!));
  return order.filter((k, i) => i + 1 === order.length || keys[order[i + 1]!] !== keys[k]);
}

interface ObjectFrame {
  parent: Bytes;
  /** The members' rendered values, one after the other; starts/ends index into it. */
  values: Bytes;
  keys: string[];
  /** Each key as Go writes it: the start of its bytes in the input when they can be copied, else its encoding. */
  encodedKeys: Array<Buffer | number>;
  /** Where each copyable key ends in the input. */
  keyEnds: number[];
  starts: number[];
  ends: number[];
  /** Some key has a UTF-16 unit at or past U+D800, where UTF-16 order and Go's UTF-8 order differ. */
  wide: boolean;
}
type Frame = ObjectFrame | 'array';

const LS = Buffer.from('\\u2028', 'latin1');
const PS = Buffer.from('\\u2029', 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

class Canonicalizer {
  private pos = 0;
  private out = new Bytes();
  private readonly root = this.out;
  private readonly stack: Frame[] = [];
  escapedKeys = false;
  /** Object frames by depth, reused: an object's frame is free again once it is written to its parent. */
  private readonly pool: ObjectFrame[] = [];

  constructor(private readonly src: Buffer) {}

  private fail(what: string): never {
    throw new CanonicalJsonError(`invalid JSON at byte ${this.pos}: ${what}`);
  }

  run(): Buffer {
    const src = this.src;
    // util.Unmarshal strips a UTF-8 byte order mark before parsing.
    if (src[0] === 0xef && src[1] === 0xbb && src[2] === 0xbf) this.pos = 3;
    // Go reads each invalid byte as U+FFFD where JSON.parse may read several as one: refuse them instead.
    if (!isUtf8(src.subarray(this.pos))) throw new CanonicalJsonError('not valid UTF-8');
    // Iterative, with an explicit stack: a value either completes or opens a container to read into.
    for (;;) {
      if (this.value() === 'opened') continue;
      if (this.afterValue()) return Buffer.from(this.root.buf.subarray(0, this.root.length));
    }
  }

  private skipWhitespace(): void {
    const src = this.src;
    let pos = this.pos;
    while (pos < src.length) {
      const c = src[pos]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      pos++;
    }
    this.pos = pos;
  }

  /** One value, or the opening of a container whose first element (or member's value) is read next. */
  private value(): 'opened' | 'done' {
    this.skipWhitespace();
    const c = this.src[this.pos];
    if (c === 0x7b || c === 0x5b) {
      if (this.stack.length >= MAX_JSON_DEPTH) this.fail(`nested deeper than ${MAX_JSON_DEPTH} levels`);
      this.pos++;
      this.skipWhitespace();
      if (c === 0x5b) {
        this.out.byte(0x5b);
        this.stack.push('array');
        if (this.src[this.pos] === 0x5d) {
          this.pos++;
          this.out.byte(0x5d);
          this.stack.pop();
          return 'done';
        }
        return 'opened';
      }
      const frame = this.frameAt(this.stack.length, this.out);
      this.stack.push(frame);
      this.out = frame.values;
      if (this.src[this.pos] === 0x7d) {
        this.pos++;
        this.closeObject();
        return 'done';
      }
      this.member(frame);
      return 'opened';
    }
    if (c === QUOTE) {
      const start = this.pos;
      const { end, plain, escaped } = this.scanString();
      if (plain) this.out.bytes(this.src, start, end);
      else if (!escaped) this.copyEscapingSeparators(start, end);
      else {
        const encoded = Buffer.from(encodeGoString(this.decodeString(start, end)), 'utf8');
        this.out.bytes(encoded, 0, encoded.length);
      }
      return 'done';
    }
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      const literal = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      if (this.src.toString('latin1', this.pos, this.pos + literal.length) !== literal)
        this.fail('expected a value');
      this.out.bytes(this.src, this.pos, this.pos + literal.length);
      this.pos += literal.length;
      return 'done';
    }
    if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) {
      const start = this.pos;
      this.scanNumber();
      this.out.bytes(this.src, start, this.pos);
      return 'done';
    }
    return this.fail(c === undefined ? 'unexpected end of input' : 'expected a value');
  }

  private frameAt(depth: number, parent: Bytes): ObjectFrame {
    const frame = this.pool[depth];
    if (frame === undefined) {
      const fresh: ObjectFrame = {
        parent,
        values: new Bytes(),
        keys: [],
        encodedKeys: [],
        keyEnds: [],
        starts: [],
        ends: [],
        wide: false,
      };
      this.pool[depth] = fresh;
      return fresh;
    }
    frame.parent = parent;
    frame.values.length = 0;
    frame.keys.length = 0;
    frame.encodedKeys.length = 0;
    frame.keyEnds.length = 0;
    frame.starts.length = 0;
    frame.ends.length = 0;
    frame.wide = false;
    return frame;
  }

  /** After a value: close what it ends; false when the next member or element follows, true at the end. */
  private afterValue(): boolean {
    for (;;) {
      this.skipWhitespace();
      const top = this.stack[this.stack.length - 1];
      const c = this.src[this.pos];
      if (top === undefined) {
        if (this.pos !== this.src.length) this.fail('unexpected data after the top-level value');
        return true;
      }
      if (top === 'array') {
        this.pos++;
        if (c === COMMA) {
          this.out.byte(COMMA);
          return false;
        }
        if (c === 0x5d) {
          this.out.byte(0x5d);
          this.stack.pop();
          continue;
        }
        this.pos--;
        this.fail("expected ',' or ']'");
      }
      top.ends.push(this.out.length);
      if (c === COMMA) {
        this.pos++;
        this.member(top);
        return false;
      }
      if (c === 0x7d) {
        this.pos++;
        this.closeObject();
        continue;
      }
      this.fail("expected ',' or '}'");
    }
  }

  /** A key and its colon; the value is read next. */
  private member(frame: ObjectFrame): void {
    if (frame.keys.length >= MAX_JSON_MEMBERS)
      this.fail(`an object has more than ${MAX_JSON_MEMBERS} members`);
    this.skipWhitespace();
    const start = this.pos;
    if (this.src[start] !== QUOTE) this.fail('expected a string key');
    const { end, plain } = this.scanString();
    const key = plain ? this.src.toString('utf8', start + 1, end - 1) : this.decodeString(start, end);
    frame.keys.push(key);
    const encoded = plain ? start : Buffer.from(encodeGoString(key), 'utf8');
    if (typeof encoded !== 'number' && encoded.includes(BACKSLASH)) this.escapedKeys = true;
    frame.encodedKeys.push(encoded);
    frame.keyEnds.push(end);
    if (!frame.wide && /[\uD800-\uFFFF]/.test(key)) frame.wide = true;
    this.skipWhitespace();
    if (this.src[this.pos] !== COLON) this.fail("expected ':'");
    this.pos++;
    frame.starts.push(frame.values.length);
  }

  /** Write the object's members to its parent in Go's key order, the last of equal keys winning. */
  private closeObject(): void {
    const frame = this.stack.pop() as ObjectFrame;
    const { keys, encodedKeys, keyEnds, starts, ends, values } = frame;
    const order = memberOrder(keys, frame.wide);
    const out = frame.parent;
    out.byte(0x7b);
    let first = true;
    for (const k of order) {
      if (!first) out.byte(COMMA);
      first = false;
      const encoded = encodedKeys[k]!;
      if (typeof encoded === 'number') {
        out.bytes(this.src, encoded, keyEnds[k]!);
      } else {
        out.bytes(encoded, 0, encoded.length);
      }
      out.byte(COLON);
      out.bytes(values.buf, starts[k]!, ends[k]!);
    }
    out.byte(0x7d);
    this.out = out;
  }

  /**
   * Find the end of the string at pos. `plain`: no escapes and no U+2028/U+2029, so Go writes it exactly
   * as it is written here and its bytes can be copied; `escaped`: it has backslash escapes to decode.
   */
  private scanString(): { end: number; plain: boolean; escaped: boolean } {
    const src = this.src;
    let i = this.pos + 1;
    let plain = true;
    let escaped = false;
    for (;;) {
      if (i >= src.length) {
        this.pos = i;
        this.fail('unterminated string');
      }
      const b = src[i]!;
      if (b === QUOTE) break;
      if (b === BACKSLASH) {
        plain = false;
        escaped = true;
        const e = src[i + 1];
        if (e === 0x75) {
          if (!/^[0-9a-fA-F]{4}$/.test(src.toString('latin1', i + 2, i + 6))) {
            this.pos = i;
            this.fail('invalid \\u escape');
          }
          i += 6;
          continue;
        }
        // " \ / b f n r t
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
          continue;
        }
        this.pos = i;
        this.fail('invalid escape');
      }
      if (b < 0x20) {
        this.pos = i;
        this.fail('control character in string');
      }
      if (b === 0xe2 && src[i + 1] === 0x80 && (src[i + 2] === 0xa8 || src[i + 2] === 0xa9)) plain = false;
      i++;
    }
    this.pos = i + 1;
    return { end: i + 1, plain, escaped };
  }

  /** A string with no escapes but with U+2028 or U+2029, which Go writes as \u2028 and \u2029. */
  private copyEscapingSeparators(start: number, end: number): void {
    const src = this.src;
    let from = start;
    for (let i = start; i < end; i++) {
      if (src[i] === 0xe2 && src[i + 1] === 0x80 && (src[i + 2] === 0xa8 || src[i + 2] === 0xa9)) {
        this.out.bytes(src, from, i);
        this.out.bytes(src[i + 2] === 0xa8 ? LS : PS, 0, 6);
        i += 2;
        from = i + 1;
      }
    }
    this.out.bytes(src, from, end);
  }

  /** The string token [start, end) as Go decodes it: escapes resolved, lone surrogates read as U+FFFD. */
  private decodeString(start: number, end: number): string {
    return (JSON.parse(this.src.toString('utf8', start, end)) as string).replace(LONE_SURROGATE, '\uFFFD');
  }

  /** RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
  private scanNumber(): void {
    const src = this.src;
    const digits = (): number => {
      const from = this.pos;
      while (this.pos < src.length && src[this.pos]! >= 0x30 && src[this.pos]! <= 0x39) this.pos++;
      return this.pos - from;
    };
    if (src[this.pos] === 0x2d) this.pos++;
    if (src[this.pos] === 0x30) this.pos++;
    else if (digits() === 0) this.fail('invalid number');
    if (src[this.pos] === 0x2e) {
      this.pos++;
      if (digits() === 0) this.fail('invalid number');
    }
    if (src[this.pos] === 0x65 || src[this.pos] === 0x45) {
      this.pos++;
      if (src[this.pos] === 0x2b || src[this.pos] === 0x2d) this.pos++;
      if (digits() === 0) this.fail('invalid number');
    }
  }
}

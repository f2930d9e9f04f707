// The oracle for the canonical-JSON fuzz target: tfgate's previous canonical digest, which parsed the whole
// document into a tree before hashing it (correct, checked against opa, but unbounded in memory), kept here
// only to check the streaming renderer in src/policy/bundle/canonical-json.ts against it.
import { createHash, type Hash } from 'node:crypto';
import { encodeGoString } from '../../../src/policy/bundle/canonical-json.js';

/** A parsed JSON value that keeps each number's literal text: OPA decodes with UseNumber and hashes it as written. */
type CanonicalValue =
  | { t: 'object'; entries: Map<string, CanonicalValue> }
  | { t: 'array'; items: CanonicalValue[] }
  | { t: 'string'; value: string }
  | { t: 'number'; literal: string }
  | { t: 'literal'; literal: 'true' | 'false' | 'null' };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** SHA-256 of a structured file as OPA computes it; throws SyntaxError on invalid JSON. */
export function referenceCanonicalDigest(bytes: Uint8Array): Buffer {
  const hash = createHash('sha256');
  walk(parseCanonical(decodeUtf8(bytes)), hash);
  return hash.digest();
}

/**
 * The document as a JS value, the way JSON.parse would build it (last duplicate key wins, numbers as
 * JavaScript reads them), but without JSON.parse for objects: on V8 12.8 to 14.6 (Node 24 and 26) an
 * earlier JSON.parse can make a later one read an escaped key as another key
 * (https://github.com/nodejs/node/issues/63785), which would make a comparison against it flaky.
 */
export function referenceValue(bytes: Uint8Array): unknown {
  const build = (value: CanonicalValue): unknown => {
    switch (value.t) {
      case 'object': {
        const object: Record<string, unknown> = {};
        for (const [key, item] of value.entries) {
          Object.defineProperty(object, key, {
            value: build(item),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return object;
      }
      case 'array':
        return value.items.map(build);
      case 'string':
        return value.value;
      case 'number':
        return Number(value.literal);
      default:
        return JSON.parse(value.literal);
    }
  };
  return build(parseCanonical(decodeUtf8(bytes)));
}

function decodeUtf8(bytes: Uint8Array): string {
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // util.Unmarshal strips a UTF-8 byte order mark before parsing.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}

function walk(value: CanonicalValue, hash: Hash): void {
  switch (value.t) {
    case 'object': {
      hash.update('{');
      const keys = [...value.entries.keys()].sort(compareUtf8);
      keys.forEach((key, i) => {
        if (i > 0) hash.update(',');
        hash.update(encodeGoString(key));
        hash.update(':');
        walk(value.entries.get(key)!, hash);
      });
      hash.update('}');
      return;
    }
    case 'array':
      hash.update('[');
      value.items.forEach((item, i) => {
        if (i > 0) hash.update(',');
        walk(item, hash);
      });
      hash.update(']');
      return;
    case 'string':
      hash.update(encodeGoString(value.value));
      return;
    default:
      hash.update(value.literal);
  }
}

/** Go sorts map keys byte-wise on UTF-8; JavaScript's default sort compares UTF-16 code units. */
function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A strict RFC 8259 parser that keeps number literals; duplicate keys keep the last value, as Go does. */
function parseCanonical(text: string): CanonicalValue {
  let pos = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`invalid JSON at character ${pos}: ${what}`);
  };
  const skipWhitespace = (): void => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) pos++;
      else break;
    }
  };
  const parseString = (): string => {
    // Find the closing quote, then let JSON.parse decode the escapes of exactly that token.
    const start = pos;
    pos++;
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        pos++;
        // Decoded as Go decodes it (one change from the old code, which kept lone surrogates in keys and so
        // did not merge keys that Go reads as the same U+FFFD).
        return (JSON.parse(text.slice(start, pos)) as string).replace(LONE_SURROGATE, '\uFFFD');
      }
      if (c === 0x5c) pos += 2;
      else if (c < 0x20) fail('control character in string');
      else pos++;
    }
    return fail('unterminated string');
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const parseValue = (depth: number): CanonicalValue => {
    if (depth > 512) fail('nesting too deep');
    skipWhitespace();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const entries = new Map<string, CanonicalValue>();
      skipWhitespace();
      if (text[pos] === '}') {
        pos++;
        return { t: 'object', entries };
      }
      for (;;) {
        skipWhitespace();
        if (text[pos] !== '"') fail('expected a string key');
        const key = parseString();
        skipWhitespace();
        if (text[pos] !== ':') fail("expected ':'");
        pos++;
        entries.delete(key);
        entries.set(key, parseValue(depth + 1));
        skipWhitespace();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return { t: 'object', entries };
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      pos++;
      const items: CanonicalValue[] = [];
      skipWhitespace();
      if (text[pos] === ']') {
        pos++;
        return { t: 'array', items };
      }
      for (;;) {
        items.push(parseValue(depth + 1));
        skipWhitespace();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return { t: 'array', items };
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return { t: 'string', value: parseString() };
    for (const literal of ['true', 'false', 'null'] as const) {
      if (text.startsWith(literal, pos)) {
        pos += literal.length;
        return { t: 'literal', literal };
      }
    }
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (match) {
      pos += match[0].length;
      return { t: 'number', literal: match[0] };
    }
    return fail('expected a value');
  };
  const value = parseValue(0);
  skipWhitespace();
  if (pos !== text.length) fail('unexpected data after the top-level value');
  return value;
}

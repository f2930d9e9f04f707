// Read a canonical rendering (canonical-json.ts) back into the values the rules see, as JSON.parse would.
// JSON.parse itself is used unless a key is written with an escape: V8 12.8 to 14.6 (Node 24 and 26) can
// then return another key, one that an earlier JSON.parse or an earlier object of the same document left in
// its key cache (https://github.com/nodejs/node/issues/63785); what the rules see must be what opa reads.
import type { CanonicalRendering } from './canonical-json.js';

export function readCanonicalJson(rendering: CanonicalRendering): unknown {
  const text = rendering.bytes.toString('utf8');
  return rendering.escapedKeys ? new CanonicalReader(text).read() : JSON.parse(text);
}

/**
 * A reader for canonical renderings only (compact, valid, nested at most MAX_JSON_DEPTH deep): objects are
 * built key by key, and JSON.parse only ever sees one string token at a time, which has no keys.
 */
class CanonicalReader {
  private pos = 0;

  constructor(private readonly text: string) {}

  read(): unknown {
    const value = this.value();
    if (this.pos !== this.text.length) throw new SyntaxError('not a canonical rendering');
    return value;
  }

  private value(): unknown {
    const c = this.text[this.pos];
    if (c === '{') {
      const object: Record<string, unknown> = {};
      this.pos++;
      if (this.text[this.pos] === '}') {
        this.pos++;
        return object;
      }
      for (;;) {
        const key = this.string();
        this.pos++; // ':'
        // As JSON.parse does: an own property, even for "__proto__".
        Object.defineProperty(object, key, {
          value: this.value(),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        if (this.text[this.pos++] === '}') return object;
      }
    }
    if (c === '[') {
      const array: unknown[] = [];
      this.pos++;
      if (this.text[this.pos] === ']') {
        this.pos++;
        return array;
      }
      for (;;) {
        array.push(this.value());
        if (this.text[this.pos++] === ']') return array;
      }
    }
    if (c === '"') return this.string();
    for (const [literal, value] of LITERALS) {
      if (this.text.startsWith(literal, this.pos)) {
        this.pos += literal.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.pos;
    const number = NUMBER.exec(this.text);
    if (!number) throw new SyntaxError('not a canonical rendering');
    this.pos += number[0].length;
    return Number(number[0]);
  }

  private string(): string {
    const start = this.pos;
    let i = start + 1;
    while (i < this.text.length && this.text[i] !== '"') i += this.text[i] === '\\' ? 2 : 1;
    if (i >= this.text.length) throw new SyntaxError('not a canonical rendering');
    this.pos = i + 1;
    return JSON.parse(this.text.slice(start, this.pos)) as string;
  }
}

const LITERALS: ReadonlyArray<[string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

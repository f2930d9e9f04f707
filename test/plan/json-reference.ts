// The reference reading the reader's tests compare with: JSON.parse's, with one detour. On V8 12.8 to 14.6
// (Node 24 and 26) JSON.parse can read a key written with an escape as another key an earlier parse left in
// its cache (https://github.com/nodejs/node/issues/63785: after a "\\" key, "\"" and "\u0061" read as "\"),
// so a comparison with it would fail at random. Here JSON.parse decides what is valid and decodes string
// tokens one at a time (a lone token has no keys); the objects are built as JSON.parse builds them: the last
// duplicate key wins, "__proto__" is an own property, a number is what Number() reads. Where no key has an
// escape, the result is checked against JSON.parse's own.
import { isDeepStrictEqual } from 'node:util';

/** JSON.parse(text), reading keys with escapes correctly; throws a SyntaxError where JSON.parse does. */
export function parseJson(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  const reader = new Reader(text);
  const value = reader.value();
  if (!reader.escapedKeys && !isDeepStrictEqual(value, parsed))
    throw new Error(
      'json-reference: the reference reading differs from JSON.parse on a document without escaped keys',
    );
  return value;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\]|\\.)*"/sy;

/** A reader for text JSON.parse accepted: no error handling beyond that. */
class Reader {
  escapedKeys = false;
  private pos = 0;

  constructor(private readonly text: string) {}

  value(): unknown {
    this.space();
    const c = this.text[this.pos]!;
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    for (const [literal, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(literal, this.pos)) {
        this.pos += literal.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.pos;
    const number = NUMBER.exec(this.text)![0];
    this.pos += number.length;
    return Number(number);
  }

  private object(): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    this.pos++;
    this.space();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return object;
    }
    for (;;) {
      this.space();
      const start = this.pos;
      const key = this.string();
      if (this.text.slice(start, this.pos).includes('\\')) this.escapedKeys = true;
      this.space();
      this.pos++; // ':'
      const value = this.value();
      // The last duplicate wins, in the first one's place; an own "__proto__", not the prototype.
      if (Object.hasOwn(object, key)) object[key] = value;
      else
        Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      this.space();
      if (this.text[this.pos++] === '}') return object;
    }
  }

  private array(): unknown[] {
    const array: unknown[] = [];
    this.pos++;
    this.space();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return array;
    }
    for (;;) {
      array.push(this.value());
      this.space();
      if (this.text[this.pos++] === ']') return array;
    }
  }

  private string(): string {
    STRING.lastIndex = this.pos;
    const token = STRING.exec(this.text)![0];
    this.pos += token.length;
    return JSON.parse(token) as string;
  }

  private space(): void {
    for (
      let c = this.text[this.pos];
      c === ' ' || c === '\t' || c === '\n' || c === '\r';
      c = this.text[++this.pos]
    );
  }
}

import { describe, expect, it } from 'vitest';
import { checkUntrustedJson, JsonScanError, parseUntrustedJson } from '../../src/json/untrusted.js';

describe('parseUntrustedJson', () => {
  it('reads an escaped key as itself after a parse that would mislead JSON.parse on Node 24/26', () => {
    JSON.parse('{"zq":0,"\\\\":0}'); // leaves "\\" in V8's key cache (nodejs/node#63785)
    expect(parseUntrustedJson('{"zq":1,"\\n":2}')).toEqual({ zq: 1, '\n': 2 });
  });

  it('keeps "__proto__" as an own property and lets the last duplicate win, as JSON.parse does', () => {
    const value = parseUntrustedJson('{"__proto__":{"x":1},"a":1,"a":2}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'a']);
    expect(value.a).toBe(2);
  });

  it('refuses what JSON.parse refuses, invalid UTF-8 and too many bytes, saying where', () => {
    expect(() => parseUntrustedJson('{"a":1,}')).toThrow(JsonScanError);
    expect(() => parseUntrustedJson(Buffer.from([0x22, 0xff, 0x22]))).toThrow(/UTF-8/);
    expect(() => parseUntrustedJson('[1,2,3]', 4)).toThrow(/more than 4 bytes/);
  });

  it('marks an unpaired surrogate escape with its code unit and path, for callers that name it their way', () => {
    const error = (() => {
      try {
        parseUntrustedJson('{"a":{"b c":["\\ud800"]}}');
      } catch (caught) {
        return caught as JsonScanError;
      }
      throw new Error('expected a JsonScanError');
    })();
    expect(error.loneSurrogate).toBe('D800');
    expect(error.path).toBe('$.a["b c"][0]');
    // Other refusals carry none.
    expect(() => parseUntrustedJson('{"a":1,}')).toThrow(
      expect.objectContaining({ loneSurrogate: undefined }),
    );
  });
  it("shows a deep path's two ends in the message (10,000 levels of [0] made a 30 KB message), the whole in .path", () => {
    const deep = `{"reason":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    let error: JsonScanError | undefined;
    try {
      parseUntrustedJson(deep);
    } catch (caught) {
      error = caught as JsonScanError;
    }
    expect(error).toBeInstanceOf(JsonScanError);
    expect(error!.path!.length).toBeGreaterThan(29_000);
    expect(error!.message.length).toBeLessThan(400);
    expect(error!.message).toBe(
      `nesting deeper than 10000 levels is not accepted at byte 10009 ($.reason${'[0]'.repeat(37)}…${'[0]'.repeat(33)})`,
    );
  });
});

describe('checkUntrustedJson', () => {
  it('accepts and refuses what parseUntrustedJson does, without building the value or decoding strings', () => {
    const inputs: Array<string | Buffer> = [
      '{"a":[1,2,{"b":null}],"c":"\\u00e9"}',
      '{"a":1,}',
      '[1,2',
      Buffer.from([0x22, 0xff, 0x22]),
      '\ufeff{}',
      '[1,2,3]',
    ];
    const outcome = (read: () => unknown) => {
      try {
        read();
        return 'ok';
      } catch (error) {
        return (error as Error).constructor.name;
      }
    };
    for (const input of inputs) {
      expect(
        outcome(() => checkUntrustedJson(input)),
        String(input),
      ).toBe(outcome(() => parseUntrustedJson(input)));
    }
    expect(() => checkUntrustedJson('[1,2,3]', 4)).toThrow(/more than 4 bytes/);
    // Strings are not decoded: a lone surrogate escape is only refused when it is read.
    expect(checkUntrustedJson('"\\ud800"')).toBeUndefined();
    expect(() => parseUntrustedJson('"\\ud800"')).toThrow(JsonScanError);
    expect(() => checkUntrustedJson('{"a":1,}')).toThrow(JsonScanError);
    expect(checkUntrustedJson('{"a":[1]}')).toBeUndefined();
  });
});

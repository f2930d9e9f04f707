// Untrusted JSON (HTTP bodies, service responses, files a user hands over) is read by the plan reader's
// scanner, never by JSON.parse: on Node 24 and 26 (V8 12.8 to 14.6) JSON.parse can read a key written with an
// escape as another key an earlier parse left in V8's cache (https://github.com/nodejs/node/issues/63785).
// The scanner gives what a correct JSON.parse gives for the same UTF-8 bytes, or refuses them.
import { JsonScanError, JsonScanner, type SchemaNode, SKIP, valueNode } from '../plan/scanner/index.js';

export { JsonScanError };

/** Scan `input` (at most `maxBytes` of UTF-8) against `root`: the value it keeps, or a JsonScanError. */
function scanBounded(input: string | Uint8Array, maxBytes: number, root: SchemaNode): unknown {
  // A string's UTF-8 is at least as long as the string: refuse an overlong one before encoding it.
  const tooLong = () => new JsonScanError(`more than ${maxBytes} bytes of JSON`, maxBytes, undefined, false);
  if (input.length > maxBytes) throw tooLong();
  const bytes =
    typeof input === 'string'
      ? Buffer.from(input, 'utf8')
      : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (bytes.length > maxBytes) throw tooLong();
  const scanner = new JsonScanner(root, { maxStringBytes: maxBytes, maxValueBytes: maxBytes });
  scanner.write(bytes, true);
  return scanner.end();
}

/**
 * The JSON value in `input`, read as JSON.parse reads it (the last duplicate key wins, "__proto__" is an own
 * property), from at most `maxBytes` of UTF-8. Throws JsonScanError (with the byte offset) on anything else:
 * invalid JSON or UTF-8, a byte order mark, a lone surrogate escape, more than `maxBytes`.
 */
export function parseUntrustedJson(input: string | Uint8Array, maxBytes = 16 * 1024 * 1024): unknown {
  return scanBounded(input, maxBytes, valueNode());
}

/**
 * Check that `input` is well-formed JSON in at most `maxBytes` of UTF-8 (no byte order mark) without building
 * the value, for callers that walk the text themselves. Throws JsonScanError. Unlike parseUntrustedJson it
 * does not decode strings, so a lone surrogate escape ("\ud800") passes: decode what you use with the parser.
 */
export function checkUntrustedJson(input: string | Uint8Array, maxBytes = 16 * 1024 * 1024): void {
  scanBounded(input, maxBytes, SKIP);
}

// Read a canonical rendering (canonical-json.ts) back into the values the rules see, as JSON.parse would.
// JSON.parse itself is used unless a key is written with an escape: V8 12.8 to 14.6 (Node 24 and 26) can
// then return another key, one that an earlier JSON.parse or an earlier object of the same document left in
// its key cache (https://github.com/nodejs/node/issues/63785); what the rules see must be what opa reads.
import { parseUntrustedJson } from '../../json/untrusted.js';
import type { CanonicalRendering } from './canonical-json.js';

export function readCanonicalJson(rendering: CanonicalRendering): unknown {
  // The rendering is already bounded and valid, so its own length is the limit.
  return rendering.escapedKeys
    ? parseUntrustedJson(rendering.bytes, rendering.bytes.length)
    : JSON.parse(rendering.bytes.toString('utf8'));
}

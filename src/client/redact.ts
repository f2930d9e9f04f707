// Secrets never reach a message: every text built from foreign input passes through here first.

const MASK = '***';

/** Replace each secret (and its URL-encoded form) in `text` with a mask. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    // Short values would mask ordinary words; keys are long.
    if (!secret || secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join(MASK);
  }
  return out;
}

/** Control characters, and the bidirectional overrides that reorder what a terminal shows. */
const UNPRINTABLE = /\p{Cc}|[\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Text from the service made safe for a terminal: control characters (escape sequences) and bidi overrides
 * become "?", and it is cut at `max` characters.
 */
export function printable(text: string, max = 500): string {
  const clean = text.replace(UNPRINTABLE, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

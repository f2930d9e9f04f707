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

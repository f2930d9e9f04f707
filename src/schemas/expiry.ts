// An acknowledgement's expiry: RFC 3339 in, one canonical form out (UTC with milliseconds, as
// Date.prototype.toISOString writes it), so the service, the bundle's policy and the CLI compare the same text.
import * as z from './zod.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** The instant `text` names, in canonical form, or undefined when it is not an RFC 3339 date-time. */
export function canonicalInstant(text: string): string | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day)
    return undefined;
  if (hour! > 23 || minute! > 59 || second! > 59) return undefined;
  const fraction = (match[7] ?? '.0').slice(0, 4);
  const ms = Date.parse(`${text.slice(0, 19).toUpperCase()}${fraction}${match[8]!.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  // Years past 9999 (after an offset) have no four-digit form: refuse rather than write "+010000-…".
  return iso.length === 24 ? iso : undefined;
}

export const EXPIRES_AT_HINT = 'an RFC 3339 date-time with a time zone, such as 2026-12-31T18:00:00Z';

/** `expires_at` in a request: RFC 3339, turned into the canonical form. Whether it is in the future is the caller's check. */
export const expiresAtSchema = z.pipe(
  z.string(),
  z.transform((text: string, ctx) => {
    const instant = canonicalInstant(text);
    if (instant === undefined) {
      ctx.issues.push({
        code: 'custom',
        message: `${JSON.stringify(text)} is not ${EXPIRES_AT_HINT}`,
        input: text,
      });
      return z.NEVER;
    }
    return instant;
  }),
);

/** The plain-words refusal of an expiry that is not in the future, or undefined when it is. */
export function pastExpiryProblem(expiresAt: string, nowMs: number): string | undefined {
  if (Date.parse(expiresAt) > nowMs) return undefined;
  return `expires_at ${expiresAt} is not in the future (now is ${new Date(nowMs).toISOString()}): an acknowledgement that has already expired would never hold; give a later time, or none for no expiry`;
}

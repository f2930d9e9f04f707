// Dashboard sign-in: an API key, checked exactly as the API checks it, exchanged for a session kept in the
// store (so every instance knows it, and revoking the key ends it). The cookie holds a random token; the
// store holds only its hash, like the keys themselves.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { UiSession } from '../store/ui-sessions.js';
import { hashApiKey } from './api-keys.js';
import { authenticate } from './auth.js';
import type { ServiceContext } from './context.js';

export type { UiSession };

/** A session lasts this long from sign-in; the API key it acts as may end it sooner (revoked). */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export const newToken = (): string => randomBytes(32).toString('base64url');

/** Throws the API's own 401 for a missing, unknown or revoked key. */
export async function signIn(
  ctx: ServiceContext,
  apiKey: string | undefined,
): Promise<{ token: string; session: UiSession }> {
  const { principal } = await authenticate(ctx.store, apiKey, undefined);
  const token = newToken();
  const csrfToken = newToken();
  await ctx.store.uiSessions.create(hashApiKey(token), principal, csrfToken, SESSION_TTL_MS);
  return { token, session: { principal, csrfToken } };
}

/** The session of a cookie's token, or null (unknown, expired, signed out, key revoked). */
export async function resumeSession(
  ctx: ServiceContext,
  token: string | undefined,
): Promise<UiSession | null> {
  if (token === undefined || !TOKEN.test(token)) return null;
  return ctx.store.uiSessions.find(hashApiKey(token));
}

export async function signOut(ctx: ServiceContext, token: string | undefined): Promise<void> {
  if (token !== undefined && TOKEN.test(token)) await ctx.store.uiSessions.delete(hashApiKey(token));
}

/** Constant-time comparison of a form's CSRF token with the expected one. */
export function tokensEqual(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

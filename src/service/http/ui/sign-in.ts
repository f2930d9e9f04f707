// Sign-in and forms: the session and login cookies, form bodies, and the CSRF check every form passes.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ServiceContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import { newToken, SESSION_TTL_MS, signIn, tokensEqual, type UiSession } from '../../core/ui-sessions.js';
import { clientAddress, type FailureThrottle } from '../rate-limit.js';
import type { Reply } from '../router.js';
import * as pages from './pages.js';
import { page, redirect } from './reply.js';

export const SESSION_COOKIE = 'tfgate_session';
const LOGIN_COOKIE = 'tfgate_login';
const MAX_FORM_BYTES = 64 * 1024;

/**
 * Failed sign-ins per client address: 10 at once, then one a minute (so guessing keys from one address runs at
 * 1,440 a day); the table holds 10,000 addresses (about 2 MB), the least recently seen forgotten first.
 */
export const SIGN_IN_THROTTLE = { burst: 10, perMinute: 1, maxAddresses: 10_000 };

export function cookies(req: IncomingMessage): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) found.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return found;
}

/** Secure when the request came over TLS, here or at a proxy in front that says so. */
export function cookie(req: IncomingMessage, name: string, value: string, maxAgeSeconds: number): string {
  const tls = (req.socket as TLSSocket).encrypted === true || req.headers['x-forwarded-proto'] === 'https';
  return `${name}=${value}; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${tls ? '; Secure' : ''}`;
}

/** A form body (application/x-www-form-urlencoded), at most 64 KiB. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new ServiceError(415, 'unsupported_media_type', 'the dashboard takes HTML form posts only');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES)
      throw new ServiceError(413, 'payload_too_large', 'the form is larger than 64 KiB');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function formWithCsrf(req: IncomingMessage, session: UiSession): Promise<URLSearchParams> {
  const form = await readForm(req);
  if (!tokensEqual(form.get('csrf') ?? undefined, session.csrfToken)) {
    throw new ServiceError(
      403,
      'csrf_token_invalid',
      'the form is out of date or did not come from this dashboard; reload the page and try again',
    );
  }
  return form;
}

export function loginForm(
  req: IncomingMessage,
  status: number,
  error?: string,
  headers: Record<string, string> = {},
): Reply {
  const token = newToken();
  return page(status, pages.loginPage(token, error), {
    ...headers,
    'Set-Cookie': cookie(req, LOGIN_COOKIE, token, 600),
  });
}

export async function login(
  ctx: ServiceContext,
  req: IncomingMessage,
  throttle: FailureThrottle,
): Promise<Reply> {
  const address = clientAddress(req.socket.remoteAddress);
  // Refused before the form is read or a key looked up: a locked-out address costs no store work.
  const wait = throttle.retryAfter(address);
  if (wait > 0) {
    return loginForm(req, 429, `Too many failed sign-ins from your address. Try again in ${wait} seconds.`, {
      'Retry-After': String(wait),
    });
  }
  const form = await readForm(req);
  // Login CSRF: the form's token must be the one this browser was given with the form (double submit).
  const expected = cookies(req).get(LOGIN_COOKIE);
  if (expected === undefined || !tokensEqual(form.get('csrf') ?? undefined, expected)) {
    return loginForm(req, 403, 'The sign-in form is out of date; please try again.');
  }
  try {
    const { token } = await signIn(ctx, form.get('api_key') ?? undefined);
    return redirect('/ui/packages', {
      // The login cookie is left to expire (10 minutes): one Set-Cookie per answer keeps the reply simple.
      'Set-Cookie': cookie(req, SESSION_COOKIE, token, SESSION_TTL_MS / 1000),
    });
  } catch (error) {
    if (error instanceof ServiceError && error.status === 401) {
      if (throttle.fail(address)) {
        const retryAfter = throttle.retryAfter(address);
        ctx.log.warn('dashboard sign-in locked out', { client_address: address, retry_after_s: retryAfter });
        await ctx.store.uiSessions.auditSignInLockout(address, retryAfter);
      }
      return loginForm(
        req,
        401,
        'That API key is not valid (unknown or revoked). Check it, or ask an admin for a new key.',
      );
    }
    throw error;
  }
}

// Sign-in and forms: the session and login cookies, form bodies, and the CSRF check every form passes.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ServiceContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import { newToken, SESSION_TTL_MS, signIn, tokensEqual, type UiSession } from '../../core/ui-sessions.js';
import type { Reply } from '../router.js';
import * as pages from './pages.js';
import { page, redirect } from './reply.js';

export const SESSION_COOKIE = 'tfgate_session';
const LOGIN_COOKIE = 'tfgate_login';
const MAX_FORM_BYTES = 64 * 1024;

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

export function loginForm(req: IncomingMessage, status: number, error?: string): Reply {
  const token = newToken();
  return page(status, pages.loginPage(token, error), { 'Set-Cookie': cookie(req, LOGIN_COOKIE, token, 600) });
}

export async function login(ctx: ServiceContext, req: IncomingMessage): Promise<Reply> {
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
      return loginForm(
        req,
        401,
        'That API key is not valid (unknown or revoked). Check it, or ask an admin for a new key.',
      );
    }
    throw error;
  }
}

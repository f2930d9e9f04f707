// What every dashboard answer carries: the security headers, as an HTML page or a redirect.
import type { Reply } from '../router.js';
import type { Html } from './html.js';

/** No script may run, no style but our file, nothing framed, forms post only here. */
export const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export function page(status: number, body: Html, headers: Record<string, string> = {}): Reply {
  return {
    status,
    raw: { body: body.text, contentType: 'text/html; charset=utf-8' },
    headers: { ...SECURITY_HEADERS, ...headers },
  };
}

export const redirect = (location: string, headers: Record<string, string> = {}): Reply => ({
  status: 303,
  headers: { ...SECURITY_HEADERS, Location: location, ...headers },
});

// The dashboard's frame: the session a page is rendered for, the layout every page shares, sign-in and
// error pages. No script at all; forms post to the same origin and carry the session's CSRF token.
import type { Principal, SCOPES } from '../../types.js';
import { type Html, type HtmlValue, html } from './html.js';

export interface PageSession {
  principal: Principal;
  csrfToken: string;
}

const can = (session: PageSession, scope: (typeof SCOPES)[number]) =>
  session.principal.scopes.includes(scope);
export const canWrite = (session: PageSession) => can(session, 'compliance:write');

export const csrfField = (session: PageSession) =>
  html`<input type="hidden" name="csrf" value="${session.csrfToken}">`;

/** The frame of every page: skip link, header with navigation and sign-out, the page's main content. */
export function layout(title: string, session: PageSession | null, body: HtmlValue): Html {
  const nav = session
    ? html`<nav aria-label="Main"><ul>
        <li><a href="/ui/packages">Packages</a></li>
        ${can(session, 'admin') ? html`<li><a href="/ui/keys">API keys</a></li>` : ''}
      </ul></nav>
      <div class="who"><span>Signed in as <strong>${session.principal.keyName}</strong> (account ${session.principal.account}${canWrite(session) ? '' : ', read-only'})</span>
        <form class="inline" method="post" action="/ui/logout">${csrfField(session)}<button type="submit">Sign out</button></form>
      </div>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · tfgate</title>
<link rel="stylesheet" href="/ui/static/style.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="/ui/packages">tfgate</a>${nav}</header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>
`;
}

export function loginPage(loginToken: string, error?: string): Html {
  return layout(
    'Sign in',
    null,
    html`<h1>Sign in</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <div class="card">
    <form class="stack" method="post" action="/ui/login">
      <input type="hidden" name="csrf" value="${loginToken}">
      <label for="api_key">API key</label>
      <input id="api_key" name="api_key" type="password" autocomplete="off" required aria-describedby="api_key_help">
      <p id="api_key_help" class="muted">The key is exchanged for a session cookie; it is not stored in the browser. The session ends after 8 hours, when you sign out, or when the key is revoked.</p>
      <div><button type="submit">Sign in</button></div>
    </form>
    </div>`,
  );
}

export function errorPage(session: PageSession | null, status: number, message: string): Html {
  return layout(
    `Error ${status}`,
    session,
    html`<h1>${status === 403 ? 'Not allowed' : status === 404 ? 'Not found' : 'Something is wrong'}</h1>
    <p class="error" role="alert">${message}</p>
    <p><a href="/ui/packages">Back to the packages</a></p>`,
  );
}

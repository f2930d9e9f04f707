// The API keys page, for admins: an account's keys, create (the new key shown once) and revoke.
import { SCOPES } from '../../types.js';
import { Html, html, uiPath } from './html.js';
import { csrfField, layout, type PageSession } from './layout.js';

export interface KeyListing {
  account: string;
  api_keys: Array<{
    id: string;
    name: string;
    scopes: string[];
    created_at: string;
    revoked_at: string | null;
  }>;
}

export function keysPage(
  session: PageSession,
  listing: KeyListing,
  created?: { name: string; key: string },
  notice?: string,
): Html {
  const rows = listing.api_keys.map(
    (k) => html`<tr>
      <td data-label="Name" class="wrap">${k.name}</td>
      <td data-label="Id"><code>${k.id}</code></td>
      <td data-label="Scopes">${k.scopes.join(', ')}</td>
      <td data-label="Created">${k.created_at}</td>
      <td data-label="Status">${k.revoked_at ? html`<span class="badge muted">revoked ${k.revoked_at}</span>` : html`<span class="badge ok">active</span>`}</td>
      <td data-label="Action">${
        k.revoked_at
          ? ''
          : html`<form class="inline" method="post" action="${uiPath(['keys', k.id, 'revoke'], { account: listing.account })}">
          ${csrfField(session)}<button type="submit" class="danger" aria-label="Revoke key ${k.name}">Revoke</button></form>`
      }</td>
    </tr>`,
  );
  return layout(
    'API keys',
    session,
    html`<h1>API keys of account ${listing.account}</h1>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
    ${
      created
        ? html`<div class="secret" role="status"><p>Key <strong>${created.name}</strong> was created. Copy it now: it is shown only once.</p><pre>${created.key}</pre></div>`
        : ''
    }
    <form class="filters" method="get" action="/ui/keys">
      <div><label for="account">Account</label><input id="account" name="account" type="text" value="${listing.account}"></div>
      <div><button type="submit" class="secondary">Show</button></div>
    </form>
    <div class="table-wrap"><table class="stack">
      <caption class="sr-only">API keys</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
      <tbody>${rows}</tbody></table></div>
    <section class="card" aria-labelledby="new-key-h"><h2 id="new-key-h">New key</h2>
    <form class="stack" method="post" action="${uiPath(['keys'], { account: listing.account })}">
      ${csrfField(session)}
      <label for="key-name">Name</label>
      <input id="key-name" name="name" type="text" required maxlength="100">
      <fieldset><legend>Scopes</legend>${SCOPES.map(
        (scope, i) =>
          html`<div><input type="checkbox" id="scope-${i}" name="scopes" value="${scope}"${scope === 'compliance:read' ? html` checked` : ''}> <label for="scope-${i}">${scope}</label></div>`,
      )}</fieldset>
      <div><button type="submit">Create key</button></div>
    </form></section>`,
  );
}

export { Html };

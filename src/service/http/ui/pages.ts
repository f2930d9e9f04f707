// The dashboard's pages: plain functions from domain values to escaped HTML (html.ts). No script at all;
// forms post to the same origin and carry the session's CSRF token.
import { stringify } from 'yaml';
import type { DesignChanges } from '../../../design/diff.js';
import type { DriftFinding, FindingStatus } from '../../../model/index.js';
import type { PackageView } from '../../core/packages.js';
import type { AuditRecord } from '../../store/index.js';
import type { PackageOverview } from '../../store/package-overview.js';
import { type Principal, SCOPES } from '../../types.js';
import { Html, type HtmlValue, html, uiPath } from './html.js';

export interface PageSession {
  principal: Principal;
  csrfToken: string;
}

const can = (session: PageSession, scope: (typeof SCOPES)[number]) =>
  session.principal.scopes.includes(scope);
export const canWrite = (session: PageSession) => can(session, 'compliance:write');

const csrfField = (session: PageSession) =>
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

function approvalBadge(pkg: { approved: boolean; approvedRevision: string | null }): Html {
  if (pkg.approved) return html`<span class="badge ok">approved</span>`;
  return pkg.approvedRevision === null
    ? html`<span class="badge warn">not approved</span>`
    : html`<span class="badge warn">change awaiting approval</span>`;
}

export function packagesPage(session: PageSession, packages: PackageOverview[]): Html {
  const rows = packages.map(
    ({ pkg, open, acknowledged }) => html`<tr>
      <td data-label="Package"><a href="${uiPath(['packages', pkg.packageId])}">${pkg.packageId}</a>${pkg.design.name ? html`<div class="muted wrap">${pkg.design.name}</div>` : ''}</td>
      <td data-label="Design">${approvalBadge(pkg)}</td>
      <td data-label="Open findings">${open > 0 ? html`<a href="${uiPath(['packages', pkg.packageId, 'findings'], { status: 'open' })}"><span class="badge bad">${open} open</span></a>` : html`<span class="badge ok">none open</span>`}</td>
      <td data-label="Acknowledged">${acknowledged}</td>
      <td data-label="Last drift check">${pkg.lastCheckAt ?? 'never'}</td>
    </tr>`,
  );
  return layout(
    'Packages',
    session,
    html`<h1>Packages</h1>
    ${
      packages.length === 0
        ? html`<p>No packages in account ${session.principal.account} yet. Push a design with <code>tfgate design push design.yaml</code>.</p>`
        : html`<div class="table-wrap"><table class="stack">
      <caption class="sr-only">Packages of account ${session.principal.account}</caption>
      <thead><tr><th scope="col">Package</th><th scope="col">Design</th><th scope="col">Open findings</th><th scope="col">Acknowledged</th><th scope="col">Last drift check</th></tr></thead>
      <tbody>${rows}</tbody></table></div>`
    }`,
  );
}

type Tab = 'design' | 'findings' | 'decisions' | 'audit';

function packageFrame(
  session: PageSession,
  view: PackageView,
  tab: Tab,
  title: string,
  body: HtmlValue,
  notice?: string,
): Html {
  const tabs: Array<[Tab, string, string]> = [
    ['design', 'Design', uiPath(['packages', view.package_id])],
    ['findings', 'Drift findings', uiPath(['packages', view.package_id, 'findings'])],
    ['decisions', 'Evaluations and gate decisions', uiPath(['packages', view.package_id, 'decisions'])],
    ['audit', 'Audit log', uiPath(['packages', view.package_id, 'audit'])],
  ];
  return layout(
    `${title}: ${view.package_id}`,
    session,
    html`<h1>${view.package_id}${view.name ? html` <span class="muted">· ${view.name}</span>` : ''}</h1>
    <nav class="tabs" aria-label="Package"><ul>${tabs.map(
      ([id, label, href]) =>
        html`<li><a href="${href}"${id === tab ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}</ul></nav>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
    ${body}`,
  );
}

function diffList(changes: DesignChanges): Html {
  const item = (cls: string, sign: string, what: string, name: string) =>
    html`<li class="${cls}"><span aria-hidden="true">${sign} </span><span class="sr-only">${cls === 'add' ? 'added' : cls === 'del' ? 'removed' : 'changed'}: </span>${what} <code>${name}</code></li>`;
  return html`<ul class="diff">
    ${changes.kinds.added.map((k) => item('add', '+', 'kind', k))}
    ${changes.kinds.removed.map((k) => item('del', '−', 'kind', k))}
    ${changes.capabilities.added.map((c) => item('add', '+', 'capability', c))}
    ${changes.capabilities.removed.map((c) => item('del', '−', 'capability', c))}
    ${changes.capabilities.changed.map(
      (c) => html`${item('chg', '~', 'capability', c.name)}
      ${c.depends_on_added.map((d) => item('add', '  +', 'depends on', d))}
      ${c.depends_on_removed.map((d) => item('del', '  −', 'depends on', d))}`,
    )}
    ${changes.catalog.added.map((t) => item('add', '+', 'catalog entry', t))}
    ${changes.catalog.removed.map((t) => item('del', '−', 'catalog entry', t))}
    ${changes.catalog.changed.map((t) => item('chg', '~', 'catalog entry', t))}
  </ul>`;
}

export interface DesignComparison {
  /** The approved revision's design compared with the current one; null when nothing is approved. */
  changes: DesignChanges | null;
  /** Why there is no comparison (the approved design was not kept). */
  unavailable?: string;
}

export function designPage(
  session: PageSession,
  view: PackageView,
  comparison: DesignComparison,
  notice?: string,
): Html {
  const facts = html`<dl class="facts">
    <dt>Status</dt><dd>${approvalBadge({ approved: view.approved, approvedRevision: view.approved_revision })}</dd>
    <dt>Current revision</dt><dd><code>${view.revision}</code></dd>
    <dt>Approved revision</dt><dd>${view.approved_revision ? html`<code>${view.approved_revision}</code>` : 'none'}${view.approved_at ? html` <span class="muted">at ${view.approved_at}</span>` : ''}</dd>
    <dt>Last drift check</dt><dd>${view.last_drift_check_at ?? 'never'}</dd>
  </dl>`;
  let diff: Html;
  if (view.approved) {
    diff = html`<p>Revision <code>${view.revision}</code> is approved; nothing is proposed.</p>`;
  } else if (comparison.unavailable) {
    diff = html`<p class="error">${comparison.unavailable}</p>`;
  } else if (comparison.changes) {
    diff = comparison.changes.identical
      ? html`<p>The proposed revision differs from the approved one only in ways that change no kind, capability or catalog entry.</p>`
      : html`<p>Proposed revision <code>${view.revision}</code> against approved revision <code>${view.approved_revision ?? ''}</code>:</p>${diffList(comparison.changes)}`;
  } else {
    diff = html`<p>Nothing is approved yet: the whole design is proposed.</p>`;
  }
  const approve =
    !view.approved && canWrite(session)
      ? html`<form method="post" action="${uiPath(['packages', view.package_id, 'approve'])}">
          ${csrfField(session)}
          <input type="hidden" name="revision" value="${view.revision}">
          <button type="submit">Approve revision ${view.revision.slice(0, 12)}</button>
        </form>`
      : '';
  return packageFrame(
    session,
    view,
    'design',
    'Design',
    html`<section class="card" aria-labelledby="status-h"><h2 id="status-h">Approval</h2>${facts}</section>
    <section class="card" aria-labelledby="diff-h"><h2 id="diff-h">Proposed against approved</h2>${diff}${approve}</section>
    <section class="card" aria-labelledby="design-h"><h2 id="design-h">Current design</h2><pre>${stringify(view.design)}</pre></section>`,
    notice,
  );
}

const severityBadge = (severity: string) =>
  html`<span class="badge ${severity === 'critical' || severity === 'high' ? 'bad' : severity === 'medium' ? 'warn' : 'muted'}">${severity}</span>`;

function acknowledgement(finding: DriftFinding): Html {
  const ack = finding.acknowledgement as
    | (DriftFinding['acknowledgement'] & { expires_at?: string | null })
    | undefined;
  if (!ack) return html``;
  return html`<div class="wrap">by <strong>${ack.by}</strong> at ${ack.at}${ack.expires_at ? html`, expires ${ack.expires_at}` : ''}</div>
    <div class="wrap">Reason: ${ack.reason}</div>`;
}

export function findingsPage(
  session: PageSession,
  view: PackageView,
  findings: DriftFinding[],
  status: FindingStatus | undefined,
  notice?: string,
): Html {
  const filters: Array<[FindingStatus | undefined, string]> = [
    [undefined, 'All'],
    ['open', 'Open'],
    ['acknowledged', 'Acknowledged'],
    ['resolved', 'Resolved'],
  ];
  const rows = findings.map((f, index) => {
    const ackForm =
      f.status === 'open' && canWrite(session)
        ? html`<form class="stack" method="post" action="${uiPath(['packages', view.package_id, 'findings', f.id, 'acknowledge'])}">
            ${csrfField(session)}
            <label for="reason-${index}">Reason to accept <span class="sr-only">${f.address}</span></label>
            <textarea id="reason-${index}" name="reason" required maxlength="2000"></textarea>
            <label for="expires-${index}">Expires on (UTC date, optional) <span class="sr-only">${f.address}</span></label>
            <input type="date" id="expires-${index}" name="expires_on">
            <div><button type="submit">Acknowledge</button></div>
          </form>`
        : '';
    return html`<tr>
      <td data-label="Severity">${severityBadge(f.severity)}</td>
      <td data-label="Resource" class="addr"><code>${f.address}</code><div class="muted">${f.message}</div></td>
      <td data-label="Rule">${f.rule}</td>
      <td data-label="Status"><span class="badge ${f.status === 'open' ? 'bad' : f.status === 'acknowledged' ? 'warn' : 'ok'}">${f.status}</span>${f.resolved_at ? html`<div class="muted">resolved ${f.resolved_at}</div>` : ''}${acknowledgement(f)}</td>
      <td data-label="Seen">${f.first_seen_at ?? ''}${f.last_seen_at && f.last_seen_at !== f.first_seen_at ? html` – ${f.last_seen_at}` : ''}</td>
      <td data-label="Action">${ackForm}</td>
    </tr>`;
  });
  return packageFrame(
    session,
    view,
    'findings',
    'Drift findings',
    html`<nav aria-label="Filter by status" class="pager">${filters.map(
      ([value, label]) =>
        html`<a href="${uiPath(['packages', view.package_id, 'findings'], { status: value })}"${value === status ? html` aria-current="page"` : ''}>${label}</a>`,
    )}</nav>
    ${
      findings.length === 0
        ? html`<p>No ${status ?? ''} findings.</p>`
        : html`<div class="table-wrap"><table class="stack">
      <caption class="sr-only">Drift findings</caption>
      <thead><tr><th scope="col">Severity</th><th scope="col">Resource</th><th scope="col">Rule</th><th scope="col">Status</th><th scope="col">Seen</th><th scope="col">Action</th></tr></thead>
      <tbody>${rows}</tbody></table></div>`
    }`,
    notice,
  );
}

const details = (entry: AuditRecord) => html`<code class="wrap">${JSON.stringify(entry.details)}</code>`;

function pager(next: string | undefined, first: string | undefined): Html {
  return html`<nav class="pager" aria-label="Pages">
    ${first ? html`<a href="${first}">First page</a>` : ''}
    ${next ? html`<a href="${next}" rel="next">Next page</a>` : html`<span class="muted">End of the log</span>`}
  </nav>`;
}

/** Which state a gate judged (its audit entry's `state`): the source, serial and when it was read. */
function judgedState(state: unknown): Html | string {
  if (typeof state !== 'object' || state === null) return '';
  const { source, serial, read_at, fallback_from } = state as Record<string, unknown>;
  const fallback =
    typeof fallback_from === 'string' ? html` <span class="muted">(${fallback_from} failed)</span>` : '';
  return html`${String(source ?? '')}${typeof serial === 'number' ? `, serial ${serial}` : ''}<div class="muted">${String(read_at ?? '')}</div>${fallback}`;
}

export function decisionsPage(
  session: PageSession,
  view: PackageView,
  entries: AuditRecord[],
  next: string | undefined,
  first: string | undefined,
): Html {
  const rows = entries.map((e) => {
    const decision = String(e.details.decision ?? '');
    return html`<tr>
      <td data-label="When">${e.at}</td>
      <td data-label="What">${e.event === 'gate_decided' ? 'gate' : 'plan evaluation'}</td>
      <td data-label="Decision"><span class="badge ${decision === 'pass' ? 'ok' : 'bad'}">${decision}</span></td>
      <td data-label="Threshold">${String(e.details.min_severity ?? '')}${e.details.fail_status === true ? '' : html` <span class="muted">(advisory)</span>`}</td>
      <td data-label="State judged">${judgedState(e.details.state)}</td>
      <td data-label="Key">${e.key_name ?? ''}</td>
      <td data-label="Details">${details(e)}</td>
    </tr>`;
  });
  return packageFrame(
    session,
    view,
    'decisions',
    'Decisions',
    html`<p class="muted">Every gate call and plan evaluation, from the audit log, oldest first.</p>
    ${
      entries.length === 0
        ? html`<p>No gate decision or plan evaluation yet.</p>`
        : html`<div class="table-wrap"><table class="stack">
      <caption class="sr-only">Evaluations and gate decisions</caption>
      <thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Decision</th><th scope="col">Threshold</th><th scope="col">State judged</th><th scope="col">Key</th><th scope="col">Details</th></tr></thead>
      <tbody>${rows}</tbody></table></div>`
    }
    ${pager(next, first)}`,
  );
}

export const AUDIT_EVENTS = [
  'package_created',
  'design_changed',
  'package_approved',
  'observed_state_pushed',
  'drift_checked',
  'finding_acknowledged',
  'acknowledgement_expired',
  'plan_finding_acknowledged',
  'plan_acknowledgement_revoked',
  'gate_decided',
  'plan_evaluated',
  'run_task_configured',
  'run_task_decided',
  'state_source_set',
  'state_source_cleared',
] as const;

export function auditPage(
  session: PageSession,
  view: PackageView,
  entries: AuditRecord[],
  filter: { event: string | undefined; limit: string },
  next: string | undefined,
  first: string | undefined,
): Html {
  const rows = entries.map(
    (e) => html`<tr>
      <td data-label="#">${e.id}</td>
      <td data-label="When">${e.at}</td>
      <td data-label="Event">${e.event}</td>
      <td data-label="Key">${e.key_name ?? ''}</td>
      <td data-label="Details">${details(e)}</td>
    </tr>`,
  );
  return packageFrame(
    session,
    view,
    'audit',
    'Audit log',
    html`<form class="filters" method="get" action="${uiPath(['packages', view.package_id, 'audit'])}">
      <div><label for="event">Event</label>
      <select id="event" name="event"><option value="">all events</option>${AUDIT_EVENTS.map(
        (e) => html`<option value="${e}"${e === filter.event ? html` selected` : ''}>${e}</option>`,
      )}</select></div>
      <div><label for="limit">Per page</label>
      <select id="limit" name="limit">${['10', '25', '50', '100'].map(
        (n) => html`<option${n === filter.limit ? html` selected` : ''}>${n}</option>`,
      )}</select></div>
      <div><button type="submit" class="secondary">Filter</button></div>
    </form>
    ${
      entries.length === 0
        ? html`<p>No entries.</p>`
        : html`<div class="table-wrap"><table class="stack">
      <caption class="sr-only">Audit log, oldest first</caption>
      <thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Event</th><th scope="col">Key</th><th scope="col">Details</th></tr></thead>
      <tbody>${rows}</tbody></table></div>`
    }
    ${pager(next, first)}`,
  );
}

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

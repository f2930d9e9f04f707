// The package pages: the account's packages, a package's design (with the proposed revision against the
// approved one) and its findings with the acknowledge form.
import { stringify } from 'yaml';
import type { DesignChanges } from '../../../design/diff.js';
import type { DriftFinding, FindingStatus } from '../../../model/index.js';
import type { PackageView } from '../../core/packages.js';
import type { PackageOverview } from '../../store/package-overview.js';
import { type Html, type HtmlValue, html, uiPath } from './html.js';
import { canWrite, csrfField, layout, type PageSession } from './layout.js';

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

export type Tab = 'design' | 'findings' | 'decisions' | 'audit';

export function packageFrame(
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

// The log pages: a package's gate decisions and plan evaluations, and its audit log, filtered and paged.
import type { PackageView } from '../../core/packages.js';
import type { AuditRecord } from '../../store/index.js';
import { type Html, html, uiPath } from './html.js';
import type { PageSession } from './layout.js';
import { packageFrame } from './package-pages.js';

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
  'finding_acknowledgement_revoked',
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

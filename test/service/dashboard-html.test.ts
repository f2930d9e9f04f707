// The dashboard's HTML toolkit and pages as plain functions: every interpolated value is escaped, URLs are
// built only from percent-encoded segments, and an acknowledgement's expiry is shown when it has one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DriftFinding } from '../../src/model/index.js';
import type { PackageView } from '../../src/service/core/packages.js';
import { escapeHtml, html, uiPath } from '../../src/service/http/ui/html.js';
import { decisionsPage, findingsPage, type PageSession } from '../../src/service/http/ui/pages.js';

const session: PageSession = {
  principal: {
    keyId: 'key_1',
    keyName: 'alice',
    account: 'default',
    plan: 'enterprise',
    scopes: ['compliance:read', 'compliance:write'],
  },
  csrfToken: 't'.repeat(43),
};
const view: PackageView = {
  package_id: 'payments',
  revision: 'r2',
  approved: true,
  approved_revision: 'r2',
  approved_at: null,
  last_drift_check_at: null,
  created_at: '2026-11-25T00:00:00.000Z',
  updated_at: '2026-11-25T00:00:00.000Z',
  design: {},
};

describe('html', () => {
  it('escapes every character that could end text or an attribute, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const out = html`<p title="${value}">${value}</p>`.text;
        // The only raw quotes are the attribute's own two; the only tags are <p> and </p>.
        expect(out.match(/"/g)?.length).toBe(2);
        expect(out.match(/[<>]/g)?.length).toBe(4);
        expect(escapeHtml(value).replace(/&(amp|lt|gt|quot|#39|#96);/g, '')).not.toMatch(/[&<>"'`]/);
      }),
    );
  });

  it('shows control and bidirectional characters as \\u escapes; tabs and line breaks stay whitespace', () => {
    expect(html`<td>${'a\u202eb\u0007c\u001bd\ne\tf'}</td>`.text).toBe(
      '<td>a\\u202eb\\u0007c\\u001bd\ne\tf</td>',
    );
  });

  it('keeps nested html as is and drops null, undefined and false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${null}${undefined}${false}${0}</p>`.text).toBe('<p><b>&lt;i&gt;</b>0</p>');
  });

  it('builds dashboard URLs from encoded segments: a javascript: value stays a path under /ui/', () => {
    expect(uiPath(['packages', 'javascript:alert(1)'])).toBe('/ui/packages/javascript%3Aalert(1)');
    expect(uiPath(['packages', '../../x', 'findings'], { status: 'a&b=<c>' })).toBe(
      '/ui/packages/..%2F..%2Fx/findings?status=a%26b%3D%3Cc%3E',
    );
  });
});

describe('findings page', () => {
  const finding = (ack: Record<string, unknown>): DriftFinding =>
    ({
      id: 'f_1',
      rule: 'unsanctioned_resource',
      severity: 'high',
      address: 'aws_sqs_queue.jobs',
      message: 'unsanctioned',
      status: 'acknowledged',
      acknowledgement: {
        by: 'alice',
        account: 'default',
        at: '2026-11-25T01:00:00.000Z',
        reason: 'PAY-142',
        ...ack,
      },
    }) as DriftFinding;

  it("shows an acknowledgement's expiry when the record has one, and nothing when it has none", () => {
    const withExpiry = findingsPage(
      session,
      view,
      [finding({ expires_at: '2026-12-31T00:00:00.000Z' })],
      undefined,
    ).text;
    expect(withExpiry).toContain(
      'by <strong>alice</strong> at 2026-11-25T01:00:00.000Z, expires 2026-12-31T00:00:00.000Z',
    );
    const without = findingsPage(session, view, [finding({})], undefined).text;
    expect(without).not.toContain('expires');
  });

  it('an open finding gets an acknowledge form with a labelled, required reason, only for a key that may write', () => {
    const open = { ...finding({}), status: 'open' as const, acknowledgement: undefined };
    const writer = findingsPage(session, view, [open], 'open').text;
    expect(writer).toContain('<label for="reason-0">');
    expect(writer).toContain('<textarea id="reason-0" name="reason" required');
    expect(writer).toContain(`<input type="hidden" name="csrf" value="${session.csrfToken}">`);
    const reader = findingsPage(
      { ...session, principal: { ...session.principal, scopes: ['compliance:read'] } },
      view,
      [open],
      'open',
    ).text;
    expect(reader).not.toContain('<textarea');
    expect(reader).not.toContain('/acknowledge');
  });
});

describe('decisions page', () => {
  const entry = (state: unknown) =>
    ({
      id: 1,
      at: '2026-11-25T03:00:00.000Z',
      event: 'gate_decided',
      account: 'default',
      package_id: 'payments',
      key_id: 'key_1',
      key_name: 'release-job',
      details: { decision: 'pass', min_severity: 'high', fail_status: true, state },
    }) as unknown as Parameters<typeof decisionsPage>[2][number];

  it('says which state each gate judged: the backend, its serial and when it was read, escaped', () => {
    const page = decisionsPage(
      session,
      view,
      [entry({ source: 'pg', serial: 7, lineage: 'l', read_at: '2026-11-25T02:59:58.000Z' })],
      undefined,
      undefined,
    ).text;
    expect(page).toContain('<th scope="col">State judged</th>');
    expect(page).toContain(
      '<td data-label="State judged">pg, serial 7<div class="muted">2026-11-25T02:59:58.000Z</div></td>',
    );
    const fallback = decisionsPage(
      session,
      view,
      [entry({ source: 'pushed', serial: null, read_at: 'x', fallback_from: '<s3>' })],
      undefined,
      undefined,
    ).text;
    expect(fallback).toContain(
      'pushed<div class="muted">x</div> <span class="muted">(&lt;s3&gt; failed)</span>',
    );
    // A gate before state sources existed has no state: the cell is empty.
    expect(decisionsPage(session, view, [entry(null)], undefined, undefined).text).toContain(
      '<td data-label="State judged"></td>',
    );
  });
});

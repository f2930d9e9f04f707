// The dashboard's server side, over plain HTTP on both stores: sign-in and the session cookie, CSRF, the
// Content-Security-Policy, the API's scopes and account isolation, and sessions that work across instances
// on one PostgreSQL and end when the key is revoked. The browser tests are in test/ui/.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInUi, uiClient } from '../helpers/dashboard.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import {
  api,
  CONFORMANCE,
  createAccountKey,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design, STATE_WITH_QUEUE } from './fixtures.js';

let postgres: TestPostgres;
const services: Record<string, TestService> = {};
let second: TestService;
let databaseUrl: string;

beforeAll(async () => {
  postgres = await startPostgres();
  databaseUrl = postgres.createDatabase('tfgate_dashboard');
  services.embedded = await startService();
  services.postgres = await startService({ env: { TFGATE_DATABASE_URL: databaseUrl } });
  // A second instance on the same database, with the same bootstrap key (already used: no new key).
  second = await startService({
    env: { TFGATE_DATABASE_URL: databaseUrl },
    apiKey: services.postgres.apiKey,
  });
}, 120_000);
afterAll(async () => {
  await Promise.all([...Object.values(services), second].map((s) => s?.stop()));
  postgres?.stop();
});

describe.each(['embedded', 'postgres'])('dashboard (%s store)', (store) => {
  const svc = () => services[store]!;

  it('sends an anonymous visitor to sign in; a wrong key or a form without its token is refused', async () => {
    const anonymous = uiClient(svc(), undefined);
    const root = await anonymous.get('/ui/');
    expect(root.status).toBe(303);
    expect(root.headers.get('location')).toBe('/ui/login');
    expect((await anonymous.get('/ui/packages')).headers.get('location')).toBe('/ui/login');
    const form = await anonymous.get('/ui/login');
    expect(form.status).toBe(200);
    expect(form.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(form.headers.get('x-frame-options')).toBe('DENY');
    expect(form.text).toContain('<label for="api_key">API key</label>');
    // No login cookie to match the form's token: refused, whatever the key.
    const forged = await anonymous.post('/ui/login', { api_key: svc().apiKey, csrf: 'x'.repeat(43) });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('set-cookie') ?? '').not.toContain('tfgate_session=');
    await expect(signInUi(svc(), 'tfg_not_a_key_at_all_0123456789')).rejects.toThrow(/sign-in failed: 401/);
  });

  it('signs in for an HttpOnly, SameSite=Strict cookie (Secure behind TLS); the key is never in a page', async () => {
    const ui = await signInUi(svc(), svc().apiKey);
    expect(ui.setCookie).toMatch(
      /^tfgate_session=[A-Za-z0-9_-]{43}; Path=\/ui; HttpOnly; SameSite=Strict; Max-Age=28800$/,
    );
    const packages = await ui.get('/ui/packages');
    expect(packages.status).toBe(200);
    expect(packages.text).not.toContain(svc().apiKey);
    const tls = await signInUi(svc(), svc().apiKey, { 'x-forwarded-proto': 'https' });
    expect(tls.setCookie).toMatch(/; Secure$/);
    // Signed out: the cookie is dead on the server, not only cleared in the browser.
    const out = await ui.post('/ui/logout', {});
    expect(out.status).toBe(303);
    expect((await ui.get('/ui/packages')).headers.get('location')).toBe('/ui/login');
  });

  it('approves and acknowledges through forms; a form without the CSRF token changes nothing', async () => {
    const id = await createApprovedPackage(svc(), design(`ui-${store}`), { observedState: STATE_WITH_QUEUE });
    await api(svc(), 'POST', `${CONFORMANCE}/packages/${id}/drift-checks`);
    const next = design(id).replace('[relational_database, generic_data]', '[relational_database, queue]');
    await api(svc(), 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: next,
      headers: { 'Content-Type': 'application/yaml' },
    });
    const ui = await signInUi(svc(), svc().apiKey);
    const designPage = await ui.get(`/ui/packages/${id}`);
    expect(designPage.text).toContain('change awaiting approval');
    expect(designPage.text).toMatch(
      /class="add"><span aria-hidden="true">\+ <\/span><span class="sr-only">added: <\/span>kind <code>queue<\/code>/,
    );
    expect(designPage.text).toMatch(/class="del">.*kind <code>generic_data<\/code>/);
    const revision = /name="revision" value="([0-9a-f]{32})"/.exec(designPage.text)![1]!;

    const forged = await ui.post(`/ui/packages/${id}/approve`, { revision }, { csrf: 'A'.repeat(43) });
    expect(forged.status).toBe(403);
    const noToken = await ui.post(`/ui/packages/${id}/approve`, { revision }, { csrf: null });
    expect(noToken.status).toBe(403);
    expect(
      (await api<{ approved: boolean }>(svc(), 'GET', `${CONFORMANCE}/packages/${id}`)).body.approved,
    ).toBe(false);

    const approved = await ui.post(`/ui/packages/${id}/approve`, { revision });
    expect(approved.status).toBe(303);
    expect(
      (await api<{ approved: boolean }>(svc(), 'GET', `${CONFORMANCE}/packages/${id}`)).body.approved,
    ).toBe(true);
    expect((await ui.get(`/ui/packages/${id}?done=approved`)).text).toContain('The design is approved.');

    // Back to the first design so the queue is unsanctioned again, approved, checked: one open finding.
    await api(svc(), 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: design(id),
      headers: { 'Content-Type': 'application/yaml' },
    });
    await api(svc(), 'POST', `${CONFORMANCE}/packages/${id}/approve`);
    await api(svc(), 'POST', `${CONFORMANCE}/packages/${id}/drift-checks`);
    const findings = await ui.get(`/ui/packages/${id}/findings?status=open`);
    const action = /action="(\/ui\/packages\/[^"]+\/acknowledge)"/.exec(findings.text)![1]!;
    const blank = await ui.post(action, { reason: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.text).toContain('a reason is required');
    const past = await ui.post(action, { reason: 'too late', expires_on: '2020-01-01' });
    expect(past.status).toBe(400);
    const notADate = await ui.post(action, { reason: 'typo', expires_on: '31/12/2099' });
    expect(notADate.status).toBe(400);
    expect(notADate.text).toContain('the expiry must be a date (YYYY-MM-DD, UTC) in the future');
    expect(
      (await ui.post(action, { reason: 'moves to the new platform; PAY-142', expires_on: '2099-12-31' }))
        .status,
    ).toBe(303);
    const listed = await api<{ findings: Array<{ acknowledgement?: { expires_at?: string } }> }>(
      svc(),
      'GET',
      `${CONFORMANCE}/packages/${id}/findings?status=acknowledged`,
    );
    expect(listed.body.findings[0]?.acknowledgement?.expires_at).toBe('2099-12-31T00:00:00.000Z');
    const gate = await api(svc(), 'POST', `${CONFORMANCE}/packages/${id}/gate?fail_status=true`);
    expect(gate.status).toBe(200);
    const acknowledged = await ui.get(`/ui/packages/${id}/findings?status=acknowledged`);
    expect(acknowledged.text).toContain('Reason: moves to the new platform; PAY-142');
    const decisions = await ui.get(`/ui/packages/${id}/decisions`);
    expect(decisions.text).toContain('<span class="badge ok">pass</span>');
  });

  it('a read-only key sees no write control, and its writes are refused by the server', async () => {
    const id = `ro-${store}`;
    await api(svc(), 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: design(id),
      headers: { 'Content-Type': 'application/yaml' },
    });
    const reader = await createAccountKey(
      svc(),
      'default',
      'enterprise',
      ['compliance:read'],
      `reader-${store}`,
    );
    const ui = await signInUi(svc(), reader.key);
    const page = await ui.get(`/ui/packages/${id}`);
    expect(page.text).toContain('read-only');
    expect(page.text).not.toContain('/approve');
    expect(page.text).not.toContain('href="/ui/keys"');
    const refused = await ui.post(`/ui/packages/${id}/approve`, {});
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('lacks the &quot;compliance:write&quot; scope');
    expect(
      (await api<{ approved: boolean }>(svc(), 'GET', `${CONFORMANCE}/packages/${id}`)).body.approved,
    ).toBe(false);
    expect((await ui.get('/ui/keys')).status).toBe(403);
    expect((await ui.post('/ui/keys', { name: 'sneaky', scopes: 'admin' })).status).toBe(403);
  });

  it("another account's package is not found, as in the API", async () => {
    const other = await createAccountKey(svc(), `acct-${store}`, 'starter', [
      'compliance:read',
      'compliance:write',
    ]);
    const ui = await signInUi(svc(), other.key);
    expect((await ui.get(`/ui/packages/ro-${store}`)).status).toBe(404);
    expect((await ui.post(`/ui/packages/ro-${store}/approve`, {})).status).toBe(404);
    expect((await ui.get('/ui/packages')).text).not.toContain(`ro-${store}`);
  });

  it('an admin creates a key on the keys page: shown once, never cached, and it works', async () => {
    const ui = await signInUi(svc(), svc().apiKey);
    const created = await ui.post('/ui/keys?account=default', {
      name: `made-in-ui-${store}`,
      scopes: ['compliance:read'],
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const key = /<pre>(tfg_[A-Za-z0-9_-]+)<\/pre>/.exec(created.text)![1]!;
    expect((await api(svc(), 'GET', `${CONFORMANCE}/packages/ro-${store}`, { key })).status).toBe(200);
    // The listing afterwards shows its name and id, never the key.
    const listing = await ui.get('/ui/keys');
    expect(listing.text).toContain(`made-in-ui-${store}`);
    expect(listing.text).not.toContain(key);
    expect((await ui.post('/ui/keys', { name: '', scopes: 'compliance:read' })).status).toBe(400);
    // A hostile account name never reaches the store (NUL would be the database's 500).
    expect((await ui.get('/ui/keys?account=%00x')).status).toBe(400);
    expect((await ui.post('/ui/keys?account=..%2Fx', { name: 'n', scopes: 'compliance:read' })).status).toBe(
      400,
    );
    expect((await ui.get('/ui/keys?account=nosuch')).status).toBe(404);
  });

  it('revoking the key ends its session at once', async () => {
    const key = await createAccountKey(svc(), 'default', 'enterprise', ['compliance:read'], `short-${store}`);
    const ui = await signInUi(svc(), key.key);
    expect((await ui.get('/ui/packages')).status).toBe(200);
    expect((await api(svc(), 'DELETE', `/v1/admin/api-keys/${key.id}`)).status).toBe(200);
    expect((await ui.get('/ui/packages')).headers.get('location')).toBe('/ui/login');
    expect((await ui.post('/ui/logout', {})).status).toBe(303);
  });

  it('pages through the audit log with a filter', async () => {
    const ui = await signInUi(svc(), svc().apiKey);
    const id = `ui-${store}`;
    const first = await ui.get(`/ui/packages/${id}/audit?limit=10`);
    expect(first.status).toBe(200);
    const next = /href="([^"]+)" rel="next"/.exec(first.text)![1]!.replaceAll('&amp;', '&');
    expect(next).toMatch(/after=\d+/);
    const second = await ui.get(next);
    const ids = (text: string) =>
      [...text.matchAll(/<td data-label="#">(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(Math.min(...ids(second.text))).toBeGreaterThan(Math.max(...ids(first.text)));
    const approvals = await ui.get(`/ui/packages/${id}/audit?event=package_approved`);
    expect(
      approvals.text
        .match(/<td data-label="Event">([a-z_]+)<\/td>/g)!
        .every((m) => m.includes('package_approved')),
    ).toBe(true);
    expect((await ui.get(`/ui/packages/${id}/audit?event=nope`)).status).toBe(400);
    // The events added with plan acknowledgements (and run tasks, state sources) can be filtered on too.
    const ack = await api(svc(), 'POST', `${CONFORMANCE}/packages/${id}/plan-acknowledgements`, {
      body: { rule: 'unsanctioned_creation', address: 'aws_sqs_queue.later', reason: 'PAY-150' },
    });
    expect(ack.status, ack.text).toBe(201);
    const planAcks = await ui.get(`/ui/packages/${id}/audit?event=plan_finding_acknowledged`);
    expect(planAcks.status).toBe(200);
    expect(planAcks.text).toContain('<td data-label="Event">plan_finding_acknowledged</td>');
  });
});

describe('dashboard sessions on PostgreSQL across instances', () => {
  it('a session signed in on one instance works on another, and dies there with the key', async () => {
    const one = services.postgres!;
    const key = await createAccountKey(one, 'default', 'enterprise', ['compliance:read'], 'roaming');
    const ui = await signInUi(one, key.key);
    const elsewhere = uiClient(second, ui.cookie);
    expect((await elsewhere.get('/ui/packages')).status).toBe(200);
    expect((await api(one, 'DELETE', `/v1/admin/api-keys/${key.id}`)).status).toBe(200);
    expect((await elsewhere.get('/ui/packages')).headers.get('location')).toBe('/ui/login');
  });
});

describe('dashboard session expiry', () => {
  it('an expired session is refused on every instance, and signing in again starts a new one', async () => {
    const ui = await signInUi(services.postgres!, services.postgres!.apiKey);
    expect((await uiClient(second, ui.cookie).get('/ui/packages')).status).toBe(200);
    // Eight hours later, as the store sees it.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query("UPDATE ui_sessions SET expires_at = now() - interval '1 second'");
    } finally {
      await client.end();
    }
    expect((await ui.get('/ui/packages')).headers.get('location')).toBe('/ui/login');
    expect((await uiClient(second, ui.cookie).get('/ui/packages')).headers.get('location')).toBe('/ui/login');
    const again = await signInUi(second, services.postgres!.apiKey);
    expect((await again.get('/ui/packages')).status).toBe(200);
  });
});

describe('dashboard rate limit', () => {
  it("a session counts against its key's per-key rate limit, as API calls do", async () => {
    const limited = await startService({ env: { TFGATE_RATE_LIMIT: '0.5', TFGATE_RATE_BURST: '2' } });
    try {
      const ui = await signInUi(limited, limited.apiKey); // one page read after sign-in
      await ui.get('/ui/packages');
      const refused = await ui.get('/ui/packages');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.text).toContain('too many requests for this API key');
    } finally {
      await limited.stop();
    }
  });
});

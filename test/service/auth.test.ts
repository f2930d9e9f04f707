// Authentication, scopes, plans, admin API, rate limit: each error by status and code (real HTTP).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, CONFORMANCE, createAccountKey, startService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

describe('health and OpenAPI', () => {
  it('answers /healthz and /readyz without a key', async () => {
    expect((await api(svc, 'GET', '/healthz', { key: null })).body).toEqual({ status: 'ok' });
    expect((await api(svc, 'GET', '/readyz', { key: null })).status).toBe(200);
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas', async () => {
    const doc = await api<{
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    }>(svc, 'GET', `${CONFORMANCE}/openapi.json`, { key: null });
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    const gate = doc.body.paths[`${CONFORMANCE}/packages/{package_id}/gate`]!.post!;
    expect(Object.keys(gate.responses)).toEqual(
      expect.arrayContaining(['200', '401', '403', '404', '409', '400', '504']),
    );
    expect(doc.body.components.schemas).toHaveProperty('GateResult');
    expect(doc.body.components.schemas).toHaveProperty('EvalFinding');
    expect(doc.body.paths).toHaveProperty(['/v1/admin/accounts/{name}/api-keys']);
  });

  it('documents each body as sent: a 409 is the decision or the error body; a JSON request body is an object', async () => {
    type Doc = { paths: Record<string, Record<string, Operation>> };
    type Operation = {
      responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
      requestBody?: { content: Record<string, { schema: { type?: string } }> };
    };
    const doc = (await api<Doc>(svc, 'GET', `${CONFORMANCE}/openapi.json`, { key: null })).body;
    const op = (path: string, method: string) =>
      doc.paths[`${CONFORMANCE}/packages/{package_id}${path}`]![method]!;
    const schema409 = (o: Operation) => o.responses['409']!.content!['application/json']!.schema;
    const ERROR = { $ref: '#/components/schemas/Error' };
    // package_not_approved and observed_state_missing are the error body, gate_blocked the decision with it.
    expect(schema409(op('/gate', 'post'))).toEqual({
      anyOf: [{ $ref: '#/components/schemas/GateResult' }, ERROR],
    });
    expect(schema409(op('/evaluate/terraform', 'post'))).toEqual({
      anyOf: [{ $ref: '#/components/schemas/EvaluationResult' }, ERROR],
    });
    expect(schema409(op('/drift-checks', 'post'))).toEqual(ERROR);
    // A plan, a state and a design in JSON are objects (a JSON string is refused with 400).
    for (const [path, method] of [
      ['/evaluate/terraform', 'post'],
      ['/observed-state', 'put'],
      ['', 'put'],
    ] as const) {
      expect(op(path, method).requestBody!.content['application/json']!.schema.type).toBe('object');
    }
    expect(op('', 'put').requestBody!.content['application/yaml']!.schema.type).toBe('string');
  });

  it('answers an unknown route with 404 not_found in the error shape', async () => {
    const res = await api(svc, 'GET', '/v2/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });
});

describe('API keys, in the contract order', () => {
  it('401 missing_api_key without X-Api-Key', async () => {
    const res = await api(svc, 'POST', `${CONFORMANCE}/packages/payments/gate`, { key: null });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: 'missing_api_key' } });
  });

  it('401 invalid_api_key for an unknown key, before anything about the package', async () => {
    const res = await api(svc, 'POST', `${CONFORMANCE}/packages/nope/gate?min_severity=bogus`, {
      key: 'tfg_wrong',
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('403 insufficient_scope names the missing scope', async () => {
    const writer = await createAccountKey(svc, 'scopes', 'enterprise', ['compliance:write']);
    const res = await api(svc, 'GET', `${CONFORMANCE}/public-key`, { key: writer.key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'insufficient_scope' } });
    expect((res.body as { error: { message: string } }).error.message).toContain('compliance:read');
    const admin = await api(svc, 'POST', '/v1/admin/accounts', {
      key: writer.key,
      body: { name: 'x', plan: 'team' },
    });
    expect(admin.status).toBe(403);
    expect((admin.body as { error: { message: string } }).error.message).toContain('"admin"');
  });

  it('403 plan_not_eligible below the large plan, after the scope check', async () => {
    const team = await createAccountKey(svc, 'small', 'team', ['compliance:read']);
    const res = await api(svc, 'GET', `${CONFORMANCE}/public-key`, { key: team.key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'plan_not_eligible' } });
    // Before the package lookup: a package that does not exist still answers plan_not_eligible.
    for (const [method, path] of [
      ['POST', `${CONFORMANCE}/packages/nope/gate`],
      ['POST', `${CONFORMANCE}/packages/nope/evaluate/terraform`],
      ['GET', `${CONFORMANCE}/packages/nope/bundle`],
    ] as const) {
      const res = await api(svc, method, path, { key: team.key, body: method === 'POST' ? '{}' : undefined });
      expect(res.status, path).toBe(403);
      expect(res.body, path).toMatchObject({ error: { code: 'plan_not_eligible' } });
    }
    // Upgrading the plan takes effect on the next call.
    expect((await api(svc, 'PATCH', '/v1/admin/accounts/small', { body: { plan: 'large' } })).status).toBe(
      200,
    );
    expect((await api(svc, 'GET', `${CONFORMANCE}/public-key`, { key: team.key })).status).toBe(200);
  });

  it('404 package_not_found for a package that does not exist', async () => {
    const res = await api(svc, 'POST', `${CONFORMANCE}/packages/missing/gate`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: 'package_not_found' } });
  });

  it('a revoked key is refused at once', async () => {
    const created = await createAccountKey(svc, 'revoke', 'large', ['compliance:read']);
    expect((await api(svc, 'GET', `${CONFORMANCE}/public-key`, { key: created.key })).status).toBe(200);
    const revoked = await api<{ revoked_at: string }>(svc, 'DELETE', `/v1/admin/api-keys/${created.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: created.id, account: 'revoke', already_revoked: false });
    expect(revoked.body.revoked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const res = await api(svc, 'GET', `${CONFORMANCE}/public-key`, { key: created.key });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: 'invalid_api_key' } });
    // Revoked again: left as it was, and said so, with the first revocation's time.
    const again = await api(svc, 'DELETE', `/v1/admin/api-keys/${created.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...revoked.body, already_revoked: true });
    expect((await api(svc, 'DELETE', '/v1/admin/api-keys/key_unknown')).status).toBe(404);
  });
});

describe('admin API', () => {
  it('creates an account and a key shown once, and rejects bad input with the allowed values', async () => {
    const account = await api(svc, 'POST', '/v1/admin/accounts', { body: { name: 'acme', plan: 'large' } });
    expect(account.status).toBe(201);
    expect(account.body).toEqual({ name: 'acme', plan: 'large' });
    expect(
      (await api(svc, 'POST', '/v1/admin/accounts', { body: { name: 'acme', plan: 'large' } })).body,
    ).toMatchObject({
      error: { code: 'account_exists' },
    });
    const badPlan = await api(svc, 'POST', '/v1/admin/accounts', { body: { name: 'b', plan: 'gold' } });
    expect(badPlan.status).toBe(400);
    expect(badPlan.body).toMatchObject({ error: { code: 'invalid_parameter' } });
    expect((badPlan.body as { error: { message: string } }).error.message).toMatch(
      /starter.*team.*large.*enterprise/,
    );
    const key = await api<{ id: string; key: string; scopes: string[] }>(
      svc,
      'POST',
      '/v1/admin/accounts/acme/api-keys',
      {
        body: { name: 'ci', scopes: ['compliance:read'] },
      },
    );
    expect(key.status).toBe(201);
    expect(key.body.key).toMatch(/^tfg_/);
    expect(key.body.scopes).toEqual(['compliance:read']);
    expect(
      (
        await api(svc, 'POST', '/v1/admin/accounts/ghost/api-keys', {
          body: { name: 'x', scopes: ['admin'] },
        })
      ).status,
    ).toBe(404);
  });
});

describe("admin keys of an account other than the operator's", () => {
  it("manage their own account's keys only: accounts, plans and other accounts are out of reach", async () => {
    const tenant = await createAccountKey(svc, 'tenant-a', 'large', ['admin']);
    const other = await createAccountKey(svc, 'tenant-b', 'large', ['compliance:read']);
    const as = { key: tenant.key };
    // Its own account: keys created, listed and revoked.
    const own = await api<{ id: string }>(svc, 'POST', '/v1/admin/accounts/tenant-a/api-keys', {
      ...as,
      body: { name: 'ci', scopes: ['compliance:read'] },
    });
    expect(own.status).toBe(201);
    expect((await api(svc, 'GET', '/v1/admin/accounts/tenant-a/api-keys', as)).status).toBe(200);
    expect((await api(svc, 'DELETE', `/v1/admin/api-keys/${own.body.id}`, as)).status).toBe(200);
    // Another account, the operator's included, is not found to it, as another account's package is.
    for (const account of ['tenant-b', 'default']) {
      const listed = await api(svc, 'GET', `/v1/admin/accounts/${account}/api-keys`, as);
      expect(listed.status).toBe(404);
      expect(listed.body).toMatchObject({ error: { code: 'account_not_found' } });
      const minted = await api(svc, 'POST', `/v1/admin/accounts/${account}/api-keys`, {
        ...as,
        body: { name: 'evil', scopes: ['admin'] },
      });
      expect(minted.status).toBe(404);
    }
    const revoked = await api(svc, 'DELETE', `/v1/admin/api-keys/${other.id}`, as);
    expect(revoked.status).toBe(404);
    expect(revoked.body).toMatchObject({ error: { code: 'api_key_not_found' } });
    // Accounts and plans are the operator's: its own plan too.
    for (const [method, path, body] of [
      ['POST', '/v1/admin/accounts', { name: 'tenant-c', plan: 'enterprise' }],
      ['PATCH', '/v1/admin/accounts/tenant-a', { plan: 'enterprise' }],
      ['PATCH', '/v1/admin/accounts/default', { plan: 'starter' }],
    ] as const) {
      const refused = await api(svc, method, path, { ...as, body });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: { code: 'operator_only' } });
    }
    // The other account's key still works; the operator still reaches every account.
    expect((await api(svc, 'GET', `${CONFORMANCE}/packages/none/findings`, { key: other.key })).status).toBe(
      404,
    );
    expect((await api(svc, 'GET', '/v1/admin/accounts/tenant-b/api-keys')).status).toBe(200);
    expect((await api(svc, 'GET', '/v1/admin/accounts/default/api-keys')).body).toMatchObject({
      account: 'default',
    });
  });
});

describe('public key', () => {
  it('is JSON by default and PEM with Accept: application/x-pem-file', async () => {
    const json = await api<{ key_id: string; algorithm: string; public_key: string }>(
      svc,
      'GET',
      `${CONFORMANCE}/public-key`,
    );
    expect(json.status).toBe(200);
    expect(json.body.algorithm).toBe('RS256');
    expect(json.body.public_key).toContain('-----BEGIN PUBLIC KEY-----');
    const pem = await api(svc, 'GET', `${CONFORMANCE}/public-key`, {
      headers: { Accept: 'application/x-pem-file' },
    });
    expect(pem.headers.get('content-type')).toBe('application/x-pem-file');
    expect(pem.text).toBe(json.body.public_key);
  });

  it('is JSON when the client refuses PEM with q=0', async () => {
    const refused = await api(svc, 'GET', `${CONFORMANCE}/public-key`, {
      headers: { Accept: 'application/x-pem-file;q=0, application/json' },
    });
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('rate limit', () => {
  it('answers 429 rate_limited with Retry-After once a key exceeds its rate', async () => {
    const limited = await startService({ env: { TFGATE_RATE_LIMIT: '1', TFGATE_RATE_BURST: '3' } });
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 6; i++) {
        const res = await api(limited, 'GET', `${CONFORMANCE}/public-key`);
        statuses.push(res.status);
        if (res.status === 429) {
          retryAfter = res.headers.get('retry-after');
          expect(res.body).toMatchObject({ error: { code: 'rate_limited' } });
        }
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses).toContain(429);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      // An unknown key is 401, never 429: authentication comes first.
      expect((await api(limited, 'GET', `${CONFORMANCE}/public-key`, { key: 'tfg_other' })).status).toBe(401);
    } finally {
      await limited.stop();
    }
  });
});

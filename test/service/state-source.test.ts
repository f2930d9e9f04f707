// PUT/GET/DELETE /packages/{id}/state-source on both stores: scopes, audit, secrets refused with the variable
// to use instead, `local` only when the operator allows it, settings stored exactly as sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import {
  api,
  CONFORMANCE,
  createAccountKey,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design } from './fixtures.js';

type ErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };

let postgres: TestPostgres;
const services: Record<'embedded' | 'postgres', TestService | undefined> = {
  embedded: undefined,
  postgres: undefined,
};
let defaults: TestService;

beforeAll(async () => {
  postgres = await startPostgres();
  const env = { TFGATE_STATE_BACKENDS: 'pg,http,s3,gcs,azurerm,remote,cloud,kubernetes,consul,local' };
  [services.embedded, services.postgres, defaults] = await Promise.all([
    startService({ env }),
    startService({ env: { ...env, TFGATE_DATABASE_URL: postgres.createDatabase('tfgate_state_source') } }),
    startService(),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([services.embedded?.stop(), services.postgres?.stop(), defaults?.stop()]);
  postgres?.stop();
});

const path = (id: string) => `${CONFORMANCE}/packages/${id}/state-source`;

describe.each(['embedded', 'postgres'] as const)('state sources on the %s store', (kind) => {
  const svc = () => services[kind]!;

  it('PUT sets, GET reads, DELETE goes back to pushed state; each write is audited', async () => {
    const id = await createApprovedPackage(svc(), design(`src-crud-${kind}`));
    const unset = await api<ErrorBody>(svc(), 'GET', path(id));
    expect(unset.status).toBe(404);
    expect(unset.body.error.code).toBe('state_source_not_set');

    const body = { type: 'pg', config: { schema_name: 'payments', skip_index_creation: true } };
    const put = await api<Record<string, unknown>>(svc(), 'PUT', path(id), { body });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ package_id: id, ...body, fallback: 'none', updated_by: 'bootstrap' });
    const got = await api<Record<string, unknown>>(svc(), 'GET', path(id));
    expect(got.body).toEqual(put.body);

    const replaced = await api(svc(), 'PUT', path(id), {
      body: { type: 'http', config: { address: 'https://state.example/p' }, fallback: 'pushed' },
    });
    expect(replaced.body).toMatchObject({ type: 'http', fallback: 'pushed' });

    expect((await api(svc(), 'DELETE', path(id))).status).toBe(204);
    expect((await api(svc(), 'GET', path(id))).status).toBe(404);
    // Idempotent: nothing to clear is still 204, and is not audited.
    expect((await api(svc(), 'DELETE', path(id))).status).toBe(204);

    const audit = await api<{ entries: Array<{ event: string; details: Record<string, unknown> }> }>(
      svc(),
      'GET',
      `${CONFORMANCE}/packages/${id}/audit`,
    );
    const events = audit.body.entries.filter((e) => e.event.startsWith('state_source'));
    expect(events.map((e) => [e.event, e.details.type])).toEqual([
      ['state_source_set', 'pg'],
      ['state_source_set', 'http'],
      ['state_source_cleared', 'http'],
    ]);
    expect(events[0]!.details.config).toEqual(body.config);
  });

  it('PUT and DELETE need compliance:write; GET needs compliance:read; another account sees nothing', async () => {
    const id = await createApprovedPackage(svc(), design(`src-scope-${kind}`));
    const reader = await createAccountKey(
      svc(),
      'default',
      'enterprise',
      ['compliance:read'],
      `reader-${kind}`,
    );
    const body = { type: 'pg', config: { schema_name: 's' } };
    const refused = await api<ErrorBody>(svc(), 'PUT', path(id), { body, key: reader.key });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    expect((await api(svc(), 'DELETE', path(id), { key: reader.key })).status).toBe(403);
    expect((await api(svc(), 'PUT', path(id), { body })).status).toBe(200);
    expect((await api(svc(), 'GET', path(id), { key: reader.key })).status).toBe(200);
    const other = await createAccountKey(svc(), `other-${kind}`, 'enterprise');
    expect((await api(svc(), 'GET', path(id), { key: other.key })).status).toBe(404);
    expect((await api(svc(), 'PUT', path(id), { body, key: other.key })).status).toBe(404);
  });

  it("is set only by an admin key of the operator account: the service's own credentials go where it names", async () => {
    const writer = await createAccountKey(
      svc(),
      'default',
      'enterprise',
      ['compliance:read', 'compliance:write'],
      `writer-${kind}`,
    );
    const id = await createApprovedPackage(svc(), design(`src-operator-${kind}`));
    // An address of the key holder's would be sent TF_HTTP_USERNAME and TF_HTTP_PASSWORD from the service.
    const body = { type: 'http', config: { address: 'http://127.0.0.1:9/steal' } };
    const writerPut = await api<ErrorBody>(svc(), 'PUT', path(id), { body, key: writer.key });
    expect(writerPut.status).toBe(403);
    expect(writerPut.body.error.code).toBe('operator_only');
    expect(writerPut.body.error.message).toContain('push the state instead (tfgate state push)');
    // A tenant's own admin key, on its own package: refused too.
    const tenant = await createAccountKey(svc(), `tenant-${kind}`, 'enterprise', [
      'admin',
      'compliance:read',
      'compliance:write',
    ]);
    const tenantPackage = await createApprovedPackage(
      { baseUrl: svc().baseUrl, apiKey: tenant.key },
      design(`src-tenant-${kind}`),
    );
    const tenantPut = await api<ErrorBody>(svc(), 'PUT', path(tenantPackage), { body, key: tenant.key });
    expect(tenantPut.status).toBe(403);
    expect(tenantPut.body.error.code).toBe('operator_only');
    expect((await api(svc(), 'GET', path(id))).status).toBe(404);
    // The operator's admin key sets it; a write key may still clear it (back to pushed state).
    expect((await api(svc(), 'PUT', path(id), { body })).status).toBe(200);
    expect((await api(svc(), 'DELETE', path(id), { key: writer.key })).status).toBe(204);
  });

  it.each([
    ['s3', {}, ['bucket', 'key']],
    ['s3', { bucket: 'b', key: ' ' }, ['key']],
    ['gcs', { prefix: 'p' }, ['bucket']],
    ['azurerm', { container_name: 'c', key: 'k' }, ['storage_account_name']],
    ['kubernetes', {}, ['secret_suffix']],
    ['consul', { address: 'c:8500' }, ['path']],
  ] as const)(
    'refuses %s %j, which lacks a setting terraform requires, naming it (every check failed with 502)',
    async (type, config, missing) => {
      const id = await createApprovedPackage(svc(), design(`src-required-${kind}`));
      const response = await api<ErrorBody>(svc(), 'PUT', path(id), { body: { type, config } });
      expect(response.status, response.text).toBe(400);
      expect(response.body.error.code).toBe('invalid_parameter');
      expect(response.body.error.message).toContain(
        `the ${type} backend needs ${missing.map((k) => `"config.${k}"`).join(' and ')}`,
      );
      expect((await api(svc(), 'GET', path(id))).status).toBe(404);
    },
  );

  it.each([
    ['pg', { conn_str: 'postgres://u:p@db/x' }, 'conn_str', 'PG_CONN_STR'],
    ['s3', { bucket: 'b', key: 'k', access_key: 'AKIA' }, 'access_key', 'AWS_ACCESS_KEY_ID'],
    ['s3', { bucket: 'b', key: 'k', secret_key: 'x' }, 'secret_key', 'AWS_SECRET_ACCESS_KEY'],
    [
      's3',
      { bucket: 'b', key: 'k', assume_role: { role_arn: 'a', session_token: 't' } },
      'assume_role.session_token',
      null,
    ],
    ['http', { address: 'https://s/x', password: 'x' }, 'password', 'TF_HTTP_PASSWORD'],
    ['azurerm', { container_name: 'c', key: 'k', access_key: 'x' }, 'access_key', 'ARM_ACCESS_KEY'],
    ['azurerm', { container_name: 'c', key: 'k', sas_token: 'x' }, 'sas_token', 'ARM_SAS_TOKEN'],
    [
      'cloud',
      { organization: 'o', token: 'x' },
      'token',
      'TF_TOKEN_<hostname> (e.g. TF_TOKEN_app_terraform_io)',
    ],
    ['consul', { path: 'p', access_token: 'x' }, 'access_token', 'CONSUL_HTTP_TOKEN'],
    [
      'gcs',
      { bucket: 'b', credentials: '{}' },
      'credentials',
      'GOOGLE_BACKEND_CREDENTIALS (or GOOGLE_CREDENTIALS)',
    ],
  ])(
    'refuses the secret setting of %s %j, naming the environment variable',
    async (type, config, setting, variable) => {
      const id = await createApprovedPackage(svc(), design(`src-secret-${kind}`));
      const response = await api<ErrorBody>(svc(), 'PUT', path(id), { body: { type, config } });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('secret_in_state_source');
      expect(response.body.error.message).toContain(`"config.${setting}" is a secret`);
      if (variable) expect(response.body.error.message).toContain(`set ${variable} in the environment`);
      expect(response.body.error.details).toEqual({ setting, environment_variable: variable });
      // Nothing was stored, and the secret is not repeated back.
      expect(response.text).not.toContain(JSON.stringify(Object.values(config).at(-1)));
      expect((await api(svc(), 'GET', path(id))).status).toBe(404);
    },
  );

  it('refuses a password inside a URL setting', async () => {
    const id = await createApprovedPackage(svc(), design(`src-url-${kind}`));
    const response = await api<ErrorBody>(svc(), 'PUT', path(id), {
      body: { type: 'http', config: { address: 'https://user:hunter2@state.example/x' } },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('secret_in_state_source');
    expect(response.text).not.toContain('hunter2');
  });

  it('refuses an unknown type, null, a bad setting name and a relative local path, in plain words', async () => {
    const id = await createApprovedPackage(svc(), design(`src-bad-${kind}`));
    const put = (body: unknown) => api<ErrorBody>(svc(), 'PUT', path(id), { body });
    const unknown = await put({ type: 'artifactory', config: {} });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('invalid_parameter');
    expect(unknown.body.error.message).toBe(
      'invalid "type": must be one of s3, gcs, azurerm, pg, http, remote, cloud, kubernetes, consul, local',
    );
    expect((await put({ type: 'pg', config: { schema_name: null } })).status).toBe(400);
    expect((await put({ type: 'pg', config: { 'Bad-Name': 'x' } })).status).toBe(400);
    expect((await put({ type: 'pg', config: {}, extra: 1 })).status).toBe(400);
    const relative = await put({ type: 'local', config: { path: 'terraform.tfstate' } });
    expect(relative.status).toBe(400);
    expect(relative.body.error.message).toContain('absolute path');
  });
});

describe('the OpenAPI document', () => {
  it('covers PUT, GET and DELETE of the state source, and the read failures of the gate and the check', async () => {
    type Operation = { operationId: string; responses: Record<string, unknown> };
    const doc = await api<{ paths: Record<string, Record<string, Operation>> }>(
      defaults,
      'GET',
      `${CONFORMANCE}/openapi.json`,
      { key: null },
    );
    const source = doc.body.paths[`${CONFORMANCE}/packages/{package_id}/state-source`]!;
    expect(Object.keys(source).sort()).toEqual(['delete', 'get', 'put']);
    expect(source.put!.operationId).toBe('putStateSource');
    expect(Object.keys(source.put!.responses)).toEqual(expect.arrayContaining(['200', '400', '403', '404']));
    expect(Object.keys(source.get!.responses)).toEqual(expect.arrayContaining(['200', '404']));
    expect(Object.keys(source.delete!.responses)).toEqual(expect.arrayContaining(['204', '403']));
    for (const path of ['gate', 'drift-checks']) {
      const post = doc.body.paths[`${CONFORMANCE}/packages/{package_id}/${path}`]!.post!;
      expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['502', '504']));
    }
  });
});

describe('the operator decides which backends are allowed', () => {
  it('local is off by default: it would read files on the service host', async () => {
    const id = await createApprovedPackage(defaults, design('src-local-off'));
    const response = await api<ErrorBody>(defaults, 'PUT', path(id), {
      body: { type: 'local', config: { path: '/etc/hostname' } },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('state_backend_not_allowed');
    expect(response.body.error.message).toContain('--state-backends (TFGATE_STATE_BACKENDS)');
    // Every other type is allowed by default.
    const pg = await api(defaults, 'PUT', path(id), { body: { type: 'pg', config: {} } });
    expect(pg.status).toBe(200);
  });
});

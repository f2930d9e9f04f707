// Settings: flags over environment over defaults, durations and sizes, secrets from the environment only;
// and the OpenAPI document covers every route the router serves.
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/service/http/openapi.js';
import { ROUTES, resolveServeConfig } from '../../src/service/index.js';

describe('resolveServeConfig', () => {
  it('applies defaults', () => {
    const config = resolveServeConfig({}, {});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: './.tfgate/data',
      embeddedSync: 'full',
      driftInterval: 15 * 60_000,
      driftCheckTimeout: 30_000,
      maxBody: 512 * 1024 * 1024,
      rateLimit: 100,
      logLevel: 'info',
    });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.bootstrapApiKey).toBeUndefined();
  });

  it('reads TFGATE_* and DATABASE_URL, and flags win', () => {
    const env = {
      TFGATE_PORT: '9000',
      TFGATE_DRIFT_INTERVAL: '500ms',
      TFGATE_MAX_BODY: '100MB',
      DATABASE_URL: 'postgres://db/x',
      TFGATE_BOOTSTRAP_API_KEY: 'a-long-enough-bootstrap-key',
    };
    const config = resolveServeConfig({ port: '7000', maxBody: '1GiB' }, env);
    expect(config).toMatchObject({
      port: 7000,
      driftInterval: 500,
      maxBody: 1024 ** 3,
      databaseUrl: 'postgres://db/x',
    });
    expect(config.bootstrapApiKey).toBe('a-long-enough-bootstrap-key');
    expect(resolveServeConfig({}, { ...env, TFGATE_DATABASE_URL: 'postgres://db/y' }).databaseUrl).toBe(
      'postgres://db/y',
    );
    expect(resolveServeConfig({ driftInterval: '2' }, {}).driftInterval).toBe(2000);
  });

  it('refuses bad values with a message saying what is expected', () => {
    expect(() => resolveServeConfig({ driftInterval: 'often' }, {})).toThrow(/duration/);
    expect(() => resolveServeConfig({ maxBody: 'huge' }, {})).toThrow(/size/);
    expect(() => resolveServeConfig({ logLevel: 'debug' }, {})).toThrow();
    expect(() => resolveServeConfig({}, { TFGATE_BOOTSTRAP_API_KEY: 'short' })).toThrow(/at least 16/);
  });

  it('--embedded-sync takes normal or full, from the flag or TFGATE_EMBEDDED_SYNC; full by default', () => {
    expect(resolveServeConfig({}, {}).embeddedSync).toBe('full');
    expect(resolveServeConfig({}, { TFGATE_EMBEDDED_SYNC: 'full' }).embeddedSync).toBe('full');
    expect(
      resolveServeConfig({ embeddedSync: 'normal' }, { TFGATE_EMBEDDED_SYNC: 'full' }).embeddedSync,
    ).toBe('normal');
    expect(() => resolveServeConfig({}, { TFGATE_EMBEDDED_SYNC: 'off' })).toThrow(/--embedded-sync/);
  });
});

describe('OpenAPI document', () => {
  it('has an operation for every route, with the request and response schemas', () => {
    const doc = buildOpenApi(ROUTES, '0.0.0') as {
      paths: Record<string, Record<string, { operationId: string; requestBody?: unknown }>>;
    };
    for (const route of ROUTES) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation?.operationId, `${route.method} ${route.path}`).toBe(route.operationId);
      if (route.body) expect(operation?.requestBody, route.operationId).toBeDefined();
    }
    const text = JSON.stringify(doc);
    expect(text).not.toContain('#/$defs/');
    const refs = [...text.matchAll(/"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]!);
    const schemas = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components
      .schemas;
    for (const ref of refs) expect(schemas, ref).toHaveProperty(ref);
  });
});

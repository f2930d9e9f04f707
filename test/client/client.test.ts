// The client against contract-following HTTP servers on loopback: status semantics, bodies, errors.
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteEvaluator, resolveClientConfig, ServiceClient } from '../../src/client/index.js';
import { bufferSource } from '../../src/plan/index.js';
import { failure } from '../helpers/errors.js';
import { evaluation, gate } from '../report/fixtures.js';
import {
  contractError,
  type Loopback,
  readBody,
  sendJson,
  startLoopback,
  TEST_KEY,
  testEnv,
} from './loopback.js';

let server: Loopback | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function serve(handler: Parameters<typeof startLoopback>[0]) {
  server = await startLoopback(handler);
  client = await ServiceClient.fromOptions({}, testEnv(server.baseUrl));
  return { server, client };
}

describe('gate call', () => {
  it('sends fail_status, min_severity, refresh and the key header, and reads a matching 200 as a pass', async () => {
    const body = gate({ decision: 'pass', blocking: [], counts: { open: 0, acknowledged: 1, blocking: 0 } });
    const { server, client } = await serve((_req, res) => sendJson(res, 200, body));
    const outcome = await client.gate('payments', { minSeverity: 'high', refresh: true });
    expect(outcome.decision).toBe('pass');
    expect(outcome.result).toEqual(body);
    expect(outcome.detailsUnavailable).toBeUndefined();
    const [req] = server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url.pathname).toBe('/v1/analysis/conformance/packages/payments/gate');
    expect(Object.fromEntries(req?.url.searchParams ?? [])).toEqual({
      fail_status: 'true',
      min_severity: 'high',
      refresh: 'true',
    });
    expect(req?.headers['x-api-key']).toBe(TEST_KEY);
  });

  it('omits refresh unless asked', async () => {
    const { server, client } = await serve((_req, res) =>
      sendJson(res, 200, gate({ decision: 'pass', min_severity: 'low', blocking: [] })),
    );
    await client.gate('payments', { minSeverity: 'low' });
    expect(server.requests[0]?.url.searchParams.has('refresh')).toBe(false);
  });

  it('reads a 409 with the contract body as a block with its findings', async () => {
    const body = { ...gate(), error: { code: 'gate_blocked', message: '1 open finding' } };
    const { client } = await serve((_req, res) => sendJson(res, 409, body));
    const outcome = await client.gate('payments', { minSeverity: 'high' });
    expect(outcome.decision).toBe('block');
    expect(outcome.result.blocking.map((f) => f.address)).toEqual(['aws_db_instance.ledger']);
  });

  it('blocks on a 409 whose body is not the contract shape, with no details', async () => {
    const { client } = await serve((_req, res) => {
      res.writeHead(409, { 'content-type': 'text/plain' });
      res.end('nope');
    });
    const blocked = await client.gate('payments', { minSeverity: 'high' });
    expect(blocked.decision).toBe('block');
    expect(blocked.detailsUnavailable).toMatch(/HTTP 409 without a body/);
  });

  it('is no decision (exit 4) when a 200 body is not the contract shape: a pass needs the body saying so', async () => {
    const { client } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>Sign in</html>');
    });
    const error = await failure(client.gate('payments', { minSeverity: 'critical' }));
    expect(error.code).toBe('unreadable_gate');
    expect(error.exitCode).toBe(4);
    expect(error.message).toMatch(/HTTP 200 but a body that is not the contract's gate result/);
    expect(error.hint).toMatch(/not a proxy or login page/);
  });

  it('refuses a body that contradicts the status (fail closed, exit 4)', async () => {
    const { client } = await serve((_req, res) => sendJson(res, 200, gate()));
    const error = await failure(client.gate('payments', { minSeverity: 'high' }));
    expect(error.code).toBe('contradictory_response');
    expect(error.exitCode).toBe(4);
  });

  it('tells an unapproved package (409 package_not_approved) apart from a block', async () => {
    const { client } = await serve((_req, res) =>
      sendJson(res, 409, contractError('package_not_approved', 'package payments has no approved design')),
    );
    const error = await failure(client.gate('payments', { minSeverity: 'high' }));
    expect(error.code).toBe('package_not_approved');
    expect(error.exitCode).toBe(4);
    expect(error.message).toContain('not approved');
    expect(error.hint).toMatch(/approve/);
  });
});

describe('errors by status', () => {
  const cases: Array<{
    status: number;
    body?: unknown;
    code: string;
    exit: number;
    message: RegExp;
    hint: RegExp;
  }> = [
    {
      status: 401,
      body: contractError('invalid_api_key', 'the key is not valid'),
      code: 'invalid_api_key',
      exit: 1,
      message: /did not accept the API key.*the key is not valid/,
      hint: /TFGATE_API_KEY/,
    },
    { status: 401, code: 'unauthorized', exit: 1, message: /HTTP 401/, hint: /secret store/ },
    {
      status: 403,
      body: contractError('insufficient_scope', 'this call needs the compliance:read scope'),
      code: 'insufficient_scope',
      exit: 1,
      message: /lacks a scope.*compliance:read/,
      hint: /compliance:read/,
    },
    {
      status: 403,
      body: contractError('plan_not_eligible', 'account plan team is below large'),
      code: 'plan_not_eligible',
      exit: 1,
      message: /plan does not include.*team is below large/,
      hint: /large plan or above/,
    },
    { status: 403, code: 'forbidden', exit: 1, message: /HTTP 403/, hint: /compliance:read.*large/ },
    {
      status: 404,
      body: contractError('package_not_found', 'no package payments'),
      code: 'package_not_found',
      exit: 1,
      message: /package "payments" was not found/,
      hint: /--package/,
    },
    { status: 500, code: 'service_unavailable', exit: 4, message: /HTTP 500/, hint: /Nothing was applied/ },
    { status: 302, code: 'unexpected_status', exit: 4, message: /unexpected HTTP 302/, hint: /--base-url/ },
  ];
  for (const c of cases) {
    it(`maps HTTP ${c.status}${c.body ? ` ${(c.body as { error: { code: string } }).error.code}` : ' without a body'} to exit ${c.exit}`, async () => {
      const { client } = await serve((_req, res) => {
        if (c.body) sendJson(res, c.status, c.body);
        else {
          res.writeHead(c.status);
          res.end();
        }
      });
      const error = await failure(client.gate('payments', { minSeverity: 'high' }));
      expect(error.code).toBe(c.code);
      expect(error.exitCode).toBe(c.exit);
      expect(error.message).toMatch(c.message);
      expect(error.hint).toMatch(c.hint);
    });
  }

  it('never repeats the API key, even when the service echoes it', async () => {
    const { client } = await serve((_req, res) =>
      sendJson(res, 401, contractError('invalid_api_key', `key ${TEST_KEY} is revoked`)),
    );
    const error = await failure(client.gate('payments', { minSeverity: 'high' }));
    expect(error.message).toContain('key *** is revoked');
    expect(JSON.stringify({ m: error.message, h: error.hint, d: error.details })).not.toContain(TEST_KEY);
  });
});

describe('remote evaluation', () => {
  const plan = JSON.stringify({ format_version: '1.2', resource_changes: [] });

  it('streams the plan as the JSON body and returns a matching result', async () => {
    const result = evaluation();
    const { server, client } = await serve(async (req, res, recorded) => {
      await readBody(req, recorded);
      sendJson(res, 409, { ...result, error: { code: 'evaluation_blocked', message: 'blocked' } });
    });
    const evaluator = new RemoteEvaluator(client, 'payments');
    expect(evaluator.description).toContain(server.baseUrl);
    const out = await evaluator.evaluate(bufferSource(plan, 'plan.json'), 'high');
    expect(out).toEqual(result);
    const [req] = server.requests;
    expect(req?.url.pathname).toBe('/v1/analysis/conformance/packages/payments/evaluate/terraform');
    expect(Object.fromEntries(req?.url.searchParams ?? [])).toEqual({
      min_severity: 'high',
      fail_status: 'true',
    });
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers['x-api-key']).toBe(TEST_KEY);
    expect(req?.body?.toString()).toBe(plan);
  });

  it('fills counts the contract leaves out, and passes on a matching 200', async () => {
    const { counts, ...rest } = evaluation({ decision: 'pass', findings: [] });
    const contractOnly = {
      ...rest,
      counts: {
        resource_changes: counts.resource_changes,
        creations: counts.creations,
        destructions: counts.destructions,
        unrecognized: counts.unrecognized,
        findings: 0,
      },
    };
    const { client } = await serve(async (req, res) => {
      await readBody(req);
      sendJson(res, 200, contractOnly);
    });
    const out = await new RemoteEvaluator(client, 'payments').evaluate(bufferSource(plan), 'high');
    expect(out.decision).toBe('pass');
    expect(out.counts.updates).toBe(0);
  });

  it('is no decision (exit 4) when a 200 body is unreadable: fail closed', async () => {
    const { client } = await serve(async (req, res) => {
      await readBody(req);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login</html>');
    });
    const error = await failure(new RemoteEvaluator(client, 'payments').evaluate(bufferSource(plan), 'high'));
    expect(error.code).toBe('unreadable_evaluation');
    expect(error.exitCode).toBe(4);
  });

  it('blocks on a bare 409, with no details', async () => {
    const { client } = await serve(async (req, res) => {
      await readBody(req);
      res.writeHead(409);
      res.end();
    });
    const out = await new RemoteEvaluator(client, 'payments').evaluate(bufferSource(plan), 'high');
    expect(out.decision).toBe('block');
    expect(out.findings).toEqual([]);
  });

  it('explains 413 and 400 invalid_plan as no decision (exit 4)', async () => {
    const { client } = await serve(async (req, res) => {
      await readBody(req);
      if (req.url?.includes('big')) sendJson(res, 413, contractError('payload_too_large', 'over 512 MiB'));
      else sendJson(res, 400, contractError('invalid_plan', 'resource_changes[0].change.actions: unknown'));
    });
    const big = await failure(new RemoteEvaluator(client, 'big').evaluate(bufferSource(plan), 'high'));
    expect(big.code).toBe('payload_too_large');
    expect(big.exitCode).toBe(4);
    expect(big.hint).toMatch(/bundle pull/);
    const bad = await failure(new RemoteEvaluator(client, 'payments').evaluate(bufferSource(plan), 'high'));
    expect(bad.code).toBe('invalid_plan');
    expect(bad.exitCode).toBe(4);
    expect(bad.message).toContain('resource_changes[0]');
  });
});

describe('configuration', () => {
  it('requires TFGATE_API_KEY from the environment and a base URL', async () => {
    await expect(resolveClientConfig({ baseUrl: 'http://127.0.0.1:1' }, {})).rejects.toMatchObject({
      code: 'missing_api_key',
      exitCode: 1,
    });
    await expect(resolveClientConfig({}, { TFGATE_API_KEY: 'k-123456' })).rejects.toMatchObject({
      code: 'missing_base_url',
    });
  });

  it('rejects a URL with credentials without echoing them', async () => {
    const error = await failure(
      resolveClientConfig(
        { baseUrl: 'https://user:hunter2secret@svc.example' },
        { TFGATE_API_KEY: 'k-123456' },
      ),
    );
    expect(error.code).toBe('invalid_base_url');
    expect(error.message).not.toContain('hunter2secret');
  });

  it('refuses plain http to another machine unless TFGATE_ALLOW_HTTP=1; loopback is plain http as ever', async () => {
    const env = { TFGATE_API_KEY: 'k-123456' };
    const error = await failure(resolveClientConfig({ baseUrl: 'http://tfgate.internal:8080' }, env));
    expect(error).toMatchObject({
      code: 'insecure_base_url',
      exitCode: 1,
      message:
        '--base-url is plain http to tfgate.internal:8080: the API key would cross the network unencrypted, and what the service answers (a gate decision, a bundle, the public key) could be altered on the way',
      hint: expect.stringContaining('use https://tfgate.internal:8080;'),
    });
    expect(error.message + (error as { hint?: string }).hint).not.toContain('k-123456');
    await expect(
      resolveClientConfig({}, { ...env, TFGATE_BASE_URL: 'http://10.0.0.7' }),
    ).rejects.toMatchObject({
      code: 'insecure_base_url',
      message: expect.stringMatching(/^TFGATE_BASE_URL is plain http/),
    });
    const allowed = await resolveClientConfig(
      { baseUrl: 'http://tfgate.internal:8080' },
      { ...env, TFGATE_ALLOW_HTTP: '1' },
    );
    expect(allowed.baseUrl).toBe('http://tfgate.internal:8080');
    for (const loopback of ['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080']) {
      expect((await resolveClientConfig({ baseUrl: loopback }, env)).baseUrl).toBe(loopback);
    }
  });

  it('prefers --base-url to TFGATE_BASE_URL and trims the trailing slash', async () => {
    const config = await resolveClientConfig(
      { baseUrl: 'https://a.example/tfgate/' },
      { TFGATE_BASE_URL: 'https://b.example', TFGATE_API_KEY: 'k-123456' },
    );
    expect(config.baseUrl).toBe('https://a.example/tfgate');
  });

  it('holds TFGATE_RETRIES to the bounds of --retries: a whole number from 0 to 10', async () => {
    const env = (retries: string) => ({
      TFGATE_BASE_URL: 'https://a.example',
      TFGATE_API_KEY: 'k-123456',
      TFGATE_RETRIES: retries,
    });
    for (const [value, problem] of [
      ['50', 'must be at most 10'],
      ['11', 'must be at most 10'],
      ['1.5', 'must be a whole number'],
      ['-1', 'must be at least 0'],
      ['abc', 'must be a number'],
    ] as const) {
      const error = await failure(resolveClientConfig({}, env(value)));
      expect(error.code).toBe('invalid_environment');
      expect(error.exitCode).toBe(1);
      expect(error.message).toBe(`TFGATE_RETRIES="${value}": ${problem}`);
      expect(error.hint).toBe(
        'unset TFGATE_RETRIES or give it a whole number of retries from 0 to 10, as --retries takes',
      );
      // The flag is refused for the same values.
      await expect(resolveClientConfig({ retries: value }, env(''))).rejects.toMatchObject({
        code: 'invalid_option',
      });
    }
    expect((await resolveClientConfig({}, env('10'))).maxAttempts).toBe(11);
    expect((await resolveClientConfig({}, env('0'))).maxAttempts).toBe(1);
    // The flag wins over the variable.
    expect((await resolveClientConfig({ retries: 2 }, env('7'))).maxAttempts).toBe(3);
  });

  it('holds --timeout to a millisecond to a day: a smaller one rounded to 0 ms, which undici reads as no limit', async () => {
    const env = { TFGATE_BASE_URL: 'https://a.example', TFGATE_API_KEY: 'k-123456' };
    for (const [value, problem] of [
      ['0.0001', 'must be at least 0.001 (a millisecond): tfgate never waits for ever'],
      ['0', 'must be at least 0.001 (a millisecond): tfgate never waits for ever'],
      ['-1', 'must be at least 0.001 (a millisecond): tfgate never waits for ever'],
      ['86401', 'must be at most 86400 (a day)'],
      ['Infinity', 'must be a number'],
      ['soon', 'must be a number'],
    ]) {
      await expect(resolveClientConfig({ timeout: value as unknown as number }, env)).rejects.toMatchObject({
        code: 'invalid_option',
        message: `--timeout: ${problem}`,
      });
    }
    const shortest = await resolveClientConfig({ timeout: 0.001 }, env);
    expect([shortest.headersTimeoutMs, shortest.bodyTimeoutMs]).toEqual([1, 1]);
    expect((await resolveClientConfig({ timeout: 86400 }, env)).headersTimeoutMs).toBe(86_400_000);
  });

  it('holds the TFGATE_*_MS timeouts and retry delays to whole milliseconds from 1 to a day: 0 (no limit, for undici) and fractions are refused', async () => {
    const base = { TFGATE_BASE_URL: 'https://a.example', TFGATE_API_KEY: 'k-123456' };
    const variables = [
      ['TFGATE_CONNECT_TIMEOUT_MS', 'connectTimeoutMs', 'timeout', 10_000],
      ['TFGATE_HEADERS_TIMEOUT_MS', 'headersTimeoutMs', 'timeout', 300_000],
      ['TFGATE_BODY_TIMEOUT_MS', 'bodyTimeoutMs', 'timeout', 60_000],
      ['TFGATE_RETRY_BASE_DELAY_MS', 'retryBaseDelayMs', 'delay', 500],
      ['TFGATE_RETRY_MAX_DELAY_MS', 'retryMaxDelayMs', 'delay', 30_000],
    ] as const;
    for (const [name, field, kind, fallback] of variables) {
      for (const [value, problem] of [
        ['0', 'must be a whole number of milliseconds, 1 or more'],
        ['0.5', 'must be a whole number of milliseconds, 1 or more'],
        ['1500.5', 'must be a whole number of milliseconds, 1 or more'],
        ['-1', 'must be a whole number of milliseconds, 1 or more'],
        ['ten', 'must be a whole number of milliseconds, 1 or more'],
        ['Infinity', 'must be a whole number of milliseconds, 1 or more'],
        ['86400001', 'must be at most 86400000 (a day)'],
      ] as const) {
        const error = await failure(resolveClientConfig({}, { ...base, [name]: value }));
        expect(error.code, `${name}=${value}`).toBe('invalid_environment');
        expect(error.exitCode).toBe(1);
        expect(error.message).toBe(`${name}="${value}": ${problem}`);
        expect(error.hint).toBe(
          `unset ${name} (default ${fallback}) or give it a whole number of milliseconds from 1 to 86400000` +
            (kind === 'timeout' ? '; there is no "no limit": tfgate never waits for ever' : ''),
        );
      }
      expect((await resolveClientConfig({}, { ...base, [name]: '1' }))[field]).toBe(1);
      expect((await resolveClientConfig({}, { ...base, [name]: '86400000' }))[field]).toBe(86_400_000);
      // Unset or empty: the default.
      expect((await resolveClientConfig({}, { ...base, [name]: '' }))[field]).toBe(fallback);
      expect((await resolveClientConfig({}, base))[field]).toBe(fallback);
    }
    // --timeout wins over the headers and body variables, as --retries over TFGATE_RETRIES.
    const flagged = await resolveClientConfig(
      { timeout: 2 },
      { ...base, TFGATE_HEADERS_TIMEOUT_MS: '0', TFGATE_BODY_TIMEOUT_MS: '0' },
    );
    expect([flagged.headersTimeoutMs, flagged.bodyTimeoutMs]).toEqual([2000, 2000]);
  });

  it('names an unreadable CA file', async () => {
    await expect(
      resolveClientConfig(
        { caFile: '/nonexistent/ca.pem' },
        { TFGATE_BASE_URL: 'https://a', TFGATE_API_KEY: 'k-1234' },
      ),
    ).rejects.toMatchObject({ code: 'invalid_ca_file', message: expect.stringContaining('--ca-file') });
  });
});

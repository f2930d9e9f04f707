// Retries, timeouts and re-streaming. These faults (502/503/504, 429 with Retry-After, a dropped connection)
// are ones the real service cannot produce on demand, so every server here is a fault fake, and says so.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { errors as undiciErrors } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectionErrorCode } from '../../src/client/http.js';
import { RemoteEvaluator, retryAfterMs, ServiceClient } from '../../src/client/index.js';
import { TerraformError } from '../../src/errors/index.js';
import { bufferSource, fileSource, type PlanSource } from '../../src/plan/index.js';
import { failure } from '../helpers/errors.js';
import { evaluation, gate } from '../report/fixtures.js';
import { type Loopback, readBody, sendJson, startLoopback, testEnv } from './loopback.js';

let server: Loopback | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const passBody = gate({ decision: 'pass', blocking: [], counts: { open: 0, acknowledged: 1, blocking: 0 } });

/** A client whose sleeps are recorded (and shortened), so backoff is asserted without timing anything. */
async function clientFor(baseUrl: string, extra: Record<string, string> = {}) {
  const sleeps: number[] = [];
  client = await ServiceClient.fromOptions({}, testEnv(baseUrl, extra), {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
  });
  return { client, sleeps };
}

describe('retries (fault fakes)', () => {
  it('fault fake: retries 503 and 502 with exponential backoff, then uses the 200', async () => {
    server = await startLoopback((_req, res, _r, attempt) => {
      if (attempt === 1) sendJson(res, 503, { error: { code: 'unavailable', message: 'restarting' } });
      else if (attempt === 2) sendJson(res, 502, {});
      else sendJson(res, 200, passBody);
    });
    const { client, sleeps } = await clientFor(server.baseUrl, { TFGATE_RETRY_BASE_DELAY_MS: '100' });
    const outcome = await client.gate('payments', { minSeverity: 'high' });
    expect(outcome.decision).toBe('pass');
    expect(server.requests).toHaveLength(3);
    // Half fixed, half jitter (random 0.5): 100 * 2^(n-1) * 0.75.
    expect(sleeps).toEqual([75, 150]);
  });

  it('fault fake: honours Retry-After on 429', async () => {
    server = await startLoopback((_req, res, _r, attempt) => {
      if (attempt === 1) sendJson(res, 429, {}, { 'retry-after': '1' });
      else sendJson(res, 200, passBody);
    });
    const { client, sleeps } = await clientFor(server.baseUrl);
    await client.gate('payments', { minSeverity: 'high' });
    expect(sleeps).toEqual([1000]);
  });

  it('fault fake: gives up on a Retry-After longer than the longest wait, and says so', async () => {
    server = await startLoopback((_req, res) => sendJson(res, 429, {}, { 'retry-after': '3600' }));
    const { client } = await clientFor(server.baseUrl);
    const error = await failure(client.gate('payments', { minSeverity: 'high' }));
    expect(server.requests).toHaveLength(1);
    expect(error.exitCode).toBe(4);
    expect(error.message).toMatch(/rate-limiting.*HTTP 429/);
  });

  it('fault fake: a 504 drift_check_timeout after every attempt is no decision (exit 4), never a pass', async () => {
    server = await startLoopback((_req, res) =>
      sendJson(res, 504, { error: { code: 'drift_check_timeout', message: 'drift check exceeded 60 s' } }),
    );
    const { client } = await clientFor(server.baseUrl, { TFGATE_RETRIES: '2' });
    const error = await failure(client.gate('payments', { minSeverity: 'high', refresh: true }));
    expect(server.requests).toHaveLength(3);
    expect(error.code).toBe('drift_check_timeout');
    expect(error.exitCode).toBe(4);
    expect(error.message).toMatch(/drift check ran past its time limit.*after 3 attempts/);
  });

  it("fault fake: a 502 that is the service's answer about the state backend is not retried; a bare 502 is", async () => {
    for (const code of ['drift_check_failed', 'state_backend_not_allowed']) {
      server = await startLoopback((_req, res) =>
        sendJson(res, 502, { error: { code, message: `the drift check failed: ${code}` } }),
      );
      const { client, sleeps } = await clientFor(server.baseUrl);
      const error = await failure(client.gate('payments', { minSeverity: 'high', refresh: true }));
      expect(server.requests).toHaveLength(1);
      expect(sleeps).toEqual([]);
      expect(error.code).toBe(code);
      expect(error.exitCode).toBe(4);
      expect(error.message).toContain(`(HTTP 502 ${code}): the drift check failed: ${code}`);
      expect(error.hint).not.toContain("service's health");
      await client.close();
      await server.close();
    }
    server = await startLoopback((_req, res, _r, attempt) =>
      attempt === 1
        ? sendJson(res, 502, { error: { code: 'bad_gateway', message: 'upstream' } })
        : sendJson(res, 200, passBody),
    );
    const { client } = await clientFor(server.baseUrl);
    expect((await client.gate('payments', { minSeverity: 'high' })).decision).toBe('pass');
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry 500 or 4xx', async () => {
    server = await startLoopback((_req, res) => sendJson(res, 500, {}));
    const { client } = await clientFor(server.baseUrl);
    await failure(client.gate('payments', { minSeverity: 'high' }));
    expect(server.requests).toHaveLength(1);
  });

  it('retries a refused connection, then fails closed naming the URL (exit 4)', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => probe.once('listening', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const { client, sleeps } = await clientFor(`http://127.0.0.1:${port}`, { TFGATE_RETRIES: '2' });
    const error = await failure(client.gate('payments', { minSeverity: 'high' }));
    expect(sleeps).toHaveLength(2);
    expect(error.code).toBe('service_unreachable');
    expect(error.exitCode).toBe(4);
    expect(error.message).toContain(`http://127.0.0.1:${port}`);
    expect(error.message).toMatch(/after 3 attempts.*ECONNREFUSED/);
    expect(error.hint).toMatch(/fail closed/);
  });

  it('fault fake: a headers timeout is retried and then no decision', async () => {
    server = await startLoopback(() => {
      // Never answer.
    });
    client = await ServiceClient.fromOptions({ timeout: 0.2, retries: 1 }, testEnv(server.baseUrl));
    const error = await failure(client.gate('payments', { minSeverity: 'high' }));
    expect(server.requests).toHaveLength(2);
    expect(error.exitCode).toBe(4);
    // Said as what happened, in plain words: reached, no answer in time; and which setting bounds it.
    expect(error.message).toBe(
      `the tfgate service at ${server.baseUrl} did not answer within 200 ms for the gate after 2 attempts`,
    );
    expect(error.hint).toMatch(
      /^the service took the request and did not answer in time: .*raise --timeout <seconds> or TFGATE_HEADERS_TIMEOUT_MS \(now 200 ms\)/,
    );
    expect(error.hint).not.toMatch(/HTTPS_PROXY/);
  });
});

describe('re-streaming a retried evaluation (fault fakes)', () => {
  const plan = JSON.stringify({
    format_version: '1.2',
    resource_changes: Array.from({ length: 2000 }, (_, i) => ({ address: `terraform_data.n${i}` })),
  });

  it('fault fake: the service drops the connection mid-upload; the retry re-opens the source and sends every byte', async () => {
    let opens = 0;
    const source: PlanSource = {
      description: 'plan.json',
      reopenable: true,
      open: () => {
        opens++;
        return bufferSource(plan).open();
      },
    };
    server = await startLoopback(async (req, res, recorded, attempt) => {
      if (attempt === 1) {
        // Read a little, then kill the socket: the upload is cut off half way.
        req.once('data', () => req.socket.destroy());
        return;
      }
      await readBody(req, recorded);
      sendJson(res, 200, evaluation({ decision: 'pass', findings: [] }));
    });
    const { client } = await clientFor(server.baseUrl);
    const result = await new RemoteEvaluator(client, 'payments').evaluate(source, 'high');
    expect(result.decision).toBe('pass');
    expect(opens).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body?.toString()).toBe(plan);
  });

  describe('a plan file of several read chunks, cut midway (fault fakes)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-upload-cut-'));
    const planFile = join(dir, 'plan.json');
    // Four read chunks (1 MiB each, READ_CHUNK_BYTES), so the cut lands while the client is still writing.
    const bigPlan = JSON.stringify({
      format_version: '1.2',
      resource_changes: Array.from({ length: 60_000 }, (_, i) => ({ address: `terraform_data.n${i}` })),
      padding: 'x'.repeat(2 * 1024 * 1024),
    });
    writeFileSync(planFile, bigPlan);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** Attempt 1: read about 1.5 MiB, then close the connection without answering ("other side closed"). */
    function cutFirstUpload(cut: (req: IncomingMessage) => void) {
      return startLoopback(async (req, res, recorded, attempt) => {
        if (attempt === 1) {
          let received = 0;
          req.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > 1_500_000 && recorded.body === undefined) {
              recorded.body = Buffer.alloc(received);
              cut(req);
            }
          });
          return;
        }
        await readBody(req, recorded);
        sendJson(res, 200, evaluation({ decision: 'pass', findings: [] }));
      });
    }

    for (const [how, cut] of [
      ['closes the connection', (req: IncomingMessage) => req.socket.end()],
      ['resets the connection', (req: IncomingMessage) => req.socket.resetAndDestroy()],
    ] as const) {
      it(`fault fake: the service ${how} midway through the first upload; one retry re-streams the whole file`, async () => {
        server = await cutFirstUpload(cut);
        const { client, sleeps } = await clientFor(server.baseUrl, { TFGATE_RETRY_BASE_DELAY_MS: '100' });
        const result = await new RemoteEvaluator(client, 'payments').evaluate(fileSource(planFile), 'high');
        expect(result.decision).toBe('pass');
        expect(server.requests).toHaveLength(2);
        // The first upload really was cut part way, and the retry waited one backoff.
        expect(server.requests[0]?.body?.length).toBeLessThan(Buffer.byteLength(bigPlan));
        expect(sleeps).toEqual([75]);
        expect(server.requests[1]?.body?.equals(Buffer.from(bigPlan))).toBe(true);
      });
    }

    it('fault fake: a service that cuts every upload is no decision (exit 4) after the configured retries', async () => {
      server = await startLoopback((req) => {
        let received = 0;
        req.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > 1_500_000) req.socket.end();
        });
      });
      const { client, sleeps } = await clientFor(server.baseUrl, { TFGATE_RETRIES: '2' });
      const error = await failure(
        new RemoteEvaluator(client, 'payments').evaluate(fileSource(planFile), 'high'),
      );
      expect(error.exitCode).toBe(4);
      expect(error.code).toBe('service_unreachable');
      expect(error.message).toMatch(/after 3 attempts/);
      expect(error.details).toMatchObject({ attempts: 3 });
      expect(server.requests).toHaveLength(3);
      expect(sleeps).toHaveLength(2);
    });
  });

  it('fault fake: a one-shot source (stdin) is never retried, and the error says why', async () => {
    server = await startLoopback((req) => {
      req.once('data', () => req.socket.destroy());
    });
    const source: PlanSource = {
      description: 'stdin',
      reopenable: false,
      open: () => Readable.from([Buffer.from(plan)]),
    };
    const { client } = await clientFor(server.baseUrl);
    const error = await failure(new RemoteEvaluator(client, 'payments').evaluate(source, 'high'));
    expect(server.requests).toHaveLength(1);
    expect(error.exitCode).toBe(4);
    expect(error.hint).toMatch(/not retried: the plan came from stdin, which can only be read once/);
  });

  it('fault fake: 503 before reading the body; the retry re-streams from a file', async () => {
    server = await startLoopback(async (req, res, recorded, attempt) => {
      if (attempt === 1) {
        req.resume();
        sendJson(res, 503, {});
        return;
      }
      await readBody(req, recorded);
      sendJson(res, 200, evaluation({ decision: 'pass', findings: [] }));
    });
    const { client } = await clientFor(server.baseUrl);
    const result = await new RemoteEvaluator(client, 'payments').evaluate(
      fileSource(new URL('../../package.json', import.meta.url).pathname),
      'high',
    );
    expect(result.decision).toBe('pass');
    expect(server.requests[1]?.body?.toString()).toContain('"name": "tfgate"');
  });

  it('names an unreadable plan file instead of blaming the service', async () => {
    server = await startLoopback(async (req, res) => {
      await readBody(req);
      sendJson(res, 200, evaluation());
    });
    const { client } = await clientFor(server.baseUrl);
    const error = await failure(
      new RemoteEvaluator(client, 'payments').evaluate(fileSource('/nonexistent/plan.json'), 'high'),
    );
    expect(error.code).toBe('plan_unreadable');
    expect(error.message).toContain('/nonexistent/plan.json');
    // A plan that cannot be read is not the service's fault: it is never retried.
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });
});

describe('a plan source that fails with its own error', () => {
  it('is that error unchanged (terraform show refusing a file: exit 2, as on the bundle route), never retried', async () => {
    server = await startLoopback(async (req, res) => {
      await readBody(req);
      sendJson(res, 200, evaluation());
    });
    const refused = new TerraformError(
      'invalid_plan_file',
      'terraform show failed: the file is not a plan file this terraform can read',
      { hint: 'pass a plan file written by `terraform plan -out`' },
    );
    const source: PlanSource = {
      description: 'terraform show -json notaplan',
      reopenable: true,
      open: () =>
        new Readable({
          read() {
            this.destroy(refused);
          },
        }),
    };
    const { client } = await clientFor(server.baseUrl);
    const error = await failure(new RemoteEvaluator(client, 'payments').evaluate(source, 'high'));
    expect(error).toBe(refused);
    expect(error.exitCode).toBe(2);
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });
});

describe('what counts as a lost connection', () => {
  it("undici's socket and body errors, and a socket error wrapped as a cause, are connection errors", () => {
    expect(connectionErrorCode(new undiciErrors.SocketError('other side closed'))).toBe('UND_ERR_SOCKET');
    expect(connectionErrorCode(new undiciErrors.RequestAbortedError())).toBe('UND_ERR_ABORTED');
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(connectionErrorCode(new Error('upload failed', { cause: reset }))).toBe('ECONNRESET');
    const wrapped = Object.assign(new Error('aborted', { cause: reset }), { code: 'ABORT_ERR' });
    expect(connectionErrorCode(wrapped)).toBe('ECONNRESET');
    expect(connectionErrorCode(new Error('other side closed'))).toBe('UND_ERR_SOCKET');
    expect(connectionErrorCode(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe('EPIPE');
  });

  it('a plan-read failure and a TLS failure are not', () => {
    expect(connectionErrorCode(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBeUndefined();
    expect(
      connectionErrorCode(Object.assign(new Error('self-signed'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })),
    ).toBeUndefined();
  });
});

describe('Retry-After parsing', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('5')).toBe(5000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

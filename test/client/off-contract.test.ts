// Every response the CLI reads is checked against the contract before anything from it is used or printed.
// The servers here are loopback doubles that answer off-contract bodies: a fault no real tfgate service
// produces (its answers are validated by the same schemas and by schemathesis), standing in for a
// misconfigured proxy, another API at the base URL, or an attacker. Issue 8, defect 7: `tfgate keys create`
// printed such a body's `key` field, then crashed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { entityTag, ServiceClient } from '../../src/client/client.js';
import { RemoteEvaluator } from '../../src/client/index.js';
import type { DriftFinding, EvalFinding, Severity } from '../../src/model/index.js';
import { bufferSource } from '../../src/plan/index.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { failure } from '../helpers/errors.js';
import { evaluation, gate } from '../report/fixtures.js';
import {
  contractError,
  type Handler,
  type Loopback,
  readBody,
  sendJson,
  startLoopback,
  testEnv,
} from './loopback.js';

const LEAKED = 'tfg_value_from_an_off_contract_body_0123456789';
/** A state with no resources (what `terraform show -json` prints of one that has outputs only). */
const EMPTY_STATE = '{"format_version":"1.0","values":{"root_module":{}}}';
let server: Loopback | undefined;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-off-contract-'));
  await buildCli();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function cliAgainst(handler: Handler, args: string[]) {
  server = await startLoopback(handler);
  const env = testEnv(server.baseUrl) as Record<string, string>;
  return runCli(args, { env });
}

const keysCreate = ['keys', 'create', '--account', 'default', '--name', 'ci', '--scopes', 'compliance:read'];

describe('tfgate keys create against a double that answers off-contract (a fault no real service produces)', () => {
  it.each([
    ['201 without scopes (the body that used to be printed, then crash)', 201, { key: LEAKED, id: 'key_1' }],
    [
      '201 with a key holding a terminal escape',
      201,
      { id: 'k', name: 'ci', scopes: [], key: `\u001b[2J${LEAKED}` },
    ],
    ['201 with a key that is not a string', 201, { id: 'k', name: 'ci', scopes: [], key: { value: LEAKED } }],
    ['200 instead of 201, with a contract body', 200, { id: 'k', name: 'ci', scopes: [], key: LEAKED }],
    ['302 to a login page', 302, { key: LEAKED }],
  ])('%s: refused, exit 4, nothing from the body printed', async (_, status, body) => {
    const result = await cliAgainst((_req, res) => sendJson(res, status, body), keysCreate);
    expect(result.exitCode, result.stderr).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain(LEAKED);
    expect(result.stderr).toMatch(
      /^error: the service at http:\/\/127\.0\.0\.1:\d+ answered creating the API key/,
    );
    expect(result.stderr).toContain("not the contract's");
    expect(result.stderr).toContain('hint: check that --base-url');
    expect(result.stderr).not.toMatch(/internal error|TypeError|zod|Invalid input/i);
  });

  it('a body as large as a gigabyte stream is not read whole: refused the same way', async () => {
    const result = await cliAgainst((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.write(`{"id":"k","name":"ci","scopes":[],"key":"${LEAKED}","pad":"`);
      const chunk = 'x'.repeat(64 * 1024);
      // 2 MiB, past the 1 MiB cap; the client stops reading there.
      for (let i = 0; i < 32; i++) res.write(chunk);
      res.end('"}');
    }, keysCreate);
    expect(result.exitCode).toBe(4);
    expect(result.stdout).toBe('');
  });

  it('an error body with terminal escapes is printed harmless', async () => {
    const result = await cliAgainst(
      (_req, res) =>
        sendJson(res, 403, contractError('insufficient_scope', '\u001b]0;owned\u0007needs \u202eadmin')),
      keysCreate,
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('the service answered 403: ?]0;owned?needs ?admin');
    expect(result.stderr).not.toMatch(/(?!\n)\p{Cc}|\u202e/u);
  });

  it('a contract body is still accepted: the key on stdout, the rest on stderr', async () => {
    const result = await cliAgainst(
      (_req, res) =>
        sendJson(res, 201, { id: 'key_abc', name: 'ci', scopes: ['compliance:read'], key: LEAKED }),
      keysCreate,
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe(LEAKED);
    // The contract has no account field: the asked one is named.
    expect(result.stderr).toContain('for account default');
  });
});

describe('keys revoke against a service that answers the revocation with 204 and no body', () => {
  it('fault fake: says the key was revoked, without claiming whether it was before', async () => {
    const result = await cliAgainst(
      (_req, res) => {
        res.statusCode = 204;
        res.end();
      },
      ['keys', 'revoke', 'key_AAAAAAAAAAAA'],
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('revoked key key_AAAAAAAAAAAA');
  });
});

describe('keys create and state push when the service fails (5xx): no decision, exit 4, never exit 1', () => {
  it('keys create: a 503 is service-unavailable (exit 4), and the key creation is sent once, never retried', async () => {
    const result = await cliAgainst(
      (_req, res) => sendJson(res, 503, contractError('unavailable', 'down for maintenance')),
      keysCreate,
    );
    expect(result.exitCode, result.stderr).toBe(4);
    expect(result.stderr).toContain('HTTP 503');
    // A retry after a lost answer could create a second key.
    expect(server?.requests).toHaveLength(1);
  });

  it('state push: a 500 is no decision (exit 4), and a file upload is retried on 503', async () => {
    const state = join(dir, 'state-5xx.json');
    await writeFile(state, EMPTY_STATE);
    const push = ['state', 'push', '--package', 'payments', '--state-json', state];
    const failed = await cliAgainst(async (req, res) => {
      for await (const _chunk of req) {
        // drain the upload
      }
      sendJson(res, 500, contractError('internal', 'boom'));
    }, push);
    expect(failed.exitCode, failed.stderr).toBe(4);
    expect(failed.stderr).toContain('HTTP 500');
    await server?.close();
    let calls = 0;
    const retried = await cliAgainst(async (req, res) => {
      for await (const _chunk of req) {
        // drain the upload
      }
      calls++;
      if (calls === 1) sendJson(res, 503, contractError('unavailable', 'restarting'), { 'retry-after': '0' });
      else sendJson(res, 200, { package_id: 'payments', resources: 0, pushed_at: '2026-01-01T00:00:00Z' });
    }, push);
    expect(retried.exitCode, retried.stderr).toBe(0);
    expect(calls).toBe(2);
  });
});

describe('tfgate state push against a double that stores whatever it is sent (another implementation of the service)', () => {
  it('a document that holds no state never reaches it whole: refused, exit 4', async () => {
    const state = join(dir, 'state-none.json');
    await writeFile(state, '{"format_version":"1.0"}');
    const result = await cliAgainst(
      async (req, res, recorded) => {
        await readBody(req, recorded);
        sendJson(res, 200, { package_id: 'payments', resources: 0, pushed_at: '2026-01-01T00:00:00Z' });
      },
      ['state', 'push', '--package', 'payments', '--state-json', state],
    );
    expect(result.exitCode, result.stderr).toBe(4);
    expect(result.stderr).toContain(`error: ${state} holds no state`);
    expect(result.stderr).not.toContain('pushed observed state');
    // The last byte was held back while the state was read, then the upload was cut short.
    for (const request of server?.requests ?? []) {
      expect(request.body?.toString()).not.toBe('{"format_version":"1.0"}');
    }
  });
});

describe('tfgate state push against a double that answers off-contract (a fault no real service produces)', () => {
  it.each([
    ['a body without the resource count', 200, { package_id: 'payments', pushed_at: '2026-01-01T00:00:00Z' }],
    ['a count that is not a number', 200, { package_id: 'payments', resources: 'all', pushed_at: 'x' }],
    ['204 with no body', 204, undefined],
  ])('%s: refused, exit 4', async (_, status, body) => {
    const state = join(dir, 'state.json');
    await writeFile(state, EMPTY_STATE);
    const result = await cliAgainst(
      async (req, res) => {
        for await (const _chunk of req) {
          // drain the upload
        }
        if (body === undefined) {
          res.writeHead(status);
          res.end();
        } else sendJson(res, status, body);
      },
      ['state', 'push', '--package', 'payments', '--state-json', state],
    );
    expect(result.exitCode, result.stderr).toBe(4);
    expect(result.stderr).toMatch(
      /answered the observed state push with HTTP \d+ and a body that is not the contract's/,
    );
    expect(result.stderr).not.toContain('pushed observed state');
  });
});

describe('the gate and the evaluation against a double that answers for another package (a fault no real service produces)', () => {
  it('a gate pass about another package is no decision', async () => {
    server = await startLoopback((_req, res) =>
      sendJson(res, 200, gate({ package_id: 'other', decision: 'pass', blocking: [] })),
    );
    const client = await ServiceClient.fromOptions({}, testEnv(server.baseUrl));
    try {
      const error = await failure(client.gate('payments', { minSeverity: 'low' }));
      expect(error.code).toBe('contradictory_response');
      expect(error.exitCode).toBe(4);
      expect(error.message).toContain('about another package');
    } finally {
      await client.close();
    }
  });

  it('an evaluation pass about another package is no decision', async () => {
    server = await startLoopback((_req, res) =>
      sendJson(res, 200, evaluation({ package_id: 'other', decision: 'pass', findings: [] })),
    );
    const client = await ServiceClient.fromOptions({}, testEnv(server.baseUrl));
    try {
      const error = await failure(
        new RemoteEvaluator(client, 'payments').evaluate(bufferSource(Buffer.from('{}'), 'plan.json'), 'low'),
      );
      expect(error.code).toBe('contradictory_response');
      expect(error.exitCode).toBe(4);
    } finally {
      await client.close();
    }
  });
});

describe('the gate and the evaluation against a double whose decision its own findings contradict, or that judged another threshold (a fault no real service produces)', () => {
  const acknowledgement = {
    by: 'platform-key',
    account: 'default',
    at: '2026-01-01T00:00:00Z',
    reason: 'replaced in the next release',
  };
  const [high, critical] = evaluation().findings as [EvalFinding, EvalFinding];
  const [openCritical] = gate().blocking as [DriftFinding];
  const [acknowledgedHigh] = gate().acknowledged as [DriftFinding];

  async function gateAnswering(status: number, body: unknown, minSeverity: Severity = 'high') {
    server = await startLoopback((_req, res) => sendJson(res, status, body));
    const client = await ServiceClient.fromOptions({}, testEnv(server.baseUrl));
    try {
      return await client.gate('payments', { minSeverity });
    } finally {
      await client.close();
      await server.close();
      server = undefined;
    }
  }

  async function evaluationAnswering(status: number, body: unknown) {
    server = await startLoopback(async (req, res) => {
      for await (const _chunk of req) {
        // drain the upload
      }
      sendJson(res, status, body);
    });
    const client = await ServiceClient.fromOptions({}, testEnv(server.baseUrl));
    try {
      return await new RemoteEvaluator(client, 'payments').evaluate(
        bufferSource(Buffer.from('{}'), 'plan.json'),
        'high',
      );
    } finally {
      await client.close();
      await server.close();
      server = undefined;
    }
  }

  it('a gate pass or block at another min severity than asked is no decision', async () => {
    for (const [status, body] of [
      [200, gate({ decision: 'pass', min_severity: 'critical', blocking: [] })],
      [409, { ...gate({ min_severity: 'low' }), error: { code: 'gate_blocked', message: 'blocked' } }],
    ] as const) {
      const error = await failure(gateAnswering(status, body));
      expect(error.code).toBe('contradictory_response');
      expect(error.exitCode).toBe(4);
      expect(error.message).toMatch(
        new RegExp(
          `HTTP ${status} \\(\\w+\\) but its body judges at min severity "\\w+", not the "high" asked`,
        ),
      );
    }
  });

  it('a gate pass with an open finding at or above the threshold is no decision: the status says open, whatever acknowledgement it carries', async () => {
    const listedBlocking = await failure(gateAnswering(200, gate({ decision: 'pass' })));
    expect(listedBlocking.code).toBe('contradictory_response');
    expect(listedBlocking.message).toContain(
      'its body says "pass" while listing 1 finding that blocks (open, at or above min severity "high")',
    );
    // An acknowledgement that expired stays on the finding, whose status is open again: it blocks.
    const expired = { ...acknowledgedHigh, status: 'open' as const };
    const openAmongAcknowledged = await failure(
      gateAnswering(200, gate({ decision: 'pass', blocking: [], acknowledged: [expired] })),
    );
    expect(openAmongAcknowledged.code).toBe('contradictory_response');
    // The same finding acknowledged never blocks, and one below the threshold does not either: a pass.
    const passed = await gateAnswering(
      200,
      gate({ decision: 'pass', blocking: [], acknowledged: [acknowledgedHigh] }),
    );
    expect(passed.decision).toBe('pass');
    const below = await gateAnswering(
      200,
      gate({ decision: 'pass', min_severity: 'critical', blocking: [], acknowledged: [expired] }),
      'critical',
    );
    expect(below.decision).toBe('pass');
  });

  it('an answer whose counts are not the findings it lists is no decision: the reports print both', async () => {
    const blocked = { code: 'gate_blocked', message: 'blocked' };
    for (const [counts, message] of [
      [
        { open: 1, acknowledged: 1, blocking: 0 },
        'its counts (0 blocking, 1 acknowledged) are not the findings it lists (1 blocking, 1 acknowledged)',
      ],
      [
        { open: 1, acknowledged: 0, blocking: 1 },
        'its counts (1 blocking, 0 acknowledged) are not the findings it lists (1 blocking, 1 acknowledged)',
      ],
      [{ open: 0, acknowledged: 1, blocking: 1 }, 'its counts say 1 finding blocks but only 0 are open'],
    ] as const) {
      const error = await failure(gateAnswering(409, { ...gate({ counts }), error: blocked }));
      expect(error.code).toBe('contradictory_response');
      expect(error.message).toContain(message);
    }
    const miscounted = evaluation({ counts: { ...evaluation().counts, findings: 0 } });
    const evaluationBlocked = { code: 'evaluation_blocked', message: 'blocked' };
    const error = await failure(evaluationAnswering(409, { ...miscounted, error: evaluationBlocked }));
    expect(error.code).toBe('contradictory_response');
    expect(error.message).toContain('its counts say 0 findings but it lists 2');
    // The same bodies, counted as they list, are a block.
    expect((await gateAnswering(409, { ...gate(), error: blocked })).decision).toBe('block');
    expect((await evaluationAnswering(409, { ...evaluation(), error: evaluationBlocked })).decision).toBe(
      'block',
    );
  });

  it('a gate block none of whose findings blocks is no decision; one whose open finding carries an expired acknowledgement is a block', async () => {
    const blocked = (blocking: DriftFinding[]) => ({
      ...gate({ blocking, acknowledged: [acknowledgedHigh] }),
      error: { code: 'gate_blocked', message: 'blocked' },
    });
    const error = await failure(gateAnswering(409, blocked([])));
    expect(error.code).toBe('contradictory_response');
    expect(error.message).toContain(
      'its body says "block" while none of its findings is open at or above min severity "high"',
    );
    const outcome = await gateAnswering(409, blocked([{ ...openCritical, acknowledgement }]));
    expect(outcome.decision).toBe('block');
  });

  it('an evaluation pass with a finding not acknowledged at or above the threshold is no decision; acknowledged or below, it passes', async () => {
    const error = await failure(evaluationAnswering(200, evaluation({ decision: 'pass' })));
    expect(error.code).toBe('contradictory_response');
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe(
      'the service answered the evaluation for package "payments" with HTTP 200 but its body says "pass" while 2 findings without an acknowledgement are at or above min severity "high"',
    );
    // A plan acknowledgement holding on each finding: reported, never blocking.
    const acknowledged = await evaluationAnswering(
      200,
      evaluation({
        decision: 'pass',
        findings: [
          { ...high, acknowledgement },
          { ...critical, acknowledgement },
        ],
      }),
    );
    expect(acknowledged.decision).toBe('pass');
    const below = await evaluationAnswering(
      200,
      evaluation({ decision: 'pass', findings: [{ ...high, severity: 'medium' }] }),
    );
    expect(below.decision).toBe('pass');
  });

  it('an evaluation at another min severity, or a block with nothing blocking, is no decision', async () => {
    const threshold = await failure(
      evaluationAnswering(200, evaluation({ decision: 'pass', min_severity: 'critical', findings: [] })),
    );
    expect(threshold.code).toBe('contradictory_response');
    expect(threshold.message).toContain('its body judges at min severity "critical", not the "high" asked');
    const nothingBlocks = await failure(
      evaluationAnswering(409, {
        ...evaluation({ findings: [{ ...critical, acknowledgement }] }),
        error: { code: 'evaluation_blocked', message: 'blocked' },
      }),
    );
    expect(nothingBlocks.code).toBe('contradictory_response');
    expect(nothingBlocks.message).toContain(
      'with HTTP 409 but its body says "block" while no finding without an acknowledgement is at or above min severity "high"',
    );
  });

  it('an evaluation whose body says another decision than its status (409 "pass", 200 "block") is no decision, as the gate', async () => {
    const passing = evaluation({ decision: 'pass', findings: [] });
    for (const body of [passing, { ...passing, error: { code: 'evaluation_blocked', message: 'blocked' } }]) {
      const error = await failure(evaluationAnswering(409, body));
      expect(error.code).toBe('contradictory_response');
      expect(error.exitCode).toBe(4);
      expect(error.message).toBe(
        'the service answered the evaluation for package "payments" with HTTP 409 but its body says "pass", not the "block" its status means',
      );
    }
    const blocked = await failure(evaluationAnswering(200, evaluation()));
    expect(blocked.code).toBe('contradictory_response');
    expect(blocked.message).toContain(
      'with HTTP 200 but its body says "block", not the "pass" its status means',
    );
    // The gate refuses the same contradiction the same way.
    const gate409 = await failure(gateAnswering(409, gate({ decision: 'pass', blocking: [] })));
    expect(gate409.code).toBe('contradictory_response');
    expect(gate409.exitCode).toBe(4);
  });

  it('tfgate check --package and tfgate gate against a 409 whose body says "pass": no decision (exit 4) for both, never a block', async () => {
    const plan = join(dir, 'plan-409-pass.json');
    await writeFile(plan, '{"format_version":"1.2","resource_changes":[]}');
    const answer409Pass: Handler = async (req, res) => {
      for await (const _chunk of req) {
        // drain the upload
      }
      const body = req.url?.includes('/gate')
        ? gate({ decision: 'pass', min_severity: 'low', blocking: [] })
        : evaluation({ decision: 'pass', min_severity: 'low', findings: [] });
      sendJson(res, 409, body);
    };
    const checked = await cliAgainst(answer409Pass, ['check', '--package', 'payments', '--plan-json', plan]);
    expect(checked.exitCode, checked.stderr).toBe(4);
    expect(checked.stdout).toBe('');
    expect(checked.stderr).toContain(
      'error: the service answered the evaluation for package "payments" with HTTP 409 but its body says "pass", not the "block" its status means',
    );
    expect(checked.stderr).toContain('hint: the service is inconsistent');
    await server?.close();
    const gated = await cliAgainst(answer409Pass, ['gate', '--package', 'payments', '--min-severity', 'low']);
    expect(gated.exitCode, gated.stderr).toBe(4);
    expect(gated.stderr).toContain('with HTTP 409 (block) but its body says "pass"');
  });

  it('tfgate check: no decision (exit 4), never "PASS" above a blocking finding', async () => {
    const plan = join(dir, 'plan-contradiction.json');
    await writeFile(plan, '{"format_version":"1.2","resource_changes":[]}');
    const result = await cliAgainst(
      async (req, res) => {
        for await (const _chunk of req) {
          // drain the upload
        }
        sendJson(res, 200, evaluation({ decision: 'pass', min_severity: 'low', findings: [critical] }));
      },
      ['check', '--package', 'payments', '--plan-json', plan],
    );
    expect(result.exitCode, result.stderr).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'error: the service answered the evaluation for package "payments" with HTTP 200 but its body says "pass" while 1 finding without an acknowledgement is at or above min severity "low"',
    );
    expect(result.stderr).toContain('hint: the service is inconsistent');
  });
});

describe('tfgate gate against a double that answers 200 with a login page (a fault no real service produces)', () => {
  const loginPage: Handler = (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>Sign in</html>');
    });
  };

  it.each([
    ['text', []],
    ['json', ['--format', 'json']],
  ])('%s: no decision (exit 4), no pass printed', async (_, format) => {
    const result = await cliAgainst(loginPage, ['gate', '--package', 'payments', ...format]);
    expect(result.exitCode, result.stderr).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^error: the service at http:\/\/127\.0\.0\.1:\d+ answered the gate of package "payments" with HTTP 200 but a body that is not the contract's gate result/,
    );
    expect(result.stderr).toContain('not a proxy or login page');
  });

  it('--advisory: exit 0, loudly, and still no pass printed', async () => {
    const result = await cliAgainst(loginPage, ['gate', '--package', 'payments', '--advisory']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^ADVISORY MODE: no decision could be reached \(the service at .* HTTP 200/m,
    );
  });
});

describe("bundle pull's metadata: the ETag", () => {
  it.each([
    ['a strong tag', '"abc123"', '"abc123"'],
    ['a weak tag', 'W/"abc123"', 'W/"abc123"'],
    ['an unquoted value', 'abc123', undefined],
    ['a quote inside', '"a"b"', undefined],
    ['a 300-character tag', `"${'a'.repeat(300)}"`, undefined],
    ['non-ASCII', '"caf\u00e9"', undefined],
    ['no header', undefined, undefined],
  ])('%s is kept only when well-formed', (_, header, kept) => {
    expect(entityTag(header)).toBe(kept);
  });

  it('a malformed ETag from a double (a fault no real service produces) is not kept for the cache', async () => {
    server = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip', etag: 'not-an-entity-tag' });
      res.end(Buffer.from('bytes'));
    });
    const client = await ServiceClient.fromOptions({}, testEnv(server.baseUrl));
    try {
      const download = await client.bundle('payments');
      expect(download).toEqual({ status: 'downloaded', bytes: Buffer.from('bytes') });
    } finally {
      await client.close();
    }
  });
});

describe('a block decided by status alone (a bare 409, a fault no real service produces)', () => {
  it('tfgate check prints the block and says the details are unavailable, and why', async () => {
    const plan = join(dir, 'plan-409.json');
    await writeFile(plan, '{"format_version":"1.2","resource_changes":[]}');
    const result = await cliAgainst(
      async (req, res) => {
        for await (const _chunk of req) {
          // drain the upload
        }
        res.writeHead(409);
        res.end();
      },
      ['check', '--package', 'payments', '--plan-json', plan],
    );
    expect(result.exitCode, result.stderr).toBe(3);
    expect(result.stdout).toContain(
      'the service answered HTTP 409 without a body tfgate could read, so no findings are shown',
    );
  });
});

// `tfgate gate` (runGate) against the real service on loopback: pass, block, acknowledgement, advisory, errors.

import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { normaliseGateOptions as resolveGateOptions } from '../../src/cli/normalise/gate.js';
import type { gateOptionsSchema } from '../../src/commands/gate.js';
import { runGate } from '../helpers/commands.js';
import { failure } from '../helpers/errors.js';
import { api, CONFORMANCE, createAccountKey, startService, type TestService } from '../helpers/service.js';
import { acknowledge, cleanPackage, driftedPackage, openFindings } from './gate-fixtures.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
  await cleanPackage(svc);
  await driftedPackage(svc);
});
afterAll(async () => {
  await svc?.stop();
});

function io(env: NodeJS.ProcessEnv = {}) {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    context: {
      stdout: { write: (s: string) => (out.stdout += s) },
      stderr: { write: (s: string) => (out.stderr += s) },
      env: { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: svc.apiKey, ...env },
      color: false,
    },
  };
}

type GateOptions = z.input<typeof gateOptionsSchema>;

function options(packageId: string, extra: Partial<GateOptions> = {}): GateOptions {
  return { packageId, client: {}, ...extra };
}

describe('tfgate gate against the real service', () => {
  it('passes a package with no drift: exit 0 and a non-empty PASS line', async () => {
    const { out, context } = io();
    const outcome = await runGate(options('gate-clean'), context);
    expect(outcome.exitCode).toBe(0);
    expect(outcome.result?.decision).toBe('pass');
    expect(out.stdout).toMatch(/^PASS: 0 blocking drift findings/);
  });

  it('blocks on open drift at or above the threshold: exit 3 with the blocking findings printed', async () => {
    const { out, context } = io();
    const outcome = await runGate(options('gate-drift', { minSeverity: 'high' }), context);
    expect(outcome.exitCode).toBe(3);
    expect(out.stdout).toMatch(/^FAIL: 2 failures, open drift findings at or above high/);
    expect(out.stdout).toContain('terraform_data.extra');
    expect(out.stdout).toContain('capability_dependency_missing');
  });

  it('blocks only on findings at or above --min-severity', async () => {
    const { out, context } = io();
    const outcome = await runGate(options('gate-drift', { minSeverity: 'critical' }), context);
    expect(outcome.exitCode).toBe(3);
    expect(outcome.result?.blocking.map((f) => f.rule)).toEqual(['capability_dependency_missing']);
    expect(out.stdout).toMatch(/^FAIL: 1 failure,/);
  });

  it('--advisory reports the block, says loudly it would have blocked, and exits 0', async () => {
    const { out, context } = io();
    const outcome = await runGate(options('gate-drift', { advisory: true }), context);
    expect(outcome.exitCode).toBe(0);
    expect(outcome.result?.decision).toBe('block');
    expect(out.stdout).toMatch(/^ADVISORY: would block on 2 findings/);
    expect(out.stderr).toContain('the gate WOULD HAVE BLOCKED this release');
  });

  it('--refresh runs a fresh drift check', async () => {
    const { context } = io();
    const outcome = await runGate(options('gate-drift', { refresh: true, advisory: true }), context);
    expect(outcome.result?.refreshed).toBe(true);
  });

  it('an acknowledged finding never blocks, and the report shows the acknowledgement', async () => {
    const packageId = await driftedPackage(svc, 'gate-ack');
    const file = join(await mkdtemp(join(tmpdir(), 'tfgate-gate-')), 'gate.json');
    const before = await runGate(options(packageId, { minSeverity: 'critical' }), io().context);
    expect(before.exitCode).toBe(3);
    const [critical] = (await openFindings(svc, packageId)).filter((f) => f.severity === 'critical');
    await acknowledge(svc, packageId, critical!.id, 'ledger is being migrated, tracked in OPS-42');
    const { out, context } = io();
    const after = await runGate(
      options(packageId, {
        minSeverity: 'critical',
        reports: [{ format: 'text' }, { format: 'json', path: file }],
      }),
      context,
    );
    expect(after.exitCode).toBe(0);
    expect(out.stdout).toMatch(/^PASS: 0 blocking drift findings \(1 acknowledged\)/);
    expect(out.stdout).toContain('ledger is being migrated, tracked in OPS-42');
    const json = JSON.parse(await readFile(file, 'utf8'));
    expect(json.decision).toBe('pass');
    expect(json.acknowledged[0].acknowledgement.reason).toBe('ledger is being migrated, tracked in OPS-42');
    // The high finding is still open and still blocks at high.
    expect((await runGate(options(packageId, { minSeverity: 'high' }), io().context)).exitCode).toBe(3);
  });
});

describe('tfgate gate errors against the real service', () => {
  it('an unapproved package is no decision (exit 4) naming the approval', async () => {
    const put = await api(svc, 'PUT', `${CONFORMANCE}/packages/gate-unapproved`, {
      body: 'package_id: gate-unapproved\nname: U\nsanctioned_kinds: []\n',
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(put.status).toBeLessThan(300);
    const error = await failure(runGate(options('gate-unapproved'), io().context));
    expect(error.exitCode).toBe(4);
    expect(error.code).toBe('package_not_approved');
    expect(error.hint).toMatch(/approve/);
  });

  it('--advisory: no decision (exit 4) exits 0 with a loud notice naming the error; usage errors still fail', async () => {
    const put = await api(svc, 'PUT', `${CONFORMANCE}/packages/gate-unapproved-adv`, {
      body: 'package_id: gate-unapproved-adv\nname: U\nsanctioned_kinds: []\n',
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(put.status).toBeLessThan(300);
    const strict = await failure(runGate(options('gate-unapproved-adv'), io().context));
    expect(strict.exitCode).toBe(4);
    const { out, context } = io();
    const outcome = await runGate(options('gate-unapproved-adv', { advisory: true }), context);
    expect(outcome.exitCode).toBe(0);
    expect(outcome.result).toBeUndefined();
    expect(out.stderr).toMatch(/^ADVISORY MODE: no decision could be reached \(/);
    expect(out.stderr).toContain(strict.message);
    expect(out.stderr).toContain('--advisory');
    // A usage error (an unknown package: exit 1) is not a missing decision: advisory does not hide it.
    const usage = await failure(runGate(options('no-such-package', { advisory: true }), io().context));
    expect(usage.exitCode).toBe(1);
  });

  it('--advisory: an unreachable service exits 0 saying so; without it, exit 4', async () => {
    const env = { TFGATE_BASE_URL: 'http://127.0.0.1:9', TFGATE_RETRIES: '0' };
    const strict = await failure(runGate(options('gate-clean'), io(env).context));
    expect(strict.exitCode).toBe(4);
    expect(strict.code).toBe('service_unreachable');
    const { out, context } = io(env);
    const outcome = await runGate(options('gate-clean', { advisory: true }), context);
    expect(outcome.exitCode).toBe(0);
    expect(out.stderr).toMatch(
      /^ADVISORY MODE: no decision could be reached \(could not reach the tfgate service/,
    );
    expect(out.stdout).toBe('');
  });

  it('an unknown package is a usage error (exit 1)', async () => {
    const error = await failure(runGate(options('no-such-package'), io().context));
    expect(error.exitCode).toBe(1);
    expect(error.code).toBe('package_not_found');
  });

  it('a wrong key is exit 1 and is never printed', async () => {
    const key = 'tfg_wrong_key_that_must_not_leak';
    const error = await failure(runGate(options('gate-clean'), io({ TFGATE_API_KEY: key }).context));
    expect(error.exitCode).toBe(1);
    expect(error.code).toBe('invalid_api_key');
    expect(`${error.message} ${error.hint}`).not.toContain(key);
  });

  it('a key without compliance:read names the scope; an account below large names the plan', async () => {
    const writer = await createAccountKey(svc, 'gate-writer', 'enterprise', ['compliance:write']);
    const scope = await failure(runGate(options('gate-clean'), io({ TFGATE_API_KEY: writer.key }).context));
    expect(scope.code).toBe('insufficient_scope');
    expect(scope.message).toContain('compliance:read');
    const team = await createAccountKey(svc, 'gate-team', 'team', ['compliance:read']);
    const plan = await failure(runGate(options('gate-clean'), io({ TFGATE_API_KEY: team.key }).context));
    expect(plan.code).toBe('plan_not_eligible');
    expect(plan.hint).toMatch(/large plan or above/);
  });

  it('validates options as usage errors naming the flag', () => {
    expect(() => resolveGateOptions({ package: 'Bad Id!' }, {})).toThrow(/--package/);
    expect(() => resolveGateOptions({ package: 'p', minSeverity: 'severe' }, {})).toThrow(/--min-severity/);
    expect(resolveGateOptions({}, { TFGATE_PACKAGE: 'p', TFGATE_ADVISORY: 'true' })).toMatchObject({
      packageId: 'p',
      advisory: true,
      minSeverity: 'low',
    });
  });
});

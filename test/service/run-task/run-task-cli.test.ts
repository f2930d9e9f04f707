// `tfgate run-task configure|show` against a real service: the key from TFGATE_RUN_TASK_HMAC_KEY or
// generated and printed once (alone on stdout), the URL to paste, never the key afterwards. Real child processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceWithPackage, type TestService, type tfgateAgainst } from '../../helpers/service.js';
import { design, PLAN_CLEAN } from '../fixtures.js';
import {
  type HcpTerraformDouble,
  planIdOf,
  sendRunTask,
  startHcpTerraformDouble,
  waitFor,
} from './hcp-terraform-double.js';

let svc: TestService;
let tfgate: ReturnType<typeof tfgateAgainst>;
let hcp: HcpTerraformDouble;

beforeAll(async () => {
  hcp = await startHcpTerraformDouble();
  ({ svc, tfgate } = await startServiceWithPackage(design('payments'), {
    env: { TFGATE_RUN_TASK_ALLOWED_ORIGINS: hcp.origin },
  }));
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await hcp?.close();
});

describe('tfgate run-task', () => {
  it('generates a key, prints it once alone on stdout, and HCP Terraform requests signed with it are accepted', async () => {
    const res = await tfgate([
      'run-task',
      'configure',
      '--package',
      'payments',
      '--generate-key',
      '--min-severity',
      'high',
    ]);
    expect(res.exitCode).toBe(0);
    const key = res.stdout.trim();
    expect(key).toMatch(/^[\w-]{43}$/);
    expect(res.stderr).toContain(
      `Endpoint URL: ${svc.baseUrl}/v1/analysis/conformance/packages/payments/run-task`,
    );
    expect(res.stderr).not.toContain(key);
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    const url = `${svc.baseUrl}/v1/analysis/conformance/packages/payments/run-task`;
    expect((await sendRunTask(url, payload, key)).status).toBe(200);
    await waitFor(() =>
      hcp.callbacks.find(
        (c) => c.taskResultId === payload.task_result_id && c.body.data.attributes.status === 'passed',
      ),
    );
    const shown = await tfgate(['run-task', 'show', '--package', 'payments', '--format', 'json']);
    expect(shown.exitCode).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ configured: true, min_severity: 'high' });
    expect(shown.stdout + shown.stderr).not.toContain(key);
    const text = await tfgate(['run-task', 'show', '--package', 'payments']);
    expect(text.exitCode, text.stderr).toBe(0);
    // Every origin in full (each was once cut to its list index's length: "…").
    expect(text.stdout.split('\n')).toContain(`  allowed origins: ${hcp.origin}`);
    expect(text.stdout + text.stderr).not.toContain(key);
  }, 60_000);

  it('takes the key from TFGATE_RUN_TASK_HMAC_KEY and never prints it', async () => {
    const key = 'from-the-secret-store-0123456789abcdefgh';
    const res = await tfgate(['run-task', 'configure', '--package', 'payments'], {
      TFGATE_RUN_TASK_HMAC_KEY: key,
    });
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toContain('Endpoint URL:');
    expect(res.stdout + res.stderr).not.toContain(key);
    // The service holds that key: a request signed with it is accepted, one signed with another is not.
    const url = `${svc.baseUrl}/v1/analysis/conformance/packages/payments/run-task`;
    const payload = hcp.payload();
    hcp.plans.set(planIdOf(payload), PLAN_CLEAN);
    expect((await sendRunTask(url, payload, 'another-key-0123456789abcdefghijkl')).status).toBe(401);
    expect((await sendRunTask(url, payload, key)).status).toBe(200);
  }, 30_000);

  it('refuses without a key, with a short key, or with both, in plain words', async () => {
    const none = await tfgate(['run-task', 'configure', '--package', 'payments']);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toMatch(/no HMAC key for the run task/);
    expect(none.stderr).toMatch(/--generate-key/);
    const short = await tfgate(['run-task', 'configure', '--package', 'payments'], {
      TFGATE_RUN_TASK_HMAC_KEY: 'short',
    });
    expect(short.exitCode).toBe(1);
    expect(short.stderr).toMatch(/at least 32/);
    expect(short.stderr).not.toContain('short\n');
    const both = await tfgate(['run-task', 'configure', '--package', 'payments', '--generate-key'], {
      TFGATE_RUN_TASK_HMAC_KEY: 'x'.repeat(40),
    });
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toMatch(/--generate-key/);
    const unknown = await tfgate(['run-task', 'show', '--package', 'nope']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/package nope was not found/);
  }, 60_000);
});

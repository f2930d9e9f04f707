// Scheduled drift checks on the embedded store: with a short interval, a pushed state is checked without
// any gate call, and the gate then reads that scheduled check (refreshed: false).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design, STATE_CLEAN, STATE_WITH_QUEUE } from './fixtures.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ env: { TFGATE_DRIFT_INTERVAL: '400ms' } });
});
afterAll(async () => {
  await svc?.stop();
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('scheduled drift checks', () => {
  it('check each approved package with observed state on the interval; the gate reads the last one', async () => {
    const id = await createApprovedPackage(svc, design('scheduled'), { observedState: STATE_WITH_QUEUE });
    const open = await waitFor(async () => {
      const res = await api<{ findings: Array<{ id: string }> }>(
        svc,
        'GET',
        `${CONFORMANCE}/packages/${id}/findings?status=open`,
      );
      return res.body.findings.length > 0 ? res.body.findings : undefined;
    });
    expect(open).toHaveLength(1);
    const gate = await api<{ refreshed: boolean; decision: string }>(
      svc,
      'POST',
      `${CONFORMANCE}/packages/${id}/gate`,
    );
    expect(gate.body).toMatchObject({ refreshed: false, decision: 'block' });

    // A new state is picked up by a later scheduled check, with no gate or manual check.
    await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}/observed-state`, { body: STATE_CLEAN });
    await waitFor(async () => {
      const res = await api<{ findings: Array<{ id: string }> }>(
        svc,
        'GET',
        `${CONFORMANCE}/packages/${id}/findings?status=resolved`,
      );
      return res.body.findings.length > 0 ? true : undefined;
    });
    const passed = await api<{ refreshed: boolean; decision: string }>(
      svc,
      'POST',
      `${CONFORMANCE}/packages/${id}/gate?fail_status=true`,
    );
    expect(passed.status).toBe(200);
    expect(passed.body).toMatchObject({ refreshed: false, decision: 'pass' });
  });

  it('does not check a package whose changed design is not approved', async () => {
    const id = await createApprovedPackage(svc, design('unapproved-later'), { observedState: STATE_CLEAN });
    await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: `${design(id)}  aws_s3_bucket: object_storage\n`,
      headers: { 'Content-Type': 'application/yaml' },
    });
    await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}/observed-state`, { body: STATE_WITH_QUEUE });
    await new Promise((r) => setTimeout(r, 1500));
    const res = await api<{ findings: unknown[] }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/${id}/findings?status=open`,
    );
    expect(res.body.findings).toEqual([]);
  });
});

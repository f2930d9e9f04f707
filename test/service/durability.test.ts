// Nothing lost: a restart keeps everything, and `kill -9` during a burst of acknowledgements (or of gate
// calls, whose audit rows share commits) loses none that got a 2xx answer. Real `tfgate serve` child
// processes on one data dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, CONFORMANCE, createApprovedPackage, startService } from '../helpers/service.js';
import { design, PLAN_CLEAN, STATE_WITH_QUEUE } from './fixtures.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tfgate-durable-'));
const apiKey = 'tfg_durability_bootstrap_key_0123456789';
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

type AuditEntries = {
  entries: Array<{ event: string; details: Record<string, unknown> }>;
  next_after: string | null;
};

async function allAudit(svc: { baseUrl: string; apiKey: string }, id: string) {
  const entries: AuditEntries['entries'] = [];
  let after = '0';
  for (;;) {
    const page = await api<AuditEntries>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/${id}/audit?after=${after}&limit=1000`,
    );
    entries.push(...page.body.entries);
    if (!page.body.next_after) return entries;
    after = page.body.next_after;
  }
}

describe('durability', () => {
  it('keeps packages, findings, acknowledgements, audit and the signing key across a restart', async () => {
    const first = await startService({ dataDir, apiKey, process: true });
    const id = await createApprovedPackage(first, design('durable'), { observedState: STATE_WITH_QUEUE });
    const gate = await api<{ blocking: Array<{ id: string }> }>(
      first,
      'POST',
      `${CONFORMANCE}/packages/${id}/gate`,
    );
    const findingId = gate.body.blocking[0]!.id;
    await api(first, 'POST', `${CONFORMANCE}/packages/${id}/findings/${findingId}/acknowledge`, {
      body: { reason: 'kept' },
    });
    const key = (await api<{ key_id: string }>(first, 'GET', `${CONFORMANCE}/public-key`)).body.key_id;
    const etag = (
      await fetch(`${first.baseUrl}${CONFORMANCE}/packages/${id}/bundle`, {
        headers: { 'X-Api-Key': apiKey },
      })
    ).headers.get('etag');
    await first.stop();
    expect(first.child!.exitCode).toBe(0);

    const second = await startService({ dataDir, apiKey, process: true });
    try {
      const after = await api<{
        decision: string;
        acknowledged: Array<{ id: string; acknowledgement: { reason: string } }>;
      }>(second, 'POST', `${CONFORMANCE}/packages/${id}/gate?fail_status=true`);
      expect(after.status).toBe(200);
      expect(after.body.acknowledged[0]).toMatchObject({
        id: findingId,
        acknowledgement: { reason: 'kept' },
      });
      expect((await api<{ key_id: string }>(second, 'GET', `${CONFORMANCE}/public-key`)).body.key_id).toBe(
        key,
      );
      const bundle = await fetch(`${second.baseUrl}${CONFORMANCE}/packages/${id}/bundle`, {
        headers: { 'X-Api-Key': apiKey, 'If-None-Match': etag! },
      });
      expect(bundle.status).toBe(304);
      expect((await allAudit(second, id)).map((e) => e.event)).toContain('finding_acknowledged');
    } finally {
      await second.stop();
    }
  });

  it('kill -9 during a burst of acknowledgements loses none that got a 2xx', async () => {
    const first = await startService({ dataDir, apiKey, process: true });
    const id = await createApprovedPackage(first, design('burst'), { observedState: STATE_WITH_QUEUE });
    const findingId = (
      await api<{ blocking: Array<{ id: string }> }>(first, 'POST', `${CONFORMANCE}/packages/${id}/gate`)
    ).body.blocking[0]!.id;
    const acknowledged: string[] = [];
    let sent = 0;
    const worker = async (w: number) => {
      for (let i = 0; ; i++) {
        const reason = `burst ${w}-${i}`;
        sent++;
        try {
          const res = await api(
            first,
            'POST',
            `${CONFORMANCE}/packages/${id}/findings/${findingId}/acknowledge`,
            { body: { reason } },
          );
          if (res.status >= 200 && res.status < 300) acknowledged.push(reason);
        } catch {
          return; // the process is gone
        }
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 20));
    await first.kill();
    await Promise.all(workers);
    expect(sent).toBeGreaterThan(acknowledged.length - 1);

    const second = await startService({ dataDir, apiKey, process: true });
    try {
      const recorded = new Set(
        (await allAudit(second, id))
          .filter((e) => e.event === 'finding_acknowledged')
          .map((e) => String(e.details.reason)),
      );
      const lost = acknowledged.filter((reason) => !recorded.has(reason));
      expect(lost).toEqual([]);
      expect(acknowledged.length).toBeGreaterThanOrEqual(40);
    } finally {
      await second.stop();
    }
  });

  it('kill -9 during a burst of concurrent gate calls loses no gate_decided row that got a 2xx', async () => {
    const first = await startService({ dataDir, apiKey, process: true });
    const id = await createApprovedPackage(first, design('gate-burst'), { observedState: STATE_WITH_QUEUE });
    const before = (await allAudit(first, id)).filter((e) => e.event === 'gate_decided').length;
    let answered = 0;
    // Enough concurrent calls that their audit rows share commits (group commit) when the process dies.
    const worker = async () => {
      for (;;) {
        try {
          const res = await api(first, 'POST', `${CONFORMANCE}/packages/${id}/gate`);
          if (res.status === 200) answered++;
        } catch {
          return; // the process is gone
        }
      }
    };
    const workers = Array.from({ length: 20 }, worker);
    while (answered < 200) await new Promise((r) => setTimeout(r, 10));
    await first.kill();
    await Promise.all(workers);

    const second = await startService({ dataDir, apiKey, process: true });
    try {
      const recorded = (await allAudit(second, id)).filter((e) => e.event === 'gate_decided').length;
      // Rows of calls whose answer the kill cut off may be there too, so at least, not exactly.
      expect(recorded - before).toBeGreaterThanOrEqual(answered);
    } finally {
      await second.stop();
    }
  });

  it('SIGTERM lets an in-flight request finish, then exits 0', async () => {
    const svc = await startService({ process: true });
    const id = await createApprovedPackage(svc, design('graceful'));
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const body = async function* () {
      yield Buffer.from(PLAN_CLEAN.slice(0, 20));
      await held;
      yield Buffer.from(PLAN_CLEAN.slice(20));
    };
    const pending = fetch(`${svc.baseUrl}${CONFORMANCE}/packages/${id}/evaluate/terraform`, {
      method: 'POST',
      headers: { 'X-Api-Key': svc.apiKey, 'Content-Type': 'application/json' },
      body: ReadableStream.from(body()),
      duplex: 'half',
    } as RequestInit);
    await new Promise((r) => setTimeout(r, 500));
    svc.child!.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    expect(svc.child!.exitCode).toBeNull();
    release();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { decision: string }).decision).toBe('pass');
    // It exits by itself once the in-flight request is done: no second signal needed.
    if (svc.child!.exitCode === null) await new Promise((r) => svc.child!.once('exit', r));
    expect(svc.child!.exitCode).toBe(0);
    await svc.stop();
    expect(svc.logs.some((l) => l.msg === 'stopped')).toBe(true);
    // One JSON line per request with its request id and key id, never a key.
    const requests = svc.logs.filter((l) => l.msg === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(3);
    for (const line of requests)
      expect(line).toMatchObject({ request_id: expect.any(String), status: expect.any(Number) });
    expect(requests.find((l) => l.route === 'evaluateTerraform')).toMatchObject({
      status: 200,
      account: 'default',
      key_id: expect.any(String),
    });
    expect(JSON.stringify(svc.logs)).not.toContain(svc.apiKey);
  });
});

// Acknowledgements that expire (issue 12), on both stores (SQLite and a real PostgreSQL): a drift
// acknowledgement with expires_at holds until then; at the first decision after it the finding is open again
// and blocks, the gate says which acknowledgement expired and when, and the audit log records the expiry once.
import { describe, expect, it } from 'vitest';
import { schemas } from '../../src/service/index.js';
import { STORES, useBothStores } from '../helpers/both-stores.js';
import { api, CONFORMANCE, createApprovedPackage } from '../helpers/service.js';
import { design, STATE_WITH_QUEUE } from './fixtures.js';

const services = useBothStores('tfgate_expiry');

type Gate = {
  decision: string;
  blocking: Array<{ id: string; status: string; acknowledgement?: Record<string, string> }>;
  acknowledged: Array<{ id: string; acknowledgement?: Record<string, string> }>;
  expired_acknowledgements?: Array<Record<string, string>>;
  counts: Record<string, number>;
};

const sleepUntil = async (iso: string) => {
  const wait = Date.parse(iso) - Date.now() + 50;
  if (wait > 0) await new Promise((done) => setTimeout(done, wait));
};

describe.each(STORES)('drift acknowledgements that expire, %s store', (store) => {
  const svc = () => services[store]!;
  const gate = (id: string) =>
    api<Gate>(svc(), 'POST', `${CONFORMANCE}/packages/${id}/gate?fail_status=true`);
  const ack = (id: string, findingId: string, body: unknown) =>
    api<Record<string, unknown>>(
      svc(),
      'POST',
      `${CONFORMANCE}/packages/${id}/findings/${findingId}/acknowledge`,
      { body },
    );

  it('holds until expires_at, then blocks again; the gate names the expiry and the audit log records it once', async () => {
    const id = await createApprovedPackage(svc(), design(`exp-${store}`), {
      observedState: STATE_WITH_QUEUE,
    });
    const blocked = await gate(id);
    expect(blocked.status).toBe(409);
    const findingId = blocked.body.blocking[0]!.id;

    const expiresAt = new Date(Date.now() + 2500).toISOString();
    const acked = await ack(id, findingId, { reason: 'queue retired next sprint', expires_at: expiresAt });
    expect(acked.status, acked.text).toBe(200);
    expect(acked.body).toMatchObject({
      status: 'acknowledged',
      acknowledgement: { reason: 'queue retired next sprint', expires_at: expiresAt },
    });

    const passed = await gate(id);
    expect(passed.status, passed.text).toBe(200);
    expect(passed.body.acknowledged[0]?.acknowledgement?.expires_at).toBe(expiresAt);
    expect(passed.body.expired_acknowledgements).toBeUndefined();

    await sleepUntil(expiresAt);
    for (let call = 0; call < 2; call++) {
      const again = await gate(id);
      expect(again.status, again.text).toBe(409);
      expect(schemas.gateResultSchema.parse(again.body)).toBeTruthy();
      expect(again.body.blocking.map((f) => [f.id, f.status])).toEqual([[findingId, 'open']]);
      expect(again.body.counts).toEqual({ open: 1, acknowledged: 0, blocking: 1 });
      expect(again.body.expired_acknowledgements).toEqual([
        expect.objectContaining({
          finding_id: findingId,
          rule: 'unsanctioned_resource',
          address: 'aws_sqs_queue.extra',
          expires_at: expiresAt,
          reason: 'queue retired next sprint',
          account: 'default',
        }),
      ]);
    }
    // Listed as open, with the expired acknowledgement kept for the record.
    const open = await api<{ findings: Array<{ id: string; acknowledgement?: { expires_at?: string } }> }>(
      svc(),
      'GET',
      `${CONFORMANCE}/packages/${id}/findings?status=open`,
    );
    expect(open.body.findings.map((f) => [f.id, f.acknowledgement?.expires_at])).toEqual([
      [findingId, expiresAt],
    ]);

    const audit = await api<{
      entries: Array<{ event: string; key_name: string | null; details: Record<string, unknown> }>;
    }>(svc(), 'GET', `${CONFORMANCE}/packages/${id}/audit`);
    const events = audit.body.entries.map((e) => e.event);
    expect(events.filter((e) => e === 'acknowledgement_expired')).toHaveLength(1);
    const acknowledged = audit.body.entries.find((e) => e.event === 'finding_acknowledged')!;
    expect(acknowledged.details).toMatchObject({
      expires_at: expiresAt,
      reason: 'queue retired next sprint',
    });
    const expiredEntry = audit.body.entries.find((e) => e.event === 'acknowledgement_expired')!;
    expect(expiredEntry.details).toMatchObject({
      finding_id: findingId,
      expires_at: expiresAt,
      acknowledged_account: 'default',
    });
    expect(expiredEntry.key_name).toBe(acknowledged.key_name);
    const lastGate = audit.body.entries.filter((e) => e.event === 'gate_decided').at(-1)!;
    expect(lastGate.details).toMatchObject({ decision: 'block', expired_acknowledgements: [findingId] });

    // A new acknowledgement (without expiry) holds again.
    expect((await ack(id, findingId, { reason: 'kept on purpose' })).status).toBe(200);
    const final = await gate(id);
    expect(final.status).toBe(200);
    expect(final.body.acknowledged[0]?.acknowledgement).not.toHaveProperty('expires_at');
  }, 30_000);

  it('refuses an expiry in the past, a malformed expiry and a missing reason, in plain words', async () => {
    const id = await createApprovedPackage(svc(), design(`exp-bad-${store}`), {
      observedState: STATE_WITH_QUEUE,
    });
    const findingId = (await gate(id)).body.blocking[0]!.id;
    const past = await ack(id, findingId, { reason: 'r', expires_at: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({ error: { code: 'invalid_parameter' } });
    expect(JSON.stringify(past.body)).toMatch(/2020-01-01T00:00:00.000Z is not in the future/);
    const malformed = await ack(id, findingId, { reason: 'r', expires_at: 'next tuesday' });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).toMatch(/not an RFC 3339 date-time with a time zone/);
    const noReason = await ack(id, findingId, { expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect(noReason.status).toBe(400);
    expect(JSON.stringify(noReason.body)).toMatch(/reason is required/);
    // Nothing was recorded: the finding is still open.
    expect((await gate(id)).status).toBe(409);
  });
});

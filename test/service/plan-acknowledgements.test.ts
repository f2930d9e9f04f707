// Plan acknowledgements (issue 12) on both stores (SQLite and a real PostgreSQL) and both routes: the
// service evaluation and the signed bundle decide alike at the same moment; an expired acknowledgement
// blocks again on both, and the bundle that carries it still verifies; revocation is audited.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSource } from '../../src/plan/index.js';
import { BundleEvaluator } from '../../src/policy/bundle/index.js';
import { findingId } from '../../src/policy/finding-id.js';
import { schemas } from '../../src/service/index.js';
import { STORES, useBothStores } from '../helpers/both-stores.js';
import { api, CONFORMANCE, createApprovedPackage } from '../helpers/service.js';
import { design, PLAN_BLOCKED } from './fixtures.js';

const services = useBothStores('tfgate_plan_acks');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-plan-acks-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Evaluation = {
  decision: string;
  findings: Array<{ id: string; rule: string; address: string; acknowledgement?: Record<string, string> }>;
  expired_acknowledgements?: Array<Record<string, string>>;
};

const QUEUE = { rule: 'unsanctioned_creation', address: 'aws_sqs_queue.extra' };
const LEDGER = { rule: 'capability_dependency_destroyed', address: 'aws_db_instance.ledger' };

describe.each(STORES)('plan acknowledgements, %s store', (store) => {
  const svc = () => services[store]!;
  const evaluate = (id: string) =>
    api<Evaluation>(svc(), 'POST', `${CONFORMANCE}/packages/${id}/evaluate/terraform?fail_status=true`, {
      body: PLAN_BLOCKED,
    });
  const acknowledge = (id: string, body: unknown) =>
    api<Record<string, unknown>>(svc(), 'POST', `${CONFORMANCE}/packages/${id}/plan-acknowledgements`, {
      body,
    });
  const bundleEvaluator = async (id: string, name: string) => {
    const res = await fetch(`${svc().baseUrl}${CONFORMANCE}/packages/${id}/bundle`, {
      headers: { 'X-Api-Key': svc().apiKey },
    });
    expect(res.status).toBe(200);
    const bundlePath = join(dir, `${store}-${name}.tar.gz`);
    await writeFile(bundlePath, Buffer.from(await res.arrayBuffer()));
    const keyPath = join(dir, `${store}-key.pem`);
    const pem = await api(svc(), 'GET', `${CONFORMANCE}/public-key`, {
      headers: { Accept: 'application/x-pem-file' },
    });
    await writeFile(keyPath, pem.text);
    return { bundlePath, keyPath, etag: res.headers.get('etag') };
  };
  const planPath = async () => {
    const path = join(dir, 'plan.json');
    await writeFile(path, PLAN_BLOCKED);
    return fileSource(path);
  };

  it('waives one rule on one address until it expires, on the service and in the bundle alike; revocation is audited', async () => {
    const id = await createApprovedPackage(svc(), design(`pa-${store}`));
    expect((await evaluate(id)).status).toBe(409);
    const before = await bundleEvaluator(id, 'before');

    const queue = await acknowledge(id, { ...QUEUE, reason: 'queue kept during the migration' });
    expect(queue.status, queue.text).toBe(201);
    expect(queue.body).toEqual({
      finding_id: findingId(id, QUEUE.rule, QUEUE.address),
      ...QUEUE,
      reason: 'queue kept during the migration',
      by: 'bootstrap',
      account: 'default',
      at: expect.any(String),
    });
    const expiresAt = new Date(Date.now() + 3000).toISOString();
    const ledger = await acknowledge(id, {
      ...LEDGER,
      reason: 'ledger replaced, OPS-7',
      expires_at: expiresAt,
    });
    expect(ledger.status, ledger.text).toBe(201);
    expect(ledger.body.expires_at).toBe(expiresAt);

    // The service: both findings reported, acknowledged, and nothing blocks.
    const passed = await evaluate(id);
    expect(passed.status, passed.text).toBe(200);
    expect(schemas.evaluationResultSchema.parse(passed.body)).toBeTruthy();
    expect(passed.body.decision).toBe('pass');
    expect(passed.body.findings.map((f) => [f.address, f.acknowledgement?.reason])).toEqual([
      ['aws_db_instance.ledger', 'ledger replaced, OPS-7'],
      ['aws_sqs_queue.extra', 'queue kept during the migration'],
    ]);

    // The bundle carries them: a new revision, and the same answer offline at the same moment.
    const withAcks = await bundleEvaluator(id, 'with-acks');
    expect(withAcks.etag).not.toBe(before.etag);
    const at = (ms: number) => () => new Date(ms);
    const moment = Date.now();
    const offline = await BundleEvaluator.open(withAcks.bundlePath, {
      publicKeyPath: withAcks.keyPath,
      now: at(moment),
    });
    const offlineResult = await offline.evaluate(await planPath(), 'low');
    expect(offlineResult.decision).toBe('pass');
    expect(offlineResult.findings).toEqual(passed.body.findings);

    // After the expiry: the ledger's destruction blocks again on both routes, and both say which expired.
    const wait = Date.parse(expiresAt) - Date.now() + 50;
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    for (let call = 0; call < 2; call++) {
      const blocked = await evaluate(id);
      expect(blocked.status, blocked.text).toBe(409);
      expect(
        blocked.body.findings.find((f) => f.address === LEDGER.address)?.acknowledgement,
      ).toBeUndefined();
      expect(blocked.body.expired_acknowledgements).toEqual([
        expect.objectContaining({
          finding_id: findingId(id, LEDGER.rule, LEDGER.address),
          ...LEDGER,
          expires_at: expiresAt,
          reason: 'ledger replaced, OPS-7',
        }),
      ]);
      const later = await (
        await BundleEvaluator.open(withAcks.bundlePath, { publicKeyPath: withAcks.keyPath })
      ).evaluate(await planPath(), 'low');
      expect(later.decision).toBe('block');
      expect(later.findings).toEqual(blocked.body.findings);
      expect(later.expired_acknowledgements).toEqual(blocked.body.expired_acknowledgements);
    }

    // List, revoke (audited), and revoking again is 404.
    const list = await api<{ plan_acknowledgements: Array<{ address: string }> }>(
      svc(),
      'GET',
      `${CONFORMANCE}/packages/${id}/plan-acknowledgements`,
    );
    expect(list.body.plan_acknowledgements.map((a) => a.address).sort()).toEqual([
      LEDGER.address,
      QUEUE.address,
    ]);
    const queueId = findingId(id, QUEUE.rule, QUEUE.address);
    const revoked = await api(
      svc(),
      'DELETE',
      `${CONFORMANCE}/packages/${id}/plan-acknowledgements/${queueId}`,
    );
    expect(revoked.status, revoked.text).toBe(200);
    const again = await api<{ error: { code: string; message: string } }>(
      svc(),
      'DELETE',
      `${CONFORMANCE}/packages/${id}/plan-acknowledgements/${queueId}`,
    );
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('plan_acknowledgement_not_found');
    const after = await evaluate(id);
    expect(after.body.findings.every((f) => f.acknowledgement === undefined)).toBe(true);

    const audit = await api<{
      entries: Array<{
        event: string;
        key_name: string | null;
        account: string;
        details: Record<string, unknown>;
      }>;
    }>(svc(), 'GET', `${CONFORMANCE}/packages/${id}/audit?limit=1000`);
    const events = audit.body.entries.map((e) => e.event);
    expect(events.filter((e) => e === 'plan_finding_acknowledged')).toHaveLength(2);
    expect(events.filter((e) => e === 'acknowledgement_expired')).toHaveLength(1);
    const revocation = audit.body.entries.find((e) => e.event === 'plan_acknowledgement_revoked')!;
    expect(revocation).toMatchObject({
      key_name: 'bootstrap',
      account: 'default',
      details: { finding_id: queueId, ...QUEUE },
    });
    const evaluations = audit.body.entries.filter((e) => e.event === 'plan_evaluated');
    expect(evaluations[1]!.details).toMatchObject({ decision: 'pass' });
    expect((evaluations[1]!.details.acknowledged as string[]).sort()).toEqual(
      [findingId(id, LEDGER.rule, LEDGER.address), queueId].sort(),
    );
  }, 60_000);

  it('audits what a replacement replaced and what a revocation revoked, expiry included', async () => {
    const id = await createApprovedPackage(svc(), design(`pa-audit-${store}`));
    const first = await acknowledge(id, { ...QUEUE, reason: 'first', expires_at: '2099-01-01T00:00:00Z' });
    expect(first.status, first.text).toBe(201);
    const second = await acknowledge(id, { ...QUEUE, reason: 'second', expires_at: '2098-01-01T00:00:00Z' });
    expect(second.status, second.text).toBe(201);
    const queueId = findingId(id, QUEUE.rule, QUEUE.address);
    const revoked = await api(
      svc(),
      'DELETE',
      `${CONFORMANCE}/packages/${id}/plan-acknowledgements/${queueId}`,
    );
    expect(revoked.status, revoked.text).toBe(200);
    const audit = await api<{ entries: Array<{ event: string; details: Record<string, unknown> }> }>(
      svc(),
      'GET',
      `${CONFORMANCE}/packages/${id}/audit?limit=1000`,
    );
    const details = (event: string) =>
      audit.body.entries.filter((e) => e.event === event).map((e) => e.details);
    const waiver = (reason: string, expires: string) => ({
      finding_id: queueId,
      ...QUEUE,
      reason,
      expires_at: new Date(expires).toISOString(),
    });
    const acknowledged = details('plan_finding_acknowledged');
    expect(acknowledged).toHaveLength(2);
    const replacing = acknowledged.find((d) => d.reason === 'second')!;
    expect(replacing).toEqual({
      ...waiver('second', '2098-01-01T00:00:00Z'),
      replaces: {
        ...waiver('first', '2099-01-01T00:00:00Z'),
        by: 'bootstrap',
        account: 'default',
        at: expect.any(String),
      },
    });
    expect(details('plan_acknowledgement_revoked')).toEqual([
      {
        ...waiver('second', '2098-01-01T00:00:00Z'),
        acknowledged_by: 'bootstrap',
        acknowledged_account: 'default',
      },
    ]);
  }, 60_000);

  it('refuses a pattern, an unknown rule, a missing reason and an expiry in the past, in plain words', async () => {
    const id = await createApprovedPackage(svc(), design(`pa-bad-${store}`));
    const cases: Array<[unknown, RegExp]> = [
      [{ rule: LEDGER.rule, address: 'aws_db_instance.*', reason: 'r' }, /one resource address/],
      [{ rule: 'unsanctioned_resource', address: LEDGER.address, reason: 'r' }, /rule must be one of/],
      [{ ...LEDGER }, /reason is required/],
      [{ ...LEDGER, reason: ' ' }, /reason is required/],
      [{ ...LEDGER, reason: 'r', expires_at: '2001-01-01T00:00:00+02:00' }, /is not in the future/],
      [{ ...LEDGER, reason: 'r', expires_at: '2030-02-30T00:00:00Z' }, /not an RFC 3339 date-time/],
    ];
    for (const [body, message] of cases) {
      const res = await acknowledge(id, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'invalid_parameter' } });
      expect(res.text).toMatch(message);
    }
    const list = await api<{ plan_acknowledgements: unknown[] }>(
      svc(),
      'GET',
      `${CONFORMANCE}/packages/${id}/plan-acknowledgements`,
    );
    expect(list.body.plan_acknowledgements).toEqual([]);
  });
});

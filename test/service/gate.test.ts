// The gate (interface §4.1, rules 1–3), drift with stable ids, acknowledgements and audit, the contract's
// error order and account isolation, over real HTTP on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemas } from '../../src/service/index.js';
import {
  api,
  CONFORMANCE,
  createAccountKey,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design, STATE_CLEAN, STATE_HIGH_AND_CRITICAL, STATE_WITH_QUEUE } from './fixtures.js';

type Gate = {
  decision: string;
  blocking: Array<{ id: string; rule: string; severity: string; address: string }>;
  acknowledged: Array<{ id: string; acknowledgement?: Record<string, string> }>;
  counts: Record<string, number>;
  refreshed: boolean;
  error?: { code: string };
};
type Finding = { id: string; status: string; rule: string; address: string; severity: string };

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

const gatePath = (id: string, query = '') => `${CONFORMANCE}/packages/${id}/gate${query}`;
const gate = (id: string, query = '', key?: string) =>
  api<Gate>(svc, 'POST', gatePath(id, query), key ? { key } : {});
const findings = async (id: string, status?: string) =>
  (
    await api<{ findings: Finding[] }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/${id}/findings${status ? `?status=${status}` : ''}`,
    )
  ).body.findings;
const push = (id: string, state: string) =>
  api(svc, 'PUT', `${CONFORMANCE}/packages/${id}/observed-state`, { body: state });
const check = (id: string) =>
  api<{ opened: number; resolved: number; reopened: number }>(
    svc,
    'POST',
    `${CONFORMANCE}/packages/${id}/drift-checks`,
  );
const ack = (id: string, findingId: string, body: unknown = { reason: 'accepted for the Q3 migration' }) =>
  api<Finding & { acknowledgement: Record<string, string> }>(
    svc,
    'POST',
    `${CONFORMANCE}/packages/${id}/findings/${findingId}/acknowledge`,
    { body },
  );

describe('gate rules', () => {
  it('rule 1: blocks on an open finding at or above the threshold; 409 only with fail_status=true', async () => {
    const id = await createApprovedPackage(svc, design('rule1'), { observedState: STATE_WITH_QUEUE });
    // Never checked: the gate runs a check first.
    const advisory = await gate(id);
    expect(advisory.status).toBe(200);
    expect(schemas.gateResultSchema.parse(advisory.body)).toBeTruthy();
    expect(advisory.body).toMatchObject({
      package_id: id,
      decision: 'block',
      min_severity: 'low',
      refreshed: true,
    });
    expect(advisory.body.blocking).toEqual([
      expect.objectContaining({
        rule: 'unsanctioned_resource',
        severity: 'high',
        address: 'aws_sqs_queue.extra',
      }),
    ]);
    expect(advisory.body.counts).toEqual({ open: 1, acknowledged: 0, blocking: 1 });

    const failing = await gate(id, '?fail_status=true');
    expect(failing.status).toBe(409);
    expect(failing.body.error).toMatchObject({ code: 'gate_blocked' });
    expect(failing.body).toMatchObject({ decision: 'block', refreshed: false });

    expect((await gate(id, '?fail_status=true&min_severity=high')).status).toBe(409);
    const critical = await gate(id, '?fail_status=true&min_severity=critical');
    expect(critical.status).toBe(200);
    expect(critical.body).toMatchObject({ decision: 'pass', counts: { open: 1, blocking: 0 } });
    expect((await gate(id, '?fail_status=false')).status).toBe(200);
  });

  it('min_severity=high blocks on high and critical only', async () => {
    const id = await createApprovedPackage(svc, design('severities'), {
      observedState: STATE_HIGH_AND_CRITICAL,
    });
    const high = await gate(id, '?min_severity=high');
    expect(high.body.blocking.map((f) => f.severity).sort()).toEqual(['critical', 'high']);
    const critical = await gate(id, '?min_severity=critical');
    expect(critical.body.blocking).toEqual([
      expect.objectContaining({ rule: 'capability_dependency_missing', address: 'aws_db_instance.ledger' }),
    ]);
  });

  it('rule 2: an acknowledged finding never blocks, and the acknowledgement is audited with who, when and why', async () => {
    const id = await createApprovedPackage(svc, design('rule2'), { observedState: STATE_WITH_QUEUE });
    const [finding] = (await gate(id)).body.blocking;
    const acked = await ack(id, finding!.id);
    expect(acked.status).toBe(200);
    expect(acked.body).toMatchObject({
      id: finding!.id,
      status: 'acknowledged',
      acknowledgement: { by: 'bootstrap', account: 'default', reason: 'accepted for the Q3 migration' },
    });
    const passed = await gate(id, '?fail_status=true&min_severity=low');
    expect(passed.status).toBe(200);
    expect(passed.body).toMatchObject({
      decision: 'pass',
      counts: { open: 0, acknowledged: 1, blocking: 0 },
    });
    expect(passed.body.acknowledged[0]).toMatchObject({
      id: finding!.id,
      acknowledgement: { reason: 'accepted for the Q3 migration' },
    });
    // Refreshing does not lose the acknowledgement: the id is stable.
    expect((await gate(id, '?fail_status=true&refresh=true')).status).toBe(200);

    const audit = await api<{
      entries: Array<{
        event: string;
        key_name: string;
        account: string;
        at: string;
        details: Record<string, unknown>;
      }>;
    }>(svc, 'GET', `${CONFORMANCE}/packages/${id}/audit`);
    const events = audit.body.entries.map((e) => e.event);
    expect(events).toEqual(
      expect.arrayContaining([
        'package_created',
        'package_approved',
        'observed_state_pushed',
        'finding_acknowledged',
        'gate_decided',
      ]),
    );
    const ackEntry = audit.body.entries.find((e) => e.event === 'finding_acknowledged')!;
    expect(ackEntry).toMatchObject({
      key_name: 'bootstrap',
      account: 'default',
      details: { finding_id: finding!.id, reason: 'accepted for the Q3 migration' },
    });
    expect(Date.parse(ackEntry.at)).not.toBeNaN();
    const decisions = audit.body.entries
      .filter((e) => e.event === 'gate_decided')
      .map((e) => e.details.decision);
    expect(decisions).toEqual(['block', 'pass', 'pass']);
  });

  it('an acknowledgement needs a non-empty reason', async () => {
    const id = await createApprovedPackage(svc, design('reasons'), { observedState: STATE_WITH_QUEUE });
    const [finding] = (await gate(id)).body.blocking;
    for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 42 }]) {
      const res = await ack(id, finding!.id, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'invalid_parameter' } });
    }
    const noType = await api(
      svc,
      'POST',
      `${CONFORMANCE}/packages/${id}/findings/${finding!.id}/acknowledge`,
      {
        body: 'reason=x',
        headers: { 'Content-Type': 'text/plain' },
      },
    );
    expect(noType.status).toBe(415);
    expect((await ack(id, 'no-such-finding')).body).toMatchObject({ error: { code: 'finding_not_found' } });
    expect((await gate(id, '?fail_status=true')).status).toBe(409);
  });

  it('without refresh the gate reads the last check; refresh=true runs a fresh one', async () => {
    const id = await createApprovedPackage(svc, design('refresh'), { observedState: STATE_WITH_QUEUE });
    expect((await gate(id, '?fail_status=true')).status).toBe(409);
    const last = await gate(id, '?fail_status=true');
    expect(last.status).toBe(409);
    expect(last.body.refreshed).toBe(false);
    const fresh = await gate(id, '?fail_status=true&refresh=true');
    expect(fresh.status).toBe(409);
    expect(fresh.body).toMatchObject({ decision: 'block', refreshed: true });
  });

  it('a gate right after a push judges the pushed snapshot, not the one the last check judged', async () => {
    // A release job pushes its state and gates at once: before, it was judged on the snapshot before.
    const id = await createApprovedPackage(svc, design('push-then-gate'), { observedState: STATE_CLEAN });
    expect((await gate(id, '?fail_status=true')).body).toMatchObject({ decision: 'pass' });
    const pushed = await push(id, STATE_HIGH_AND_CRITICAL); // the ledger database is gone
    expect(pushed.status).toBe(200);
    const after = await gate(id, '?fail_status=true');
    expect(after.status).toBe(409);
    expect(after.body).toMatchObject({
      decision: 'block',
      refreshed: true,
      state: { source: 'pushed', read_at: (pushed.body as { pushed_at: string }).pushed_at },
    });
    // That check counts from then on: the next gate reads it.
    expect((await gate(id, '?fail_status=true')).body).toMatchObject({ decision: 'block', refreshed: false });
  });
});

describe('drift findings', () => {
  it('keep stable ids, resolve when no longer observed, and reopen (needing a new acknowledgement) when back', async () => {
    const id = await createApprovedPackage(svc, design('lifecycle'), { observedState: STATE_WITH_QUEUE });
    expect((await check(id)).body).toMatchObject({ opened: 1 });
    const [first] = await findings(id, 'open');
    expect((await ack(id, first!.id)).status).toBe(200);
    expect(await findings(id, 'open')).toEqual([]);

    await push(id, STATE_CLEAN);
    expect((await check(id)).body).toMatchObject({ resolved: 1 });
    expect((await findings(id, 'resolved')).map((f) => f.id)).toEqual([first!.id]);
    expect((await ack(id, first!.id)).body).toMatchObject({ error: { code: 'finding_resolved' } });

    await push(id, STATE_WITH_QUEUE);
    expect((await check(id)).body).toMatchObject({ reopened: 1 });
    const reopened = await findings(id, 'open');
    expect(reopened.map((f) => f.id)).toEqual([first!.id]);
    expect(reopened[0]).not.toHaveProperty('acknowledgement');
    expect((await gate(id, '?fail_status=true')).status).toBe(409);
  });

  it('are judged against the approved design only: a design awaiting approval is not checked against, and acknowledgements stay', async () => {
    const id = await createApprovedPackage(svc, design('proposal'), { observedState: STATE_WITH_QUEUE });
    expect((await check(id)).body).toMatchObject({ opened: 1 });
    const [finding] = await findings(id, 'open');
    expect((await ack(id, finding!.id)).status).toBe(200);
    // A proposal that sanctions the queue, not approved: checking against it would resolve the finding and,
    // once the approved design is back, reopen it with its acknowledgement gone.
    const proposal = `${design(id).replace('[relational_database, generic_data]', '[relational_database, generic_data, queue]')}`;
    expect(proposal).not.toBe(design(id));
    const proposed = await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: proposal,
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(proposed.body).toMatchObject({ changed: true, approved: false });
    const refused = await check(id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'package_not_approved' } });
    expect(await findings(id, 'resolved')).toEqual([]);

    const back = await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: design(id),
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(back.body).toMatchObject({ approved: true });
    expect((await check(id)).body).toMatchObject({ opened: 0, reopened: 0, resolved: 0 });
    expect((await findings(id, 'acknowledged')).map((f) => f.id)).toEqual([finding!.id]);
    expect((await gate(id, '?fail_status=true')).status).toBe(200);
  });

  it('a drift check without observed state is 409 observed_state_missing, never a pass', async () => {
    const id = await createApprovedPackage(svc, design('nostate'));
    const res = await gate(id, '?fail_status=true');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: 'observed_state_missing' } });
    expect((await check(id)).status).toBe(409);
  });

  it('an invalid observed state is 400 invalid_state, and a non-JSON content type is 415', async () => {
    const id = await createApprovedPackage(svc, design('badstate'));
    const bad = await push(id, '{"format_version": "1.0", "values": ');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_state' } });
    const wrongType = await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}/observed-state`, {
      body: STATE_CLEAN,
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });

  it('a state that holds none (show -json where there is no state) is 400 invalid_state: the findings stay open', async () => {
    const id = await createApprovedPackage(svc, design('nostate-push'), { observedState: STATE_WITH_QUEUE });
    const before = await gate(id, '?refresh=true');
    expect(before.body.decision).toBe('block');
    const empty = await push(id, '{"format_version":"1.0"}');
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ error: { code: 'invalid_state' } });
    expect((empty.body as { error: { message: string } }).error.message).toMatch(
      /^the request body holds no state: it has no "values"\. .*never reads it as "nothing exists"/,
    );
    // Nothing was stored: the refreshed gate judges the state pushed before, and still blocks.
    const after = await gate(id, '?refresh=true');
    expect(after.body.decision).toBe('block');
    expect(after.body.blocking.map((f) => f.id)).toEqual(before.body.blocking.map((f) => f.id));
    // A state with no resources (values.root_module with none) is a state, judged as such: the queue is
    // gone, and so is the ledger's database.
    const none = await push(
      id,
      '{"format_version":"1.0","terraform_version":"1.11.4","values":{"root_module":{}}}',
    );
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ resources: 0 });
    const judged = await gate(id, '?refresh=true');
    expect(judged.body.blocking.map((f) => [f.rule, f.address])).toEqual([
      ['capability_dependency_missing', 'aws_db_instance.ledger'],
    ]);
  });
});

describe('contract error order', () => {
  it('409 package_not_approved comes before 400 invalid_parameter; then 400 lists the allowed values', async () => {
    const id = 'unapproved';
    const put = await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: design(id),
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(put.status).toBe(201);
    const notApproved = await gate(id, '?min_severity=bogus');
    expect(notApproved.status).toBe(409);
    expect(notApproved.body).toMatchObject({ error: { code: 'package_not_approved' } });
    const evaluation = await api(svc, 'POST', `${CONFORMANCE}/packages/${id}/evaluate/terraform`, {
      body: '{}',
    });
    expect(evaluation.body).toMatchObject({ error: { code: 'package_not_approved' } });

    await api(svc, 'POST', `${CONFORMANCE}/packages/${id}/approve`);
    await push(id, STATE_CLEAN);
    const badSeverity = await gate(id, '?min_severity=bogus');
    expect(badSeverity.status).toBe(400);
    expect(badSeverity.body).toMatchObject({
      error: { code: 'invalid_parameter', details: { parameter: 'min_severity' } },
    });
    expect((badSeverity.body as unknown as { error: { message: string } }).error.message).toContain(
      'low, medium, high, critical',
    );
    for (const query of [
      '?fail_status=yes',
      '?refresh=1',
      '?fail_status=TRUE',
      '?failstatus=true',
      '?fail_status=true&fail_status=false',
    ]) {
      const res = await gate(id, query);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ error: { code: 'invalid_parameter' } });
    }
    const badStatus = await api(svc, 'GET', `${CONFORMANCE}/packages/${id}/findings?status=closed`);
    expect((badStatus.body as { error: { message: string } }).error.message).toContain(
      'open, acknowledged, resolved',
    );
  });

  it('a changed design needs approval again; the same design re-sent does not', async () => {
    const id = await createApprovedPackage(svc, design('redesign'), { observedState: STATE_CLEAN });
    expect((await gate(id)).status).toBe(200);
    const same = await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: design(id),
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(same.body).toMatchObject({ changed: false, approved: true });
    const changed = await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}`, {
      body: `${design(id)}  aws_s3_bucket: object_storage\n`,
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(changed.body).toMatchObject({ changed: true, approved: false });
    expect((await gate(id)).body).toMatchObject({ error: { code: 'package_not_approved' } });
    const record = await api(svc, 'GET', `${CONFORMANCE}/packages/${id}`);
    expect(record.body).toMatchObject({
      package_id: id,
      approved: false,
      revision: (changed.body as { revision: string }).revision,
    });
    expect((record.body as { approved_revision: string }).approved_revision).not.toBe(
      (changed.body as { revision: string }).revision,
    );
    expect((await api(svc, 'GET', `${CONFORMANCE}/packages/${id}/bundle`)).status).toBe(409);
    expect((await api(svc, 'POST', `${CONFORMANCE}/packages/${id}/approve`)).status).toBe(200);
    const after = await gate(id);
    expect(after.status).toBe(200);
    expect(after.body.refreshed).toBe(true);
    const audit = await api<{ entries: Array<{ event: string }> }>(
      svc,
      'GET',
      `${CONFORMANCE}/packages/${id}/audit`,
    );
    expect(
      audit.body.entries
        .map((e) => e.event)
        .filter((e) => e !== 'gate_decided' && e !== 'drift_checked' && e !== 'observed_state_pushed'),
    ).toEqual(['package_created', 'package_approved', 'design_changed', 'package_approved']);
  });

  it('an invalid design is 400 invalid_design, also when its package_id differs from the path', async () => {
    const bad = await api(svc, 'PUT', `${CONFORMANCE}/packages/bad`, {
      body: 'package_id: bad\nsanctioned_kinds: 7\n',
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_design' } });
    // Plain words with the line, never the schema library's ("Invalid input: expected array").
    expect(bad.body).toMatchObject({
      error: {
        message: 'the design document is not valid: the request body:2: sanctioned_kinds: must be an array',
      },
    });
    const mismatch = await api(svc, 'PUT', `${CONFORMANCE}/packages/other`, {
      body: design('payments'),
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(mismatch.body).toMatchObject({ error: { code: 'invalid_design' } });
    const wrongType = await api(svc, 'PUT', `${CONFORMANCE}/packages/bad`, {
      body: design('bad'),
      headers: { 'Content-Type': 'image/png' },
    });
    expect(wrongType.status).toBe(415);
  });

  it("another account's package answers 404 package_not_found on every route, like a missing one", async () => {
    const id = await createApprovedPackage(svc, design('isolated'), { observedState: STATE_WITH_QUEUE });
    const [finding] = (await gate(id)).body.blocking;
    const other = await createAccountKey(svc, 'other-co', 'enterprise', [
      'compliance:read',
      'compliance:write',
    ]);
    const calls: Array<[string, string, unknown?]> = [
      ['POST', `${CONFORMANCE}/packages/${id}/gate?fail_status=true`],
      ['POST', `${CONFORMANCE}/packages/${id}/evaluate/terraform`, '{}'],
      ['GET', `${CONFORMANCE}/packages/${id}/bundle`],
      ['GET', `${CONFORMANCE}/packages/${id}/findings`],
      ['GET', `${CONFORMANCE}/packages/${id}/audit`],
      ['POST', `${CONFORMANCE}/packages/${id}/approve`],
      ['POST', `${CONFORMANCE}/packages/${id}/drift-checks`],
      ['PUT', `${CONFORMANCE}/packages/${id}/observed-state`, STATE_CLEAN],
      ['POST', `${CONFORMANCE}/packages/${id}/findings/${finding!.id}/acknowledge`, { reason: 'not mine' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await api(svc, method, path, { key: other.key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body, `${method} ${path}`).toMatchObject({ error: { code: 'package_not_found' } });
    }
    // The other account may use the same package id for its own package.
    const own = await api(svc, 'PUT', `${CONFORMANCE}/packages/${id}`, {
      key: other.key,
      body: design(id),
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(own.status).toBe(201);
    expect((await gate(id, '?fail_status=true')).status).toBe(409);
  });

  it('a read-only key cannot acknowledge (403 insufficient_scope compliance:write)', async () => {
    const id = await createApprovedPackage(svc, design('readonly'), { observedState: STATE_WITH_QUEUE });
    const [finding] = (await gate(id)).body.blocking;
    const reader = await api<{ key: string }>(svc, 'POST', '/v1/admin/accounts/default/api-keys', {
      body: { name: 'reader', scopes: ['compliance:read'] },
    });
    const res = await api(svc, 'POST', `${CONFORMANCE}/packages/${id}/findings/${finding!.id}/acknowledge`, {
      key: reader.body.key,
      body: { reason: 'x' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'insufficient_scope' } });
    expect((res.body as { error: { message: string } }).error.message).toContain('compliance:write');
    expect((await gate(id, '', reader.body.key)).status).toBe(200);
  });
});

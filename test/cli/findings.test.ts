// `tfgate findings list|ack`, `tfgate audit`, `tfgate accounts create`, `tfgate keys revoke` against a real service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  CONFORMANCE,
  createAccountKey,
  createApprovedPackage,
  startServiceWithPackage,
  type TestService,
  type tfgateAgainst,
} from '../helpers/service.js';
import { design, STATE_WITH_QUEUE } from '../service/fixtures.js';

let svc: TestService;
let tfgate: ReturnType<typeof tfgateAgainst>;

beforeAll(async () => {
  ({ svc, tfgate } = await startServiceWithPackage(design('shop'), { observedState: STATE_WITH_QUEUE }));
  const check = await api(svc, 'POST', `${CONFORMANCE}/packages/shop/drift-checks`);
  if (check.status !== 200) throw new Error(`drift check: ${check.status} ${check.text}`);
});
afterAll(async () => {
  await svc?.stop();
});

interface Finding {
  id: string;
  status: string;
  address: string;
}

describe('tfgate findings', () => {
  it('lists open findings, acknowledges one with a reason, and the audit log records it', async () => {
    const listed = await tfgate([
      'findings',
      'list',
      '--package',
      'shop',
      '--status',
      'open',
      '--format',
      'json',
    ]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const open = (JSON.parse(listed.stdout) as { findings: Finding[] }).findings;
    const queue = open.find((f) => f.address === 'aws_sqs_queue.extra');
    expect(queue, listed.stdout).toBeDefined();

    const text = await tfgate(['findings', 'list', '--package', 'shop']);
    expect(text.stdout).toContain(`${queue!.id}  open  high  aws_sqs_queue.extra`);

    const ack = await tfgate([
      'findings',
      'ack',
      queue!.id,
      '--package',
      'shop',
      '--reason',
      'moves in Q1; PAY-142',
    ]);
    expect(ack.exitCode, ack.stderr).toBe(0);
    expect(ack.stdout).toContain(`acknowledged ${queue!.id}`);

    const after = await tfgate(['findings', 'list', '--package', 'shop', '--status', 'acknowledged']);
    expect(after.stdout).toContain('moves in Q1; PAY-142');
    const none = await tfgate(['findings', 'list', '--package', 'shop', '--status', 'resolved']);
    expect(none.stdout).toBe('package shop has no resolved findings');

    const audit = await tfgate(['audit', '--package', 'shop', '--format', 'json']);
    expect(audit.exitCode, audit.stderr).toBe(0);
    const entries = (
      JSON.parse(audit.stdout) as { entries: Array<{ event: string; details: { reason?: string } }> }
    ).entries;
    expect(entries.map((e) => e.event)).toContain('package_approved');
    expect(entries.find((e) => e.event === 'finding_acknowledged')?.details.reason).toBe(
      'moves in Q1; PAY-142',
    );
  });

  it('revokes a drift acknowledgement: the finding is open again and blocks the gate; audited; twice is refused', async () => {
    const listed = await tfgate(['findings', 'list', '--package', 'shop', '--format', 'json']);
    const queue = (JSON.parse(listed.stdout) as { findings: Finding[] }).findings.find(
      (f) => f.address === 'aws_sqs_queue.extra',
    )!;
    if (queue.status !== 'acknowledged') {
      const ack = await tfgate(['findings', 'ack', queue.id, '--package', 'shop', '--reason', 'by mistake']);
      expect(ack.exitCode, ack.stderr).toBe(0);
    }
    expect((await tfgate(['gate', '--package', 'shop', '--min-severity', 'high'])).exitCode).toBe(0);

    const revoked = await tfgate(['findings', 'revoke', queue.id, '--package', 'shop']);
    expect(revoked.exitCode, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(
      `revoked the acknowledgement of ${queue.id} (high aws_sqs_queue.extra) of package shop: it is open again`,
    );
    const gate = await tfgate(['gate', '--package', 'shop', '--min-severity', 'high']);
    expect(gate.exitCode).toBe(3);
    expect(gate.stdout).toContain('aws_sqs_queue.extra');

    const again = await tfgate(['findings', 'revoke', queue.id, '--package', 'shop']);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(
      `finding ${queue.id} of package shop is not acknowledged: there is nothing to revoke`,
    );

    const audit = await tfgate(['audit', '--package', 'shop', '--format', 'json']);
    const entries = (
      JSON.parse(audit.stdout) as { entries: Array<{ event: string; details: Record<string, unknown> }> }
    ).entries;
    const entry = entries.find((e) => e.event === 'finding_acknowledgement_revoked');
    expect(entry?.details).toMatchObject({ finding_id: queue.id, address: 'aws_sqs_queue.extra' });
  });

  it('a bad --status, a missing --reason and an unknown finding are plain usage errors (exit 1)', async () => {
    const status = await tfgate(['findings', 'list', '--package', 'shop', '--status', 'closed']);
    expect(status.exitCode).toBe(1);
    expect(status.stderr).toContain('--status: must be one of: open, acknowledged, resolved');
    const reason = await tfgate(['findings', 'ack', 'f_00000000000000000000', '--package', 'shop']);
    expect(reason.exitCode).toBe(1);
    // Named in the command's words, with what the flag is for (from its help), not "--reason: is required".
    expect(reason.stderr).toContain(
      'error: tfgate findings ack needs --reason <text>: why the finding may be accepted',
    );
    expect(reason.stderr).toContain('hint: e.g. tfgate findings ack --reason <text>');
    const unknown = await tfgate([
      'findings',
      'ack',
      'f_00000000000000000000',
      '--package',
      'shop',
      '--reason',
      'x',
    ]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('package shop has no finding f_00000000000000000000');
    expect(unknown.stderr).toContain('tfgate findings list --package shop --status open');
  });
});

describe('tfgate audit', () => {
  it('pages through to the end (more than one page of 1,000) and filters by --since', async () => {
    await createApprovedPackage(svc, design('busy'), { observedState: STATE_WITH_QUEUE });
    // Each gate decision is an audit entry: enough for two pages.
    for (let i = 0; i < 1005; i += 1) {
      const gate = await api(svc, 'POST', `${CONFORMANCE}/packages/busy/gate`);
      if (gate.status !== 200) throw new Error(`gate: ${gate.status}`);
    }
    const all = await tfgate(['audit', '--package', 'busy', '--format', 'json']);
    expect(all.exitCode, all.stderr).toBe(0);
    const entries = (JSON.parse(all.stdout) as { entries: Array<{ id: string }> }).entries;
    expect(entries.length).toBeGreaterThan(1006);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);

    const future = await tfgate(['audit', '--package', 'busy', '--since', '2999-01-01']);
    expect(future.stdout).toBe('package busy: no audit entries');
    const bad = await tfgate(['audit', '--package', 'busy', '--since', 'yesterday-ish']);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('--since: must be a date or time');
  }, 120_000);
});

describe('tfgate audit, text', () => {
  it('tells apart two keys of one name: each line names the key id', async () => {
    await createApprovedPackage(svc, design('two-keys'), { observedState: STATE_WITH_QUEUE });
    const ids: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const created = await api<{ id: string; key: string }>(
        svc,
        'POST',
        '/v1/admin/accounts/default/api-keys',
        {
          body: { name: 'release-job', scopes: ['compliance:read'] },
        },
      );
      ids.push(created.body.id);
      const gate = await api(svc, 'POST', `${CONFORMANCE}/packages/two-keys/gate`, { key: created.body.key });
      expect(gate.status).toBe(200);
    }
    expect(ids[0]).not.toBe(ids[1]);
    const audit = await tfgate(['audit', '--package', 'two-keys']);
    expect(audit.exitCode, audit.stderr).toBe(0);
    const gates = audit.stdout.split('\n').filter((line) => line.includes('gate_decided'));
    expect(gates).toHaveLength(2);
    expect(gates[0]).toContain(`by release-job (${ids[0]}, default)`);
    expect(gates[1]).toContain(`by release-job (${ids[1]}, default)`);
  });
});

describe('tfgate accounts create and keys revoke', () => {
  it('creates an account, refuses it twice in plain words, and revokes a key at once', async () => {
    const created = await tfgate(['accounts', 'create', 'team-a', '--plan', 'large']);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stdout).toBe('created account team-a on plan large');
    const twice = await tfgate(['accounts', 'create', 'team-a', '--plan', 'large']);
    expect(twice.exitCode).toBe(1);
    expect(twice.stderr).toContain('account team-a already exists');

    const key = await createAccountKey(svc, 'team-a', 'large');
    const revoked = await tfgate(['keys', 'revoke', key.id, '--format', 'json']);
    expect(revoked.exitCode, revoked.stderr).toBe(0);
    const first = JSON.parse(revoked.stdout) as { revoked_at: string };
    expect(first).toEqual({
      id: key.id,
      revoked: true,
      revoked_at: expect.stringMatching(/^\d{4}-/),
      already_revoked: false,
    });
    // Twice: said to be revoked already, and since when; nothing changes (exit 0).
    const again = await tfgate(['keys', 'revoke', key.id]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toBe(`key ${key.id} was already revoked (at ${first.revoked_at}); nothing changed`);
    const againJson = await tfgate(['keys', 'revoke', key.id, '--format', 'json']);
    expect(JSON.parse(againJson.stdout)).toEqual({ ...first, already_revoked: true });
    expect(revoked.stdout + revoked.stderr).not.toContain(key.key);
    const refused = await api(svc, 'GET', `${CONFORMANCE}/packages/shop`, { key: key.key });
    expect(refused.status).toBe(401);

    const listed = await tfgate(['keys', 'list', '--account', 'team-a', '--format', 'json']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const keys = (JSON.parse(listed.stdout) as { api_keys: Array<{ id: string; revoked_at: string | null }> })
      .api_keys;
    expect(keys.map((k) => k.id)).toEqual([key.id]);
    expect(keys[0]!.revoked_at).toMatch(/^\d{4}-/);
    expect(listed.stdout).not.toContain(key.key);
    const text = await tfgate(['keys', 'list', '--account', 'team-a']);
    expect(text.stdout).toMatch(
      new RegExp(`^${key.id}  team-a-key  compliance:read,compliance:write  created \\S+  revoked `),
    );
    const noAccount = await tfgate(['keys', 'list', '--account', 'nobody']);
    expect(noAccount.exitCode).toBe(1);
    expect(noAccount.stderr).toContain('there is no account nobody');

    const unknown = await tfgate(['keys', 'revoke', 'key_AAAAAAAAAAAA']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('there is no API key key_AAAAAAAAAAAA');
    expect(unknown.stderr).toContain('`tfgate keys list --account <name>` lists them');
  });

  it('a key without the admin scope is told so, and nothing is created', async () => {
    const reader = await createAccountKey(svc, 'team-b', 'large', ['compliance:read']);
    const res = await tfgate(['accounts', 'create', 'team-c', '--plan', 'team'], {
      TFGATE_API_KEY: reader.key,
    });
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain('is not an admin key');
    expect(res.stderr).not.toContain(reader.key);
  });
});

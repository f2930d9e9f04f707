// `tfgate findings ack --plan-finding`, `findings plan-acks` and `findings revoke` against a real service, and
// `tfgate check` deciding alike through the service and through the pulled signed bundle (issue 12).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startServiceWithPackage,
  type TestService,
  type tfgateAgainst,
} from '../helpers/service.js';
import { design, PLAN_BLOCKED, STATE_WITH_QUEUE } from '../service/fixtures.js';

let svc: TestService;
let tfgate: ReturnType<typeof tfgateAgainst>;
let dir: string;
let planPath: string;
let keyPath: string;

beforeAll(async () => {
  ({ svc, tfgate } = await startServiceWithPackage(design('ledger')));
  dir = await mkdtemp(join(tmpdir(), 'tfgate-plan-acks-cli-'));
  planPath = join(dir, 'plan.json');
  await writeFile(planPath, PLAN_BLOCKED);
  keyPath = join(dir, 'key.pem');
  const pem = await api(svc, 'GET', `${CONFORMANCE}/public-key`, {
    headers: { Accept: 'application/x-pem-file' },
  });
  await writeFile(keyPath, pem.text);
});
afterAll(async () => {
  await svc?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function pullBundle(name: string): Promise<string> {
  const res = await fetch(`${svc.baseUrl}${CONFORMANCE}/packages/ledger/bundle`, {
    headers: { 'X-Api-Key': svc.apiKey },
  });
  const path = join(dir, name);
  await writeFile(path, Buffer.from(await res.arrayBuffer()));
  return path;
}

const checkRemote = () =>
  tfgate(['check', '--plan-json', planPath, '--package', 'ledger', '--format', 'json']);
const checkBundle = (bundle: string) =>
  tfgate(['check', '--plan-json', planPath, '--bundle', bundle, '--public-key', keyPath, '--format', 'json']);

describe('tfgate findings ack --plan-finding', () => {
  it('waives plan findings until revoked; check decides alike on the service and on the bundle', async () => {
    expect((await checkRemote()).exitCode).toBe(3);
    const queue = await tfgate([
      'findings',
      'ack',
      '--plan-finding',
      'unsanctioned_creation:aws_sqs_queue.extra',
      '--package',
      'ledger',
      '--reason',
      'kept during the migration',
      '--expires-in',
      '30d',
    ]);
    expect(queue.exitCode, queue.stderr).toBe(0);
    expect(queue.stdout).toMatch(
      /^acknowledged unsanctioned_creation on aws_sqs_queue.extra \(f_[0-9a-f]{20}\) in the plans of package ledger: it no longer blocks until 20\d\d-/,
    );
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const ledger = await tfgate([
      'findings',
      'ack',
      '--plan-finding',
      'capability_dependency_destroyed:aws_db_instance.ledger',
      '--package',
      'ledger',
      '--reason',
      'OPS-7',
      '--expires-at',
      expiresAt,
      '--format',
      'json',
    ]);
    expect(ledger.exitCode, ledger.stderr).toBe(0);
    expect(JSON.parse(ledger.stdout)).toMatchObject({ expires_at: expiresAt, reason: 'OPS-7' });

    const list = await tfgate(['findings', 'plan-acks', '--package', 'ledger']);
    expect(list.stdout).toContain('package ledger: 2 plan acknowledgements\n');
    expect(list.stdout).toContain(
      `capability_dependency_destroyed:aws_db_instance.ledger  until ${expiresAt}`,
    );

    const remote = await checkRemote();
    const offline = await checkBundle(await pullBundle('acked.tar.gz'));
    expect(remote.exitCode, remote.stderr).toBe(0);
    expect(offline.exitCode, offline.stderr).toBe(0);

    const revoked = await tfgate([
      'findings',
      'revoke',
      '--plan-finding',
      'capability_dependency_destroyed:aws_db_instance.ledger',
      '--package',
      'ledger',
    ]);
    expect(revoked.exitCode, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('it blocks again');
    const left = await tfgate(['findings', 'plan-acks', '--package', 'ledger']);
    expect(left.stdout).toContain('package ledger: 1 plan acknowledgement\n');
    expect((await checkRemote()).exitCode).toBe(3);
    expect((await checkBundle(await pullBundle('revoked.tar.gz'))).exitCode).toBe(3);
  }, 60_000);

  it('refuses a malformed finding, duration or expiry, both expiries, and an unknown revocation, in plain words', async () => {
    const base = ['findings', 'ack', '--package', 'ledger', '--reason', 'r'];
    const noColon = await tfgate([...base, '--plan-finding', 'aws_db_instance.ledger']);
    expect(noColon.exitCode).toBe(1);
    expect(noColon.stderr).toContain('--plan-finding: write <rule>:<address>');
    const duration = await tfgate([
      ...base,
      '--plan-finding',
      'unsanctioned_creation:aws_sqs_queue.extra',
      '--expires-in',
      'soon',
    ]);
    expect(duration.exitCode).toBe(1);
    expect(duration.stderr).toContain('"soon" is not a duration; use e.g. 90m, 12h, 30d or 2w');
    const both = await tfgate([
      ...base,
      '--plan-finding',
      'unsanctioned_creation:aws_sqs_queue.extra',
      '--expires-in',
      '1d',
      '--expires-at',
      '2099-01-01T00:00:00Z',
    ]);
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toContain('give --expires-in or --expires-at, not both');
    const past = await tfgate([
      ...base,
      '--plan-finding',
      'unsanctioned_creation:aws_sqs_queue.extra',
      '--expires-at',
      '2020-01-01T00:00:00Z',
    ]);
    expect(past.exitCode).toBe(1);
    expect(past.stderr).toContain('is not in the future');
    const unknown = await tfgate([
      'findings',
      'revoke',
      '--plan-finding',
      'unsanctioned_creation:aws_sqs_queue.never',
      '--package',
      'ledger',
    ]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain(
      'package ledger has no plan acknowledgement of unsanctioned_creation on aws_sqs_queue.never',
    );
  }, 60_000);

  it('acknowledges a drift finding with --expires-in, and findings list shows until when', async () => {
    await createApprovedPackage(svc, design('drifted'), { observedState: STATE_WITH_QUEUE });
    const gate = await api<{ blocking: Array<{ id: string }> }>(
      svc,
      'POST',
      `${CONFORMANCE}/packages/drifted/gate`,
    );
    const id = gate.body.blocking[0]!.id;
    const before = Date.now();
    const acked = await tfgate([
      'findings',
      'ack',
      id,
      '--package',
      'drifted',
      '--reason',
      'queue retired in Q1',
      '--expires-in',
      '12h',
      '--format',
      'json',
    ]);
    expect(acked.exitCode, acked.stderr).toBe(0);
    const expiresAt = Date.parse(
      (JSON.parse(acked.stdout) as { acknowledgement: { expires_at: string } }).acknowledgement.expires_at,
    );
    expect(expiresAt - before).toBeGreaterThanOrEqual(12 * 3_600_000 - 1000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(12 * 3_600_000);
    const list = await tfgate(['findings', 'list', '--package', 'drifted']);
    expect(list.stdout).toMatch(/acknowledged by bootstrap at .*: queue retired in Q1 \(until 20\d\d-/);
  }, 60_000);
});

// `tfgate design push|approve|show|diff` against a real service on loopback.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, CONFORMANCE, startService, type TestService, tfgateAgainst } from '../helpers/service.js';
import { design } from '../service/fixtures.js';

let svc: TestService;
let dir: string;
let tfgate: ReturnType<typeof tfgateAgainst>;

beforeAll(async () => {
  svc = await startService();
  tfgate = tfgateAgainst(svc);
  dir = await mkdtemp(join(tmpdir(), 'tfgate-design-cli-'));
});
afterAll(async () => {
  await svc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('tfgate design', () => {
  it('pushes (id from the file), says changed or not, approves, shows', async () => {
    const path = await file('orders.yaml', design('orders'));
    const first = await tfgate(['design', 'push', path, '--format', 'json']);
    expect(first.exitCode, first.stderr).toBe(0);
    const pushed = JSON.parse(first.stdout) as { package_id: string; revision: string; changed: boolean };
    expect(pushed).toMatchObject({ package_id: 'orders', changed: true, approved: false });
    expect(pushed.revision).toMatch(/^[0-9a-f]{32}$/);

    const again = await tfgate(['design', 'push', path]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `package orders: revision ${pushed.revision} (unchanged), awaiting approval`,
    );

    const approve = await tfgate(['design', 'approve', '--package', 'orders', '--revision', pushed.revision]);
    expect(approve.exitCode, approve.stderr).toBe(0);
    expect(approve.stdout).toBe(`package orders: revision ${pushed.revision} approved`);
    const stored = await api<{ approved: boolean }>(svc, 'GET', `${CONFORMANCE}/packages/orders`);
    expect(stored.body.approved).toBe(true);

    const show = await tfgate(['design', 'show', '--package', 'orders']);
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain(`revision ${pushed.revision}, approved at`);
    expect(show.stdout).toContain('aws_db_instance.ledger');
    // The design as YAML, one line per line (its line breaks were once shown as "?" on one line).
    expect(show.stdout).toMatch(/^package_id: orders$/m);
    expect(show.stdout).toMatch(/^sanctioned_kinds:\n {2}- /m);
    expect(show.stdout).not.toContain('?');
    const shown = JSON.parse(
      (await tfgate(['design', 'show', '--package', 'orders', '--format', 'json'])).stdout,
    );
    expect(shown).toMatchObject({ package_id: 'orders', approved: true, revision: pushed.revision });
  });

  it('a stale --revision (the design changed since) is refused in plain words, and nothing is approved', async () => {
    const path = await file('stale.yaml', design('stale'));
    const first = JSON.parse((await tfgate(['design', 'push', path, '--format', 'json'])).stdout) as {
      revision: string;
    };
    const changed = await file(
      'stale-2.yaml',
      design('stale').replace('name: Payments platform', 'name: Stale, changed'),
    );
    const second = JSON.parse((await tfgate(['design', 'push', changed, '--format', 'json'])).stdout) as {
      revision: string;
    };
    expect(second.revision).not.toBe(first.revision);
    const res = await tfgate(['design', 'approve', '--package', 'stale', '--revision', first.revision]);
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain(
      `error: package stale's design is no longer revision ${first.revision}: it changed since you looked (it is now revision ${second.revision}); nothing was approved`,
    );
    expect(res.stderr).toContain('hint: see what changed with tfgate design diff --package stale');
    const stored = await api<{ approved: boolean }>(svc, 'GET', `${CONFORMANCE}/packages/stale`);
    expect(stored.body.approved).toBe(false);
  });

  it('a --revision the package never had is said to be no revision of it, not a change since', async () => {
    const path = await file('unknown.yaml', design('unknown-rev'));
    const pushed = JSON.parse((await tfgate(['design', 'push', path, '--format', 'json'])).stdout) as {
      revision: string;
    };
    for (const revision of ['bogus', 'f'.repeat(32), 'current', 'not a revision']) {
      const res = await tfgate(['design', 'approve', '--package', 'unknown-rev', '--revision', revision]);
      expect(res.exitCode, res.stderr).toBe(1);
      expect(res.stderr).toContain(
        `error: ${JSON.stringify(revision)} is not a revision of package unknown-rev's design; nothing was approved`,
      );
      expect(res.stderr).toContain(`the current one is ${pushed.revision}`);
      expect(res.stderr).not.toContain('changed since you looked');
    }
    const stored = await api<{ approved: boolean }>(svc, 'GET', `${CONFORMANCE}/packages/unknown-rev`);
    expect(stored.body.approved).toBe(false);
  });

  it('the gate of a design awaiting approval names the command that approves it', async () => {
    const path = await file('pending.yaml', design('pending'));
    expect((await tfgate(['design', 'push', path])).exitCode).toBe(0);
    const res = await tfgate(['gate', '--package', 'pending']);
    expect(res.exitCode).toBe(4);
    expect(res.stderr).toContain('tfgate design approve --package pending');
  });

  it('an unknown package is a plain 404 with the command that creates it', async () => {
    const res = await tfgate(['design', 'show', '--package', 'nosuch']);
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain('package nosuch was not found on the service');
    expect(res.stderr).toContain('tfgate design push <design.yaml> --package nosuch');
  });

  it('--package that disagrees with the file, and a missing --package, are usage errors before any call', async () => {
    const path = await file('mismatch.yaml', design('alpha'));
    const res = await tfgate(['design', 'push', path, '--package', 'beta']);
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain('is the design of package alpha, not beta');
    const missing = await tfgate(['design', 'show']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('error: tfgate design show needs --package <id>: the package');
    expect((await api(svc, 'GET', `${CONFORMANCE}/packages/beta`)).status).toBe(404);
  });

  it('a design file past 1 MiB, even an endless device, is refused after reading 1 MiB, before any call', async () => {
    const res = await tfgate(['design', 'push', '/dev/zero', '--package', 'endless']);
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain('the design file /dev/zero is larger than 1 MiB');
    expect((await api(svc, 'GET', `${CONFORMANCE}/packages/endless`)).status).toBe(404);
  });

  it('diff: a proposed file against the approved design, by kind, capability and catalog entry', async () => {
    const base = await file('diffpkg.yaml', design('diffpkg'));
    expect((await tfgate(['design', 'push', base])).exitCode).toBe(0);
    expect((await tfgate(['design', 'approve', '--package', 'diffpkg'])).exitCode).toBe(0);
    const proposed = await file(
      'diffpkg-next.yaml',
      `package_id: diffpkg
sanctioned_kinds: [relational_database, queue]
capabilities:
  - name: ledger
    depends_on: ["aws_db_instance.ledger", "aws_sqs_queue.jobs"]
  - name: reports
    depends_on: ["terraform_data.reports"]
catalog:
  terraform_data: generic_data
  aws_db_instance: relational_database
  aws_sqs_queue: queue
`,
    );
    const res = await tfgate(['design', 'diff', '--package', 'diffpkg', proposed]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout.split('\n').slice(1)).toEqual([
      '  + kind queue',
      '  - kind generic_data',
      '  + capability reports',
      '  ~ capability ledger',
      '      + depends on aws_sqs_queue.jobs',
    ]);
    const json = JSON.parse(
      (await tfgate(['design', 'diff', '--package', 'diffpkg', proposed, '--format', 'json'])).stdout,
    );
    expect(json).toMatchObject({
      identical: false,
      kinds: { added: ['queue'], removed: ['generic_data'] },
      capabilities: {
        added: ['reports'],
        removed: [],
        changed: [{ name: 'ledger', depends_on_added: ['aws_sqs_queue.jobs'], depends_on_removed: [] }],
      },
    });
    const same = await tfgate(['design', 'diff', '--package', 'diffpkg', base]);
    expect(same.stdout).toContain('no difference');

    // No file and nothing proposed: the approved revision against itself.
    const nothing = await tfgate(['design', 'diff', '--package', 'diffpkg']);
    expect(nothing.exitCode, nothing.stderr).toBe(0);
    expect(nothing.stdout).toContain('(approved, nothing proposed)');
    expect(nothing.stdout).toContain('no difference');

    // Once the proposed design is pushed, the service still holds the approved one: the file against it
    // (this used to be refused as "awaiting approval"), and, without a file, the proposed revision against it.
    expect((await tfgate(['design', 'push', proposed])).exitCode).toBe(0);
    const fileAgainstApproved = await tfgate(['design', 'diff', '--package', 'diffpkg', base]);
    expect(fileAgainstApproved.exitCode, fileAgainstApproved.stderr).toBe(0);
    expect(fileAgainstApproved.stdout).toContain('no difference');
    const pending = await tfgate(['design', 'diff', '--package', 'diffpkg']);
    expect(pending.exitCode, pending.stderr).toBe(0);
    expect(pending.stdout).toMatch(
      /^proposed revision [0-9a-f]{32} against the approved design of package diffpkg/,
    );
    expect(pending.stdout.split('\n').slice(1, 3)).toEqual(['  + kind queue', '  - kind generic_data']);
    const pendingJson = JSON.parse(
      (await tfgate(['design', 'diff', '--package', 'diffpkg', '--format', 'json'])).stdout,
    );
    expect(pendingJson).toMatchObject({ proposed: { source: 'the service' }, kinds: { added: ['queue'] } });
    expect(pendingJson.proposed.revision).not.toBe(pendingJson.approved.revision);
  });

  it('diff of a package never approved says there is nothing approved to compare with', async () => {
    const path = await file('never.yaml', design('never'));
    expect((await tfgate(['design', 'push', path])).exitCode).toBe(0);
    const res = await tfgate(['design', 'diff', '--package', 'never']);
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain('package never has no approved design to compare with');
    expect(res.stderr).toContain('tfgate design approve --package never');
  });
});

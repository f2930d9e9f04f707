// `tfgate state-source set|show|clear` against a real service; a secret setting is refused before anything
// is sent, and the service's own refusals come back in plain words.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
import { TerraformWorkspace } from '../helpers/terraform.js';
import { design, STATE_CLEAN } from '../service/fixtures.js';

let svc: TestService;
let tfgate: ReturnType<typeof tfgateAgainst>;

beforeAll(async () => {
  ({ svc, tfgate } = await startServiceWithPackage(design('ledger')));
});
afterAll(async () => {
  await svc?.stop();
});

describe('tfgate gate says which state the service judged', () => {
  it('a local backend read now (serial and lineage), in text and JSON; pushed state otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-cli-state-'));
    const { svc: local, tfgate: run } = await startServiceWithPackage(design('pushed'), {
      env: { TFGATE_STATE_BACKENDS: 'local' },
      observedState: STATE_CLEAN,
    });
    let workspace: TerraformWorkspace | undefined;
    try {
      const pushed = await run(['gate', '--package', 'pushed']);
      expect(pushed.stdout).toMatch(/State judged: the snapshot pushed at \S+\./);

      writeFileSync(
        join(dir, 'main.tf.json'),
        JSON.stringify({
          terraform: { backend: { local: { path: join(dir, 'ledger.tfstate') } } },
          resource: { terraform_data: { ledger: { input: 1 } } },
        }),
      );
      workspace = TerraformWorkspace.create(dir);
      await workspace.init();
      await workspace.apply();
      await createApprovedPackage(local, design('from-backend'));
      const set = await run([
        'state-source',
        'set',
        '--package',
        'from-backend',
        '--type',
        'local',
        '--config',
        `path=${join(dir, 'ledger.tfstate')}`,
      ]);
      expect(set.exitCode, set.stderr).toBe(0);
      const text = await run(['gate', '--package', 'from-backend', '--refresh', '--advisory']);
      expect(text.stdout).toMatch(
        /State judged: the local state read from its backend at \S+ \(serial \d+, lineage [0-9a-f-]{36}\)\./,
      );
      const json = await run(['gate', '--package', 'from-backend', '--format', 'json', '--advisory']);
      expect(JSON.parse(json.stdout).state).toMatchObject({ source: 'local', serial: expect.any(Number) });
    } finally {
      workspace?.cleanup();
      await local.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

/** `tfgate state-source set` on package ledger with one --config setting. */
const setLedgerSource = (type: string, config: string) =>
  tfgate(['state-source', 'set', '--package', 'ledger', '--type', type, '--config', config]);

describe('tfgate state-source', () => {
  it('set, show and clear, in text and JSON; settings from --config and --config-json', async () => {
    const none = await tfgate(['state-source', 'show', '--package', 'ledger']);
    expect(none.exitCode, none.stderr).toBe(0);
    expect(none.stdout).toContain('package ledger has no state source');

    const set = await tfgate([
      'state-source',
      'set',
      '--package',
      'ledger',
      '--type',
      's3',
      '--config',
      'bucket=states',
      '--config',
      'key=ledger/terraform.tfstate',
      '--config-json',
      '{"assume_role": {"role_arn": "arn:aws:iam::1:role/reader"}, "bucket": "overridden"}',
      '--fallback',
      'pushed',
    ]);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).toBe('package ledger reads its state from the s3 backend (fallback: pushed)');

    const stored = await api<{ config: unknown }>(svc, 'GET', `${CONFORMANCE}/packages/ledger/state-source`);
    expect(stored.body.config).toEqual({
      bucket: 'states',
      key: 'ledger/terraform.tfstate',
      assume_role: { role_arn: 'arn:aws:iam::1:role/reader' },
    });
    const json = await tfgate(['state-source', 'show', '--package', 'ledger', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ package_id: 'ledger', type: 's3', fallback: 'pushed' });

    const cleared = await tfgate(['state-source', 'clear', '--package', 'ledger']);
    expect(cleared.exitCode, cleared.stderr).toBe(0);
    expect((await tfgate(['state-source', 'show', '--package', 'ledger'])).stdout).toContain(
      'no state source',
    );
  });

  it('refuses a secret setting on the command line before sending anything (exit 1)', async () => {
    const before = await api<{ entries: unknown[] }>(svc, 'GET', `${CONFORMANCE}/packages/ledger/audit`);
    const result = await setLedgerSource('pg', 'conn_str=postgres://u:p@h/d');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('"conn_str" is a secret');
    expect(result.stderr).toContain('environment of tfgate serve');
    const after = await api<{ entries: unknown[] }>(svc, 'GET', `${CONFORMANCE}/packages/ledger/audit`);
    expect(after.body.entries.length).toBe(before.body.entries.length);
  });

  it("says the service's refusal in plain words: local is not allowed by default", async () => {
    const result = await setLedgerSource('local', 'path=/tmp/x.tfstate');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('the service does not allow the local backend');
    expect(result.stderr).toContain('--state-backends');
  });

  it('an unknown type and a bad --config are usage errors naming the flag', async () => {
    const type = await tfgate(['state-source', 'set', '--package', 'ledger', '--type', 'ftp']);
    expect(type.exitCode).toBe(1);
    expect(type.stderr).toContain('--type');
    const pair = await setLedgerSource('pg', 'novalue');
    expect(pair.exitCode).toBe(1);
    expect(pair.stderr).toContain('--config "novalue" is not key=value');
  });
});

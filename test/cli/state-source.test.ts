// `tfgate state-source set|show|clear` against a real service; a secret setting is refused before anything
// is sent, and the service's own refusals come back in plain words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design } from '../service/fixtures.js';
import { tfgateAgainst } from './management-helpers.js';

let svc: TestService;
let tfgate: ReturnType<typeof tfgateAgainst>;

beforeAll(async () => {
  svc = await startService();
  tfgate = tfgateAgainst(svc);
  await createApprovedPackage(svc, design('ledger'));
});
afterAll(async () => {
  await svc?.stop();
});

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
    const result = await tfgate([
      'state-source',
      'set',
      '--package',
      'ledger',
      '--type',
      'pg',
      '--config',
      'conn_str=postgres://u:p@h/d',
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('"conn_str" is a secret');
    expect(result.stderr).toContain('environment of tfgate serve');
    const after = await api<{ entries: unknown[] }>(svc, 'GET', `${CONFORMANCE}/packages/ledger/audit`);
    expect(after.body.entries.length).toBe(before.body.entries.length);
  });

  it("says the service's refusal in plain words: local is not allowed by default", async () => {
    const result = await tfgate([
      'state-source',
      'set',
      '--package',
      'ledger',
      '--type',
      'local',
      '--config',
      'path=/tmp/x.tfstate',
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('the service does not allow the local backend');
    expect(result.stderr).toContain('--state-backends');
  });

  it('an unknown type and a bad --config are usage errors naming the flag', async () => {
    const type = await tfgate(['state-source', 'set', '--package', 'ledger', '--type', 'ftp']);
    expect(type.exitCode).toBe(1);
    expect(type.stderr).toContain('--type');
    const pair = await tfgate([
      'state-source',
      'set',
      '--package',
      'ledger',
      '--type',
      'pg',
      '--config',
      'novalue',
    ]);
    expect(pair.exitCode).toBe(1);
    expect(pair.stderr).toContain('--config "novalue" is not key=value');
  });
});

// A settings error found once the report files are known to be writable (TFGATE_API_KEY unset, a public key
// that does not exist): exit 1 as before, and each report file says why there is no decision. Before, the
// files kept the previous run's result, and an always-run publishing step showed an old pass.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli } from '../helpers/cli.js';
import { EXAMPLE_DIR, makeKeys, signedBundle } from './wrapper-fixtures.js';

const PLAN = join(import.meta.dirname, '..', 'fixtures', 'plans', 'destroy.json');
const dir = mkdtempSync(join(tmpdir(), 'tfgate-settings-reports-'));
let bundle = '';

beforeAll(async () => {
  await buildCli();
  bundle = (await signedBundle(makeKeys(), join(EXAMPLE_DIR, 'design.yaml'), 'settings')).bundle;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a settings error leaves no earlier result in the report files', () => {
  it.each([
    [
      'check, TFGATE_API_KEY unset',
      ['check', '--package', 'payments', '--plan-json', PLAN],
      'missing_api_key',
    ],
    ['gate, TFGATE_API_KEY unset', ['gate', '--package', 'payments'], 'missing_api_key'],
    [
      'check, a public key that does not exist',
      ['check', '--plan-json', PLAN, '--bundle', 'BUNDLE', '--public-key', join(dir, 'nope.pem')],
      'file_not_found',
    ],
  ])('%s: exit 1, and the report says no decision and why', async (name, args, code) => {
    const report = join(dir, `${name.replace(/\W+/g, '-')}.json`);
    writeFileSync(report, JSON.stringify({ package_id: 'payments', decision: 'pass' }));
    const result = await runCli(
      [...args.map((a) => (a === 'BUNDLE' ? bundle : a)), '--report', `json=${report}`],
      { env: { TFGATE_BASE_URL: 'http://127.0.0.1:9' } },
    );
    expect(result.exitCode, result.stderr).toBe(1);
    const written = JSON.parse(readFileSync(report, 'utf8')) as {
      decision: string;
      error: { code: string; message: string };
    };
    expect(written.decision).toBe('no_decision');
    expect(written.error.code).toBe(code);
    // The same words as on stderr.
    expect(result.stderr).toContain(`error: ${written.error.message}`);
  });
});

// The README's main command: the whole loop with real terraform and the embedded service. The script checks
// each step's outcome itself (exit codes, terraform state); here we check it ran through and said so.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

test('scripts/demo.sh runs the whole loop: blocked, acknowledged, applied, gated', async () => {
  const { stdout } = await promisify(execFile)('bash', [resolve(ROOT, 'scripts/demo.sh')], {
    cwd: ROOT,
    env: { ...process.env, TFGATE_API_KEY: '', TFGATE_BASE_URL: '' },
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(stdout).toMatch(/FAIL: 1 failure,/);
  expect(stdout).toContain('exit 3: blocked; terraform_data.ledger[0] is still in the state');
  expect(stdout).toMatch(/finding_acknowledged {2}by .*"reason":"audit log moves to the new platform in Q1/);
  expect(stdout).toContain('Apply complete! Resources: 0 added, 2 changed, 0 destroyed.');
  expect(stdout).toMatch(/PASS: 0 blocking drift findings \(1 acknowledged\)/);
  expect(stdout).toContain('Done: blocked, acknowledged, applied, gated.');
}, 180_000);

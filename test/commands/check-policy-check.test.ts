// `tfgate check --custom-policy-check` (Atlantis's custom_policy_check reads the output of a step that exits
// 0) and `--approved-findings` (the findings a policy owner approved no longer block), through the built CLI
// on a signed bundle. test/atlantis runs the same flags through Atlantis's own code.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenario } from '../fixtures/corpus.js';
import { runCli } from '../helpers/cli.js';
import { rewriteBundle } from '../policy/bundle-fixtures.js';
import { useScenarioBundle } from './check-fixtures.js';

const cloud = scenario('cloud-creations');
const fixture = useScenarioBundle('cloud-creations');
const check = (...args: string[]) => fixture.check(...args);

/** What Atlantis 0.47's doPolicyCheck reads as a policy failure in the output of a step that exits 0. */
function atlantisSeesFailure(output: string): boolean {
  return /([1-9][0-9]* failure|failures": \[)/.test(output) || output.trim().startsWith('FAIL');
}

describe('tfgate check --custom-policy-check', () => {
  it('a block exits 0 with the findings on stdout, "FAIL: N failures" first', async () => {
    const blocking = cloud.expected.findings.length;
    const result = await check('--custom-policy-check');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^FAIL: ${blocking} failures`));
    expect(atlantisSeesFailure(result.stdout)).toBe(true);
    for (const finding of cloud.expected.findings) expect(result.stdout).toContain(finding.address);
    // Without the flag the same block exits 3, which Atlantis would treat as an error.
    expect((await check()).exitCode).toBe(3);
  });

  it('a pass exits 0 with output Atlantis reads as a pass', async () => {
    const result = await check('--custom-policy-check', '--min-severity', 'critical');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^PASS: 0 blocking findings/);
    expect(atlantisSeesFailure(result.stdout)).toBe(false);
  });

  it("no decision still exits 4, and the result file says so: an earlier check's result never stays to be approved", async () => {
    const stale = join(fixture.dir, 'stale-policyout.json');
    await writeFile(stale, '{"stale": true}');
    const tampered = join(fixture.dir, 'tampered.tar.gz');
    await writeFile(
      tampered,
      rewriteBundle(await readFile(fixture.bundlePath), (entries) =>
        entries.map((e) => (e.name === 'data.json' ? { ...e, data: Buffer.from('{"tfgate":{}}') } : e)),
      ),
    );
    const result = await runCli([
      'check',
      '--custom-policy-check',
      '--plan-json',
      cloud.planPath,
      '--bundle',
      tampered,
      '--public-key',
      fixture.publicKeyPath,
      '--format',
      'json',
      '--output',
      stale,
    ]);
    expect(result.exitCode).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('data.json');
    const recorded = JSON.parse(await readFile(stale, 'utf8'));
    expect(recorded).toMatchObject({
      decision: 'no_decision',
      error: { message: expect.stringContaining('data.json') },
    });
    // Approving that check approves nothing: the apply reaches no decision either, and says why.
    const approved = await check('--approved-findings', stale);
    expect(approved.exitCode).toBe(4);
    expect(approved.stderr).toContain(`the policy check recorded in ${stale} reached no decision (`);
    expect(approved.stderr).toContain('so it approved nothing');
  });

  it('writes the JSON result to --output and still prints the text report on stdout', async () => {
    const out = join(fixture.dir, 'policyout.json');
    const result = await check('--custom-policy-check', '--format', 'json', '--output', out);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^FAIL: /);
    expect(JSON.parse(await readFile(out, 'utf8'))).toMatchObject({ decision: 'block' });
  });

  it('refuses another format on stdout (exit 1), naming the flags', async () => {
    const result = await check('--custom-policy-check', '--format', 'json');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('--format/--output');
    expect(result.stderr).toContain('--custom-policy-check');
  });
});

describe('tfgate check --approved-findings', () => {
  async function recordBlock(name: string): Promise<string> {
    const path = join(fixture.dir, name);
    const result = await check('--format', 'json', '--output', path);
    expect(result.exitCode).toBe(3);
    return path;
  }

  it('lets the approved blocking findings through, showing them as acknowledged', async () => {
    const approved = await recordBlock('approved.json');
    const result = await check('--approved-findings', approved);
    expect(result.exitCode).toBe(0);
    const n = cloud.expected.findings.length;
    expect(result.stdout).toMatch(new RegExp(`^PASS: 0 blocking findings \\(${n} acknowledged\\)`));
    expect(result.stdout).toContain('Acknowledged (never block; recorded for audit):');
    expect(result.stdout).toContain('atlantis approve_policies');
    const json = await check('--approved-findings', approved, '--format', 'json');
    const body = JSON.parse(json.stdout) as { decision: string; approved_findings: Record<string, unknown> };
    expect(body.decision).toBe('pass');
    expect(Object.keys(body.approved_findings)).toHaveLength(n);
  });

  it('still blocks on a finding the approval did not cover', async () => {
    const recorded = JSON.parse(await readFile(await recordBlock('partial.json'), 'utf8')) as {
      findings: Array<{ address: string }>;
    };
    const left = recorded.findings.shift()!;
    const partial = join(fixture.dir, 'partial-approved.json');
    await writeFile(partial, JSON.stringify(recorded));
    const result = await check('--approved-findings', partial);
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toMatch(/^FAIL: 1 failure,/);
    // The singular still reads as a failure to Atlantis ("1 failure" matches its pattern).
    expect(atlantisSeesFailure(result.stdout)).toBe(true);
    const blockingRows = result.stdout.split('\n').filter((l) => l.startsWith('*'));
    expect(blockingRows).toHaveLength(1);
    expect(blockingRows[0]).toContain(left.address);
  });

  it('a result that passed approved nothing', async () => {
    const passed = join(fixture.dir, 'passed.json');
    expect((await check('--min-severity', 'critical', '--format', 'json', '--output', passed)).exitCode).toBe(
      0,
    );
    expect((await check('--approved-findings', passed)).exitCode).toBe(3);
  });

  it('fails closed on a result it cannot read (exit 4), a missing one (exit 1) and one for another package (exit 1)', async () => {
    const missing = await check('--approved-findings', join(fixture.dir, 'none.json'));
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain(`--approved-findings ${join(fixture.dir, 'none.json')} does not exist`);
    const endless = await check('--approved-findings', '/dev/zero');
    expect(endless.exitCode).toBe(4);
    expect(endless.stderr).toContain('more than a policy check result can be (at most 64 MiB)');
    const garbage = join(fixture.dir, 'garbage.json');
    await writeFile(garbage, '{"package_id": "corpus-cloud"}');
    const invalid = await check('--approved-findings', garbage);
    expect(invalid.exitCode).toBe(4);
    expect(invalid.stderr).toContain("not tfgate's JSON evaluation result");
    const recorded = JSON.parse(await readFile(await recordBlock('other.json'), 'utf8')) as object;
    const other = join(fixture.dir, 'other-package.json');
    await writeFile(other, JSON.stringify({ ...recorded, package_id: 'ledger' }));
    const mismatch = await check('--approved-findings', other);
    expect(mismatch.exitCode).toBe(1);
    expect(mismatch.stderr).toContain('ledger');
  });
});

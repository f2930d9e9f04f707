// `tfgate check` through the built CLI: exit codes, the json shape, the text table, and fail-closed errors.
// A bundle is built with `tfgate bundle build` from a corpus design and the real policy.
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenario } from '../fixtures/corpus.js';
import { runCli } from '../helpers/cli.js';
import { rewriteBundle } from '../policy/bundle-fixtures.js';
import { useScenarioBundle } from './check-fixtures.js';

const cloud = scenario('cloud-creations');
const fixture = useScenarioBundle('cloud-creations');
const check = (...args: string[]) => fixture.check(...args);

describe('tfgate check decides', () => {
  it('exit 0 when nothing blocks at the threshold, with a non-empty text report', async () => {
    expect(cloud.expected.decisions.critical).toBe('pass');
    const result = await check('--min-severity', 'critical');
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).not.toBe('');
    expect(result.stdout).not.toMatch(/^FAIL/m);
  });

  it('exit 3 when blocked, with a text table of rule, severity, address and kind', async () => {
    expect(cloud.expected.decisions.high).toBe('block');
    const result = await check('--min-severity', 'high');
    expect(result.exitCode).toBe(3);
    for (const finding of cloud.expected.findings) {
      const line = result.stdout.split('\n').find((l) => l.includes(finding.address));
      expect(line, `a row for ${finding.address}`).toBeDefined();
      expect(line).toContain(finding.rule);
      expect(line).toContain(finding.severity);
      expect(line).toContain(finding.kind);
    }
  });

  it('--format json prints the contract evaluation response', async () => {
    const result = await check('--format', 'json');
    expect(result.exitCode).toBe(3);
    const body = JSON.parse(result.stdout);
    expect(Object.keys(body)).toEqual(['package_id', 'decision', 'min_severity', 'findings', 'counts']);
    expect(body).toMatchObject({ package_id: 'corpus-cloud', decision: 'block', min_severity: 'low' });
    expect(body.counts).toEqual(cloud.expected.counts);
    const findings = body.findings.map(({ id, message, ...rest }: Record<string, unknown>) => {
      expect(id).toEqual(expect.any(String));
      expect(message).toEqual(expect.any(String));
      return rest;
    });
    expect(findings).toEqual(cloud.expected.findings);
  });

  it('reads the plan from stdin with --plan-json -', async () => {
    const result = await runCli(
      [
        'check',
        '--plan-json',
        '-',
        '--bundle',
        fixture.bundlePath,
        '--public-key',
        fixture.publicKeyPath,
        '--format',
        'json',
      ],
      { stdin: await readFile(cloud.planPath) },
    );
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(result.stdout).findings).toHaveLength(cloud.expected.findings.length);
  });

  it('--advisory reports a block, says so on stderr, and exits 0', async () => {
    const result = await check('--advisory', '--format', 'json');
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).decision).toBe('block');
    expect(result.stderr).toMatch(/ADVISORY/);
  });

  it('advisory mode says how it was asked for: TFGATE_ADVISORY=1 is named as the variable, not as --advisory', async () => {
    const report = join(fixture.dir, 'advisory-env.txt');
    const args = ['check', '--plan-json', cloud.planPath, '--bundle', fixture.bundlePath];
    const fromEnv = await runCli(
      [...args, '--public-key', fixture.publicKeyPath, '--report', `text=${report}`],
      {
        env: { TFGATE_ADVISORY: '1' },
      },
    );
    expect(fromEnv.exitCode, fromEnv.stderr).toBe(0);
    expect(fromEnv.stderr).toMatch(
      /^ADVISORY MODE: .* would block .*; not enforced because TFGATE_ADVISORY=1 is set$/m,
    );
    expect(await readFile(report, 'utf8')).toMatch(
      /^ADVISORY: would block .*; not enforced because TFGATE_ADVISORY=1 is set\n/,
    );
    expect(fromEnv.stderr + (await readFile(report, 'utf8'))).not.toContain('--advisory');
    const fromFlag = await check('--advisory', '--format', 'json');
    expect(fromFlag.stderr).toContain('; not enforced because --advisory was given');
    // No decision (a bundle that is not one): the same reason, in the notice and the report file.
    const notBundle = join(fixture.dir, 'not-a-bundle.tar.gz');
    await writeFile(notBundle, 'not a bundle');
    const undecided = await runCli(
      [
        'check',
        '--plan-json',
        cloud.planPath,
        '--bundle',
        notBundle,
        '--public-key',
        fixture.publicKeyPath,
        '--report',
        `text=${report}`,
      ],
      { env: { TFGATE_ADVISORY: 'true' } },
    );
    expect(undecided.exitCode, undecided.stderr).toBe(0);
    expect(undecided.stderr).toMatch(
      /^ADVISORY MODE: no decision could be reached .*; not enforced because TFGATE_ADVISORY=true is set$/m,
    );
    expect(await readFile(report, 'utf8')).toMatch(
      /^ADVISORY: no decision .*; not enforced because TFGATE_ADVISORY=true is set\n/,
    );

    // A bad threshold names where it came from.
    const badEnv = await runCli([...args, '--public-key', fixture.publicKeyPath], {
      env: { TFGATE_MIN_SEVERITY: 'severe' },
    });
    expect(badEnv.exitCode).toBe(1);
    expect(badEnv.stderr).toMatch(
      /^error: TFGATE_MIN_SEVERITY: must be one of: low, medium, high, critical$/m,
    );
    const badFlag = await check('--min-severity', 'severe');
    expect(badFlag.stderr).toMatch(/^error: --min-severity: must be one of: low, medium, high, critical$/m);
  });

  it('--output writes the report to a file (whole), leaving stdout for nothing else', async () => {
    const out = join(fixture.dir, 'report.json');
    const result = await check('--format', 'json', '--output', out);
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe('');
    expect(JSON.parse(await readFile(out, 'utf8')).decision).toBe('block');
    expect((await readdir(fixture.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('--report <format>=<file> puts each report in its own file; a --report without a file prints', async () => {
    const sarif = join(fixture.dir, 'named.sarif');
    const json = join(fixture.dir, 'named.json');
    const result = await check('--report', `sarif=${sarif}`, '--report', `json=${json}`, '--report', 'text');
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toMatch(/^FAIL: /);
    expect(JSON.parse(await readFile(sarif, 'utf8')).version).toBe('2.1.0');
    expect(JSON.parse(await readFile(json, 'utf8')).decision).toBe('block');
  });

  it.each([
    // Used to write JSON into out.sarif and SARIF to stdout.
    ['two --format, one --output', ['--format', 'json', '--format', 'sarif', '--output', 'out.sarif']],
    ['an --output with no --format', ['--output', 'out.sarif']],
    ['--report with --format', ['--report', 'sarif=out.sarif', '--format', 'json']],
    ['--report with no file after =', ['--report', 'sarif=']],
  ])('refuses reports that do not pair one to one: %s (exit 1, nothing written)', async (_what, args) => {
    const result = await runCli(
      [
        'check',
        '--plan-json',
        cloud.planPath,
        '--bundle',
        fixture.bundlePath,
        '--public-key',
        fixture.publicKeyPath,
        ...args,
      ],
      { cwd: fixture.dir },
    );
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--report/);
    expect(result.stderr).not.toMatch(/Invalid input|ZodError/);
    expect((await readdir(fixture.dir)).filter((n) => n.startsWith('out'))).toEqual([]);
  });

  it.each([
    [
      'in a directory that does not exist',
      'missing/r.json',
      /cannot write the json report to missing\/r\.json: the directory missing does not exist/,
    ],
    ['that is a directory', 'rdir', /cannot write the json report to rdir: it is a directory/],
    [
      'under a file',
      'notes.txt/r.json',
      /cannot write the json report to notes\.txt\/r\.json: notes\.txt is not a directory/,
    ],
  ])(
    'a report file %s is a usage error (exit 1) before the plan is read, naming the path',
    async (_what, path, message) => {
      const cwd = await mkdtemp(join(fixture.dir, 'paths-'));
      await mkdir(join(cwd, 'rdir'));
      await writeFile(join(cwd, 'notes.txt'), 'keep me\n');
      const result = await runCli(
        [
          'check',
          '--plan-json',
          cloud.planPath,
          '--bundle',
          fixture.bundlePath,
          '--public-key',
          fixture.publicKeyPath,
          '--report',
          'text',
          '--report',
          `json=${path}`,
        ],
        { cwd },
      );
      expect(result.exitCode, result.stderr).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(/^hint: /m);
      // Refused before evaluating: no report printed, nothing written, the file under it untouched.
      expect(result.stdout).toBe('');
      expect((await readdir(cwd)).sort()).toEqual(['notes.txt', 'rdir']);
      expect(await readdir(join(cwd, 'rdir'))).toEqual([]);
      expect(await readFile(join(cwd, 'notes.txt'), 'utf8')).toBe('keep me\n');
    },
  );

  it('refuses two reports to one file (the second silently replaced the first), however the path is spelled', async () => {
    const cwd = await mkdtemp(join(fixture.dir, 'same-'));
    await mkdir(join(cwd, 'sub'));
    for (const [first, second] of [
      ['out.txt', 'out.txt'],
      ['out.txt', 'sub/../out.txt'],
      ['out.txt', join(cwd, 'out.txt')],
    ]) {
      const result = await runCli(
        [
          'check',
          '--plan-json',
          cloud.planPath,
          '--bundle',
          fixture.bundlePath,
          '--public-key',
          fixture.publicKeyPath,
          '--report',
          `json=${first}`,
          '--report',
          `sarif=${second}`,
        ],
        { cwd },
      );
      expect(result.exitCode, result.stderr).toBe(1);
      expect(result.stderr).toContain(
        `the json report and the sarif report would both be written to ${second}: the second would replace the first`,
      );
      expect(await readdir(cwd)).toEqual(['sub']);
    }
  });

  it('refuses a report written over an input (the plan, the bundle, the key), by any name, before reading it', async () => {
    const cwd = await mkdtemp(join(fixture.dir, 'over-input-'));
    const plan = join(cwd, 'plan.json');
    const bundle = join(cwd, 'bundle.tar.gz');
    const key = join(cwd, 'key.pem');
    await writeFile(plan, await readFile(cloud.planPath));
    await writeFile(bundle, await readFile(fixture.bundlePath));
    await writeFile(key, await readFile(fixture.publicKeyPath));
    await symlink(plan, join(cwd, 'alias.json'));
    const before = await Promise.all([plan, bundle, key].map((file) => readFile(file)));
    for (const [report, read] of [
      ['json=plan.json', '--plan-json plan.json'],
      ['sarif=./alias.json', '--plan-json plan.json'],
      ['junit=bundle.tar.gz', '--bundle bundle.tar.gz'],
      [`text=${key}`, '--public-key key.pem'],
    ]) {
      const result = await runCli(
        [
          'check',
          '--plan-json',
          'plan.json',
          '--bundle',
          'bundle.tar.gz',
          '--public-key',
          'key.pem',
          '--report',
          report as string,
        ],
        { cwd },
      );
      expect(result.exitCode, result.stderr).toBe(1);
      expect(result.stderr).toContain(`it is the file read as ${read}, which the report would replace`);
    }
    expect(await Promise.all([plan, bundle, key].map((file) => readFile(file)))).toEqual(before);
  });

  it('under GitHub Actions, a JSON, SARIF or JUnit report on stdout stays whole: the annotations go to stderr', async () => {
    for (const format of ['json', 'sarif', 'junit', 'text'] as const) {
      const result = await runCli(
        [
          'check',
          '--plan-json',
          cloud.planPath,
          '--bundle',
          fixture.bundlePath,
          '--public-key',
          fixture.publicKeyPath,
          '--report',
          format,
        ],
        { env: { GITHUB_ACTIONS: 'true' } },
      );
      expect(result.exitCode, result.stderr).toBe(3);
      const annotated = format === 'text' ? result.stdout : result.stderr;
      expect(annotated).toMatch(/^::error /m);
      if (format === 'text') continue;
      expect(result.stdout).not.toContain('::error');
      if (format === 'junit') expect(result.stdout.trimEnd()).toMatch(/<\/testsuites>$/);
      else expect(() => JSON.parse(result.stdout)).not.toThrow();
    }
  });

  it('takes the public key and threshold from TFGATE_PUBLIC_KEY and TFGATE_MIN_SEVERITY', async () => {
    const result = await runCli(['check', '--plan-json', cloud.planPath, '--bundle', fixture.bundlePath], {
      env: { TFGATE_PUBLIC_KEY: fixture.publicKeyPath, TFGATE_MIN_SEVERITY: 'critical' },
    });
    expect(result.exitCode).toBe(0);
  });
});

describe('tfgate check with an unsigned bundle', () => {
  it('is refused unless explicitly allowed, and then warned about loudly', async () => {
    const unsigned = join(fixture.dir, 'unsigned.tar.gz');
    await writeFile(
      unsigned,
      rewriteBundle(await readFile(fixture.bundlePath), (entries) =>
        entries.filter((e) => e.name !== '.signatures.json'),
      ),
    );
    const refused = await runCli([
      'check',
      '--plan-json',
      cloud.planPath,
      '--bundle',
      unsigned,
      '--public-key',
      fixture.publicKeyPath,
    ]);
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toContain('unsigned');
    const allowed = await runCli([
      'check',
      '--plan-json',
      cloud.planPath,
      '--bundle',
      unsigned,
      '--allow-unsigned-bundle-INSECURE',
      '--min-severity',
      'critical',
    ]);
    expect(allowed.exitCode).toBe(0);
    expect(allowed.stderr).toContain('INSECURE');
    expect(allowed.stderr).toContain('UNSIGNED');
  });
});

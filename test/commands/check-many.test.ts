// `tfgate check` with many plans, through the built CLI: each plan judged against its package, one combined
// decision (blocked if any, no decision if any, never a pass that skipped one), and one report grouped by root.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenario } from '../fixtures/corpus.js';
import { runCli } from '../helpers/cli.js';
import { githubUploadProblems, multitoolErrors } from '../helpers/sarif.js';
import { type ScenarioBundle, scenarioBundle } from './check-fixtures.js';

const cloud = scenario('cloud-creations');
const noChange = scenario('no-change');
let fixture: ScenarioBundle;
/** A monorepo in the fixture's directory: stacks/network blocks, stacks/app passes. */
let repo: string;

beforeAll(async () => {
  fixture = await scenarioBundle('cloud-creations');
  repo = join(fixture.dir, 'repo');
  await mkdir(join(repo, 'stacks', 'network'), { recursive: true });
  await mkdir(join(repo, 'stacks', 'app'), { recursive: true });
  await copyFile(cloud.planPath, join(repo, 'stacks', 'network', 'plan.json'));
  await copyFile(noChange.planPath, join(repo, 'stacks', 'app', 'plan.json'));
}, 120_000);
afterAll(async () => {
  await fixture?.cleanup();
});

/** `tfgate check` in the monorepo, offline with the fixture's bundle. */
const check = (...args: string[]) =>
  runCli(['check', ...args, '--bundle', fixture.bundlePath, '--public-key', fixture.publicKeyPath], {
    cwd: repo,
  });

describe('many plans, one verdict', () => {
  it('two --plan-json: both judged, the block wins (the first plan used to be dropped)', async () => {
    // Alone, the first blocks and the second passes.
    expect((await check('--plan-json', 'stacks/network/plan.json')).exitCode).toBe(3);
    expect((await check('--plan-json', 'stacks/app/plan.json')).exitCode).toBe(0);
    for (const order of [
      ['stacks/network/plan.json', 'stacks/app/plan.json'],
      ['stacks/app/plan.json', 'stacks/network/plan.json'],
    ]) {
      const result = await check('--plan-json', order[0] as string, '--plan-json', order[1] as string);
      expect(result.exitCode, result.stderr).toBe(3);
      expect(result.stdout).toMatch(/^FAIL: \d+ failures? in 1 of 2 roots/);
      expect(result.stdout).toContain(
        '== stacks/network (plan stacks/network/plan.json, package corpus-cloud)',
      );
      expect(result.stdout).toContain('== stacks/app (plan stacks/app/plan.json, package corpus-cloud)');
    }
  });

  it('--format json: the combined decision and a list of the contract evaluation results, by root', async () => {
    const result = await check('--plan-json', 'stacks', '--format', 'json');
    expect(result.exitCode).toBe(3);
    const body = JSON.parse(result.stdout);
    expect(Object.keys(body)).toEqual(['decision', 'min_severity', 'counts', 'results']);
    expect(body).toMatchObject({
      decision: 'block',
      min_severity: 'low',
      counts: { roots: 2, pass: 1, block: 1, no_decision: 0 },
    });
    // A directory is searched, its plans sorted, each root named inside it: app before network.
    expect(body.results.map((r: { root: string; plan: string }) => [r.root, r.plan])).toEqual([
      ['app', 'stacks/app/plan.json'],
      ['network', 'stacks/network/plan.json'],
    ]);
    const [app, network] = body.results;
    expect(Object.keys(network)).toEqual([
      'root',
      'plan',
      'package_id',
      'decision',
      'min_severity',
      'findings',
      'counts',
    ]);
    expect(network).toMatchObject({
      decision: 'block',
      package_id: 'corpus-cloud',
      counts: cloud.expected.counts,
    });
    expect(network.findings).toHaveLength(cloud.expected.findings.length);
    expect(app).toMatchObject({ decision: 'pass', findings: [] });
  });

  it('a glob is expanded by tfgate; one that matches nothing is a usage error, never a pass', async () => {
    const result = await check('--plan-json', 'stacks/*/plan.json', '--format', 'json');
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(result.stdout).counts.roots).toBe(2);
    const none = await check('--plan-json', 'nowhere/*/plan.json');
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain('--plan-json nowhere/*/plan.json matches no plan');
  });

  it('a plan that cannot be read: no decision (exit 4) for the set, every root still reported', async () => {
    await mkdir(join(repo, 'broken'), { recursive: true });
    await writeFile(join(repo, 'broken', 'plan.json'), '{"format_version": "1.2", "resource_changes": [');
    const args = [
      '--plan-json',
      'stacks/app/plan.json',
      '--plan-json',
      'broken/plan.json',
      '--format',
      'json',
    ];
    const result = await check(...args);
    expect(result.exitCode).toBe(4);
    const body = JSON.parse(result.stdout);
    expect(body.decision).toBe('no_decision');
    expect(body.results[0]).toMatchObject({ root: 'stacks/app', decision: 'pass' });
    expect(body.results[1]).toMatchObject({ root: 'broken', decision: 'no_decision' });
    expect(body.results[1].error.message).toEqual(expect.any(String));
    expect(result.stderr).toContain('no decision for 1 of 2 plans: broken');
    // A directory of one plan is a set of one: "of 1 plan", not "of 1 plans".
    const alone = await check('--plan-json', 'broken');
    expect(alone.exitCode).toBe(4);
    expect(alone.stderr).toContain('no decision for 1 of 1 plan: broken');
    // A block elsewhere is still a block: the stronger, definite decision.
    const blocked = await check('--plan-json', 'stacks/network/plan.json', '--plan-json', 'broken/plan.json');
    expect(blocked.exitCode).toBe(3);
    expect(blocked.stdout).toMatch(/^FAIL: .* in 1 of 2 roots, no decision for 1/);
    // Advisory: both said loudly, exit 0.
    const advisory = await check(...args, '--advisory');
    expect(advisory.exitCode).toBe(0);
    expect(advisory.stderr).toMatch(/ADVISORY MODE: no decision could be reached/);
  });

  it('report files are checked before any plan is judged: a missing directory or two reports to one file is exit 1', async () => {
    const plans = ['--plan-json', 'stacks/network/plan.json', '--plan-json', 'stacks/app/plan.json'];
    const missing = await check(...plans, '--report', 'text', '--report', 'junit=missing/r.xml');
    expect(missing.exitCode, missing.stderr).toBe(1);
    expect(missing.stderr).toContain(
      'cannot write the junit report to missing/r.xml: the directory missing does not exist',
    );
    expect(missing.stdout).toBe('');
    const twice = await check(...plans, '--report', 'json=twice.txt', '--report', 'sarif=./twice.txt');
    expect(twice.exitCode, twice.stderr).toBe(1);
    expect(twice.stderr).toContain(
      'the json report and the sarif report would both be written to ./twice.txt',
    );
    await expect(readFile(join(repo, 'twice.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('a report over one of the plans a glob found is exit 1, and that plan is left as it was', async () => {
    const before = await readFile(join(repo, 'stacks/app/plan.json'));
    const result = await check('--plan-json', 'stacks/*/plan.json', '--report', 'sarif=stacks/app/plan.json');
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      'cannot write the sarif report to stacks/app/plan.json: it is the file read as --plan-json stacks/app/plan.json',
    );
    expect(await readFile(join(repo, 'stacks/app/plan.json'))).toEqual(before);
  });

  it('a plan map gives each plan its own package (bundle) and root name', async () => {
    // A second bundle, signed with another key: it does not verify with the fixture's public key.
    const other = await scenarioBundle('no-change');
    try {
      await copyFile(other.bundlePath, join(repo, 'other.tar.gz'));
      await writeFile(
        join(repo, 'tfgate-plans.yaml'),
        [
          'plans:',
          '  - plan_json: stacks/network/plan.json',
          '    root: network',
          `    bundle: ${fixture.bundlePath}`,
          '    package: corpus-cloud',
          '  - plan_json: stacks/app/plan.json',
          '    bundle: other.tar.gz',
          '  - plan_json: stacks/app/plan.json',
          '    root: app-wrong-package',
          `    bundle: ${fixture.bundlePath}`,
          '    package: wrong-package',
          '',
        ].join('\n'),
      );
      const result = await runCli(
        [
          'check',
          '--plan-map',
          'tfgate-plans.yaml',
          '--public-key',
          fixture.publicKeyPath,
          '--format',
          'json',
        ],
        { cwd: repo },
      );
      const body = JSON.parse(result.stdout);
      expect(body.results.map((r: { root: string }) => r.root)).toEqual([
        'network',
        'stacks/app',
        'app-wrong-package',
      ]);
      expect(body.results.map((r: { decision: string }) => r.decision)).toEqual([
        'block',
        'no_decision',
        'no_decision',
      ]);
      expect(body.results[2]).toMatchObject({ package_id: 'wrong-package' });
      expect(body.results[2].error.message).toContain('wrong-package');
      expect(body.decision).toBe('block');
      expect(result.exitCode).toBe(3);
    } finally {
      await other.cleanup();
    }
  }, 120_000);

  it('a glob in a plan map passes over plans an earlier entry named ("every other unit")', async () => {
    await writeFile(
      join(repo, 'every-other.yaml'),
      [
        'plans:',
        '  - plan_json: stacks/network/plan.json',
        '    root: network',
        `    bundle: ${fixture.bundlePath}`,
        '    package: corpus-cloud',
        '  - plan_json: stacks/*/plan.json # the command line decides',
        '',
      ].join('\n'),
    );
    const result = await runCli(
      [
        'check',
        '--plan-map',
        'every-other.yaml',
        '--bundle',
        fixture.bundlePath,
        '--public-key',
        fixture.publicKeyPath,
        '--format',
        'json',
      ],
      { cwd: repo },
    );
    const body = JSON.parse(result.stdout);
    // network once, under its own entry; the glob judged only the other stack.
    expect(body.results.map((r: { root: string }) => r.root)).toEqual(['network', 'stacks/app']);
  });

  it('a map entry naming a package but no bundle, on the offline route, is refused (which bundle is a guess)', async () => {
    await writeFile(
      join(repo, 'ambiguous.yaml'),
      'plans:\n  - plan_json: stacks/app/plan.json\n    package: corpus-cloud\n',
    );
    const result = await check('--plan-map', 'ambiguous.yaml');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('names package corpus-cloud but no bundle');
  });

  it('a map nested thousands deep is a usage error saying so (yaml would overflow the stack)', async () => {
    await writeFile(
      join(repo, 'deep.yaml'),
      `plans:\n  - plan_json: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`,
    );
    const result = await check('--plan-map', 'deep.yaml');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('deep.yaml is not YAML or JSON: line 2 nests deeper than 64 levels');
  });

  it('a map entry whose package is not a package id is a usage error naming the entry', async () => {
    await writeFile(
      join(repo, 'bad-id.yaml'),
      'plans:\n  - plan_json: stacks/app/plan.json\n    package: Bad_ID\n',
    );
    const result = await check('--plan-map', 'bad-id.yaml');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('plans[0].package "Bad_ID" is not a package id');
  });
});

describe('one report for all, grouped by root', () => {
  it('Markdown: one comment, a section per root, the clean root folded', async () => {
    const result = await check('--plan-json', 'stacks', '--format', 'markdown');
    expect(result.stdout).toMatch(/^### ❌ tfgate plan evaluation: FAIL/);
    expect(result.stdout).toContain('#### ❌ `network` (package `corpus-cloud`): FAIL');
    expect(result.stdout).toContain(
      '<details><summary>✅ <code>app</code> (package <code>corpus-cloud</code>): PASS',
    );
    // The blocking root comes first.
    expect(result.stdout.indexOf('`network`')).toBeLessThan(result.stdout.indexOf('<code>app</code>'));
  });

  it('JUnit: a suite per root', async () => {
    const result = await check('--plan-json', 'stacks', '--format', 'junit');
    const suites = [...result.stdout.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1]);
    expect(suites).toEqual(['tfgate plan evaluation app', 'tfgate plan evaluation network']);
    const failures = cloud.expected.findings.length;
    expect(result.stdout).toMatch(
      new RegExp(`<testsuites name="tfgate" tests="\\d+" failures="${failures}"`),
    );
  });

  it('SARIF: one run, every result located in its own root, valid for the multitool and GitHub', async () => {
    const result = await check('--plan-json', 'stacks', '--format', 'sarif', '--repository-root', '.');
    const log = JSON.parse(result.stdout);
    expect(log.runs).toHaveLength(1);
    const [run] = log.runs;
    expect(run.tool.driver.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(run.tool.driver.semanticVersion).toBe(run.tool.driver.version);
    expect(run.results).toHaveLength(cloud.expected.findings.length);
    for (const r of run.results) {
      expect(r.properties.root).toBe('network');
      expect(r.locations[0].physicalLocation.artifactLocation.uri).toBe('stacks/network/plan.json');
    }
    expect(run.invocations[0].properties.roots).toEqual({ app: 'pass', network: 'block' });
    expect(githubUploadProblems(log)).toEqual([]);
    expect(await multitoolErrors({ roots: result.stdout })).toEqual([]);
  }, 60_000);

  it('text: the combined decision first, a section per root', async () => {
    const result = await check('--plan-json', 'stacks/app/plan.json', '--plan-json', 'stacks/app/plan.json');
    // The same plan twice is judged once.
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^PASS: 0 blocking findings in 1 root/);
    expect(await readFile(noChange.planPath, 'utf8')).toContain('format_version');
  });
});

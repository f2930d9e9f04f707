// examples/monorepo with examples/github-actions/monorepo-check.yml: the workflow's `run` steps as GitHub runs them
// (bash -e) on a copy of the monorepo, with real terraform, the built tfgate on PATH and the real service holding
// the two packages of examples/monorepo/designs. One check judges each root by its own package.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildCli, REPO_ROOT } from '../helpers/cli.js';
import { githubUploadProblems, multitoolErrors } from '../helpers/sarif.js';
import {
  createAccountKey,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { tfgateBinDir } from './tfgate-on-path.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'monorepo');
const workflow = parse(
  readFileSync(join(REPO_ROOT, 'examples', 'github-actions', 'monorepo-check.yml'), 'utf8'),
) as {
  jobs: { check: { steps: Array<{ id?: string; name?: string; uses?: string; if?: string; run?: string }> } };
};

let svc: TestService;
let ciKey: string;
let binDir: string;
let repo: string;

beforeAll(async () => {
  await buildCli();
  binDir = tfgateBinDir();
  svc = await startService();
  const owner = await createAccountKey(svc, 'acme', 'large', ['compliance:read', 'compliance:write']);
  ciKey = (await createAccountKey(svc, 'acme', 'large', ['compliance:read'], 'ci')).key;
  for (const design of ['network.yaml', 'app.yaml']) {
    await createApprovedPackage(
      { baseUrl: svc.baseUrl, apiKey: owner.key },
      readFileSync(join(EXAMPLE, 'designs', design), 'utf8'),
    );
  }
  repo = mkdtempSync(join(tmpdir(), 'tfgate-monorepo-'));
  cpSync(EXAMPLE, repo, { recursive: true });
  writeFileSync(join(repo, 'empty.tfrc'), '');
  // The checkout is a git work tree: locations are relative to its root.
  await execa('git', ['init', '-q'], { cwd: repo });
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  for (const dir of [binDir, repo]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * A workflow `run` step in bash -e, in the monorepo, with the workflow's environment filled in, and the outputs
 * it writes to $GITHUB_OUTPUT (name=value lines, as the runner gives it the file).
 */
async function step(name: string) {
  const script = workflow.jobs.check.steps.find((s) => s.name === name)?.run;
  expect(script, name).toBeDefined();
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TFGATE_')));
  const outputFile = join(repo, '.github-output');
  writeFileSync(outputFile, '');
  const result = await execa('bash', ['--noprofile', '--norc', '-e', '-c', script as string], {
    cwd: repo,
    env: {
      ...clean,
      TFGATE_BASE_URL: svc.baseUrl,
      TFGATE_API_KEY: ciKey,
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: outputFile,
      TF_CLI_CONFIG_FILE: join(repo, 'empty.tfrc'),
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
      NO_COLOR: '1',
      PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`,
    },
    extendEnv: false,
    reject: false,
    all: true,
  });
  const outputs = Object.fromEntries(
    readFileSync(outputFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { ...result, outputs };
}

it('plans every root, then one check judges each by its package: app blocks, network passes', async () => {
  const planned = await step('Plan every root');
  expect(planned.exitCode, planned.all).toBe(0);

  const checked = await step('Check every plan');
  expect(checked.exitCode, checked.all).toBe(3);
  expect(checked.stdout).toMatch(/^FAIL: 2 failures in 1 of 2 roots/);
  // Every root decided: the upload below runs.
  expect(checked.outputs).toEqual({ 'exit-code': '3', 'every-root-decided': 'true' });

  // The pull request comment: the blocked root first, the clean one folded.
  const comment = readFileSync(join(repo, 'tfgate.md'), 'utf8');
  expect(comment).toContain('#### ❌ `stacks/app` (package `monorepo-app`): FAIL: 2 failures');
  expect(comment).toContain(
    '<details><summary>✅ <code>stacks/network</code> (package <code>monorepo-network</code>): PASS',
  );

  // Code scanning: each finding on the line of its own root's .tf file (config_dir in the map).
  const sarif = readFileSync(join(repo, 'tfgate.sarif'), 'utf8');
  const log = JSON.parse(sarif);
  const placed = log.runs[0].results.map(
    (r: {
      locations: Array<{
        physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } };
      }>;
    }) =>
      `${r.locations[0]?.physicalLocation.artifactLocation.uri}:${r.locations[0]?.physicalLocation.region.startLine}`,
  );
  expect(placed.sort()).toEqual(['stacks/app/main.tf:2', 'stacks/app/main.tf:6']);
  expect(githubUploadProblems(log)).toEqual([]);
  expect(await multitoolErrors({ monorepo: sarif })).toEqual([]);
}, 180_000);

it('uploads to code scanning only after a pass or a block in which every root was decided', () => {
  const upload = workflow.jobs.check.steps.find((s) =>
    s.uses?.startsWith('github/codeql-action/upload-sarif@'),
  );
  expect(upload?.if).toContain('!cancelled()');
  expect(upload?.if).toContain(
    "(steps.tfgate.outputs.exit-code == '0' || steps.tfgate.outputs.exit-code == '3')",
  );
  expect(upload?.if).toContain("steps.tfgate.outputs.every-root-decided == 'true'");
  expect(upload?.if).not.toContain('hashFiles');
  expect(workflow.jobs.check.steps.find((s) => s.name === 'Check every plan')?.id).toBe('tfgate');
});

it('a root without a decision beside a blocked one: exit 3, and no upload of a run code scanning refuses', async () => {
  // The network root's plan JSON cut short: no decision for it; app still blocks.
  const plan = join(repo, '.tfgate', 'network.json');
  const whole = readFileSync(plan, 'utf8');
  writeFileSync(plan, whole.slice(0, 40));
  try {
    const checked = await step('Check every plan');
    expect(checked.exitCode, checked.all).toBe(3);
    expect(checked.stdout).toMatch(/^FAIL: 2 failures in 1 of 2 roots, no decision for 1/);
    // The upload's condition reads this: the SARIF run did not succeed, so it is not uploaded.
    expect(checked.outputs).toEqual({ 'exit-code': '3', 'every-root-decided': 'false' });

    // The SARIF is still valid and complete about what it knows (GitHub's double, the multitool): the blocked
    // root's results, each located; the undecided root a notification of an invocation that did not succeed
    // (which code scanning refuses to process, "unsuccessful execution"), never a result without a location.
    const sarif = readFileSync(join(repo, 'tfgate.sarif'), 'utf8');
    const log = JSON.parse(sarif);
    const [run] = log.runs;
    expect(run.results.map((r: { properties: { root: string } }) => r.properties.root)).toEqual([
      'stacks/app',
      'stacks/app',
    ]);
    expect(run.invocations[0].executionSuccessful).toBe(false);
    expect(run.invocations[0].toolExecutionNotifications).toEqual([
      { level: 'error', message: { text: expect.stringMatching(/^stacks\/network: no decision: /) } },
    ]);
    expect(run.invocations[0].properties.roots).toEqual({
      'stacks/network': 'no_decision',
      'stacks/app': 'block',
    });
    expect(githubUploadProblems(log)).toEqual([]);
    expect(await multitoolErrors({ undecided: sarif })).toEqual([]);
  } finally {
    writeFileSync(plan, whole);
  }
}, 180_000);

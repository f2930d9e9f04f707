// examples/github-actions and examples/gitlab-ci against the real service on loopback. GitHub workflows: each
// step's `run` in bash, as the runner does (GitHub itself cannot run here). GitLab: the whole pipeline file run
// by gitlab-ci-local (pinned, installed by scripts/setup-tools.sh), which validates it against GitLab's CI
// schema, selects jobs by their rules, and runs before_script and script with the shell executor; the curl
// jobs with the real curl, the tfgate jobs with the built CLI. Blocked -> the job fails; acknowledged or
// advisory -> it passes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { execa, execaSync } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { acknowledge, driftedPackage, openFindings } from '../commands/gate-fixtures.js';
import { buildCli, REPO_ROOT } from '../helpers/cli.js';
import { createAccountKey, startService, type TestService } from '../helpers/service.js';
import { tfgateBinDir } from './tfgate-on-path.js';

const EXAMPLES = join(REPO_ROOT, 'examples');

interface Step {
  name?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, { env?: Record<string, string>; steps: Step[] }>;
}

let svc: TestService;
/** A key with compliance:read only, in the account that owns the package: what CI holds. */
let ciKey = '';
/** The platform team's key (read and write): creates the package and acknowledges findings. */
let ownerKey = '';
let binDir = '';
/** A directory holding the npm double (see beforeAll). */
let npmDouble = '';

beforeAll(async () => {
  await buildCli();
  // `tfgate` on PATH, as `npm install --global tfgate` would put it.
  binDir = tfgateBinDir();
  // A double of npm for the GitLab job's `npm install --global tfgate@<version>`: tfgate is not on the public
  // registry yet, and a test never installs from it (test/package runs that line against a local registry);
  // the built CLI is already on PATH (binDir).
  npmDouble = mkdtempSync(join(tmpdir(), 'npm-double-'));
  writeFileSync(join(npmDouble, 'npm'), '#!/bin/sh\necho "npm double: $*"\n', { mode: 0o755 });
  svc = await startService();
  const owner = await createAccountKey(
    svc,
    'acme',
    'large',
    ['compliance:read', 'compliance:write'],
    'platform',
  );
  ciKey = (await createAccountKey(svc, 'acme', 'large', ['compliance:read'], 'ci-gate')).key;
  await driftedPackage({ baseUrl: svc.baseUrl, apiKey: owner.key } as TestService, 'payments');
  ownerKey = owner.key;
}, 180_000);

afterAll(async () => {
  await svc?.stop();
});

/** Replace the `${{ secrets.X }}` / `${{ vars.X }}` expressions a step uses; any other expression is a test failure. */
function expand(value: string, vars: Record<string, string>): string {
  const out = value.replace(
    /\$\{\{\s*(secrets|vars)\.([A-Z_]+)\s*\}\}/g,
    (_m, kind: string, name: string) => {
      if (kind === 'secrets' && name === 'TFGATE_API_KEY') return ciKey;
      if (kind === 'vars' && name === 'TFGATE_BASE_URL') return svc.baseUrl;
      return vars[name] ?? '';
    },
  );
  expect(out, `unexpanded expression in ${value}`).not.toContain('${{');
  return out;
}

async function runScript(script: string, env: Record<string, string>, cwd: string) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('TFGATE_') && k !== 'GITHUB_ACTIONS'),
  );
  const result = await execa('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
    cwd,
    env: { ...clean, NO_COLOR: '1', PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`, ...env },
    extendEnv: false,
    reject: false,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

function githubStep(file: string, stepName: string, vars: Record<string, string> = {}) {
  const workflow = parse(readFileSync(join(EXAMPLES, 'github-actions', file), 'utf8')) as Workflow;
  const job = workflow.jobs.gate!;
  const step = job.steps.find((s) => s.name === stepName);
  if (!step?.run) throw new Error(`${file}: no step "${stepName}" with run`);
  const env: Record<string, string> = {};
  for (const layer of [workflow.env, job.env, step.env]) {
    for (const [k, v] of Object.entries(layer ?? {})) env[k] = expand(String(v), vars);
  }
  return { script: step.run, env: { ...env, GITHUB_ACTIONS: 'true' }, step, workflow };
}

/** Where scripts/setup-tools.sh installs it (same default version), and the Node it runs on (22 or newer). */
const GITLAB_CI_LOCAL = join(
  homedir(),
  '.cache',
  'tfgate-tools',
  `gitlab-ci-local-${process.env.TFGATE_GITLAB_CI_LOCAL_VERSION ?? '4.75.1'}`,
  'node_modules',
);
const GITLAB_CI_LOCAL_NODE = join(REPO_ROOT, '.tools', 'node-newest', 'bin', 'node');

/** A clone of the project: .gitlab-ci.yml committed, with a remote (gitlab-ci-local reads it for CI_PROJECT_*). */
function gitlabProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tfgate-glci-'));
  writeFileSync(join(dir, '.gitlab-ci.yml'), readFileSync(join(EXAMPLES, 'gitlab-ci', '.gitlab-ci.yml')));
  const git = (...args: string[]) =>
    execaSync('git', ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', ...args], { cwd: dir });
  git('init', '-q', '-b', 'main');
  git('add', '.gitlab-ci.yml');
  git('commit', '-q', '-m', 'release pipeline');
  git('remote', 'add', 'origin', 'https://gitlab.example.com/acme/payments.git');
  return dir;
}

/**
 * Run jobs of the pipeline with gitlab-ci-local on a tag push. The project's CI/CD variables (the URL and the key)
 * come from a variables file, as from the project settings, never from .gitlab-ci.yml.
 */
async function gitlabJobs(project: string, jobs: string[], variables: Record<string, string> = {}) {
  const variablesFile = join(project, '..', `${basename(project)}-variables.yml`);
  const all = { CI_COMMIT_TAG: 'v1.4.0', TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: ciKey, ...variables };
  writeFileSync(variablesFile, stringify(all));
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('TFGATE_') && k !== 'GITHUB_ACTIONS'),
  );
  const result = await execa(
    GITLAB_CI_LOCAL_NODE,
    [
      join(GITLAB_CI_LOCAL, 'gitlab-ci-local', 'dist', 'index.js'),
      '--force-shell-executor',
      '--artifacts-to-source',
      '--variables-file',
      variablesFile,
      ...jobs,
    ],
    {
      cwd: project,
      env: {
        ...clean,
        NO_COLOR: '1',
        PATH: `${npmDouble}${delimiter}${binDir}${delimiter}${process.env.PATH ?? ''}`,
      },
      extendEnv: false,
      reject: false,
      all: true,
    },
  );
  return { exitCode: result.exitCode ?? -1, log: String(result.all) };
}

describe('the examples keep the key in the secret store', () => {
  it('GitHub workflows take it from secrets and never put it on a command line', () => {
    for (const file of ['release-gate-curl.yml', 'release-gate-tfgate.yml']) {
      const text = readFileSync(join(EXAMPLES, 'github-actions', file), 'utf8');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a JS template
      expect(text).toContain('TFGATE_API_KEY: ${{ secrets.TFGATE_API_KEY }}');
      expect(text).not.toMatch(/-H\s+["']X-Api-Key/);
      expect(text).not.toMatch(/--api-key/);
    }
    const gitlab = readFileSync(join(EXAMPLES, 'gitlab-ci', '.gitlab-ci.yml'), 'utf8');
    expect(gitlab).not.toMatch(/TFGATE_API_KEY:/);
    expect(gitlab).not.toMatch(/-H\s+["']X-Api-Key/);
  });
});

describe('examples/github-actions against the real service', () => {
  it('curl: the blocking step fails on open drift, the advisory step does not', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'tfgate-gha-'));
    const blocking = githubStep('release-gate-curl.yml', 'Conformance gate');
    expect(blocking.script).toMatch(/fail_status=true/);
    const blocked = await runScript(blocking.script, blocking.env, cwd);
    expect(blocked.exitCode).toBe(22);
    expect(blocked.stdout).toContain('"gate_blocked"');
    const advisory = githubStep('release-gate-curl.yml', 'Conformance gate (advisory)');
    const reported = await runScript(advisory.script, advisory.env, cwd);
    expect(reported.exitCode).toBe(0);
    expect(JSON.parse(reported.stdout)).toMatchObject({ decision: 'block', package_id: 'payments' });
  });

  it('tfgate: exit 3 with findings and annotations when blocked; exit 0 under TFGATE_ADVISORY', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'tfgate-gha-'));
    const blocking = githubStep('release-gate-tfgate.yml', 'Conformance gate');
    const blocked = await runScript(blocking.script, blocking.env, cwd);
    expect(blocked.exitCode).toBe(3);
    expect(blocked.stdout).toMatch(/^FAIL: 2 failures/);
    expect(blocked.stdout).toContain('::error title=tfgate capability_dependency_missing (critical)::');
    expect(readFileSync(join(cwd, 'tfgate-gate.xml'), 'utf8')).toContain('failures="2"');
    const advisory = githubStep('release-gate-tfgate.yml', 'Conformance gate', { TFGATE_ADVISORY: 'true' });
    const reported = await runScript(advisory.script, advisory.env, cwd);
    expect(reported.exitCode).toBe(0);
    expect(reported.stdout).toMatch(/^ADVISORY: would block/);
    expect(reported.stderr).toContain('WOULD HAVE BLOCKED');
  });
});

describe('examples/gitlab-ci with gitlab-ci-local against the real service', () => {
  it('the gate jobs run on tags only', async () => {
    const project = gitlabProject();
    const listed = await execa(
      GITLAB_CI_LOCAL_NODE,
      [join(GITLAB_CI_LOCAL, 'gitlab-ci-local', 'dist', 'index.js'), '--list-json'],
      { cwd: project, reject: false },
    );
    expect(listed.exitCode, listed.stderr).toBe(0);
    const jobs = JSON.parse(listed.stdout.slice(listed.stdout.indexOf('['))) as Array<{
      name: string;
      when: string;
    }>;
    // A branch push: every job's rule is `if: $CI_COMMIT_TAG`, so none runs.
    expect(jobs.map((j) => j.name)).toEqual(['gate:curl', 'gate:curl:advisory', 'gate:tfgate', 'release']);
    expect(jobs.filter((j) => j.when !== 'never').map((j) => j.name)).toEqual([]);
  });

  it('curl and tfgate jobs fail while drift is open; the advisory ones pass', async () => {
    const project = gitlabProject();
    const curl = await gitlabJobs(project, ['gate:curl']);
    expect(curl.exitCode, curl.log).not.toBe(0);
    expect(curl.log).toMatch(/gate:curl finished in .* FAIL 22/);
    const curlAdvisory = await gitlabJobs(project, ['gate:curl:advisory']);
    expect(curlAdvisory.exitCode, curlAdvisory.log).toBe(0);
    const blocked = await gitlabJobs(project, ['gate:tfgate']);
    expect(blocked.exitCode).not.toBe(0);
    expect(blocked.log).toMatch(/gate:tfgate finished in .* FAIL 3/);
    expect(blocked.log).toMatch(/npm double: install --global tfgate@\d+\.\d+\.\d+/);
    expect(readFileSync(join(project, 'tfgate-gate.xml'), 'utf8')).toContain('<failure');
    const advisory = await gitlabJobs(project, ['gate:tfgate'], { TFGATE_ADVISORY: 'true' });
    expect(advisory.exitCode, advisory.log).toBe(0);
  });
});

describe('after every finding is acknowledged', () => {
  it('every blocking step of every example passes', async () => {
    const owner = { baseUrl: svc.baseUrl, apiKey: ownerKey } as TestService;
    for (const finding of await openFindings(owner, 'payments')) {
      await acknowledge(owner, 'payments', finding.id, `accepted for the release: ${finding.rule}`);
    }
    const cwd = mkdtempSync(join(tmpdir(), 'tfgate-ack-'));
    for (const { script, env } of [
      githubStep('release-gate-curl.yml', 'Conformance gate'),
      githubStep('release-gate-tfgate.yml', 'Conformance gate'),
    ]) {
      const result = await runScript(script, env, cwd);
      expect(result.exitCode, `${script}\n${result.stdout}\n${result.stderr}`).toBe(0);
    }
    const gitlab = await gitlabJobs(gitlabProject(), ['gate:curl', 'gate:tfgate']);
    expect(gitlab.exitCode, gitlab.log).toBe(0);
    const tfgate = githubStep('release-gate-tfgate.yml', 'Conformance gate');
    expect((await runScript(tfgate.script, tfgate.env, cwd)).stdout).toMatch(
      /^PASS: 0 blocking drift findings \(2 acknowledged\)/,
    );
  });
});

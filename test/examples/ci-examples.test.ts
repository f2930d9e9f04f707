// examples/github-actions and examples/gitlab-ci: parse each pipeline file, and run its actual gate command
// lines (the curl ones with the real curl, the tfgate ones with the built CLI) against the real service on
// loopback. Blocked -> the step fails; acknowledged or advisory -> the step passes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { acknowledge, driftedPackage, openFindings } from '../commands/gate-fixtures.js';
import { buildCli, CLI_MAIN, REPO_ROOT } from '../helpers/cli.js';
import { createAccountKey, startService, type TestService } from '../helpers/service.js';

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
interface GitlabPipeline {
  variables?: Record<string, string>;
  [job: string]: unknown;
}

let svc: TestService;
/** A key with compliance:read only, in the account that owns the package: what CI holds. */
let ciKey = '';
/** The platform team's key (read and write): creates the package and acknowledges findings. */
let ownerKey = '';
let binDir = '';

beforeAll(async () => {
  await buildCli();
  // `tfgate` on PATH, as `npm install --global tfgate` would put it.
  binDir = mkdtempSync(join(tmpdir(), 'tfgate-bin-'));
  writeFileSync(join(binDir, 'tfgate'), `#!/bin/sh\nexec "${process.execPath}" "${CLI_MAIN}" "$@"\n`, {
    mode: 0o755,
  });
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

function gitlabJob(jobName: string, vars: Record<string, string> = {}) {
  const pipeline = parse(
    readFileSync(join(EXAMPLES, 'gitlab-ci', '.gitlab-ci.yml'), 'utf8'),
  ) as GitlabPipeline;
  const job = pipeline[jobName] as { script: string[] } | undefined;
  if (!job?.script) throw new Error(`.gitlab-ci.yml: no job ${jobName}`);
  // CI/CD variables (the URL and the key) come from the project settings, never the file.
  const env = { ...(pipeline.variables ?? {}), TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: ciKey, ...vars };
  return { script: job.script.join('\n'), env, pipeline };
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

describe('examples/gitlab-ci against the real service', () => {
  it('curl and tfgate jobs fail while drift is open', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'tfgate-glci-'));
    const curl = gitlabJob('gate:curl');
    expect((await runScript(curl.script, curl.env, cwd)).exitCode).not.toBe(0);
    expect((await runScript(gitlabJob('gate:curl:advisory').script, curl.env, cwd)).exitCode).toBe(0);
    const tfgate = gitlabJob('gate:tfgate');
    const blocked = await runScript(tfgate.script, tfgate.env, cwd);
    expect(blocked.exitCode).toBe(3);
    expect(readFileSync(join(cwd, 'tfgate-gate.xml'), 'utf8')).toContain('<failure');
    const advisory = gitlabJob('gate:tfgate', { TFGATE_ADVISORY: 'true' });
    expect((await runScript(advisory.script, advisory.env, cwd)).exitCode).toBe(0);
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
      gitlabJob('gate:curl'),
      gitlabJob('gate:tfgate'),
    ]) {
      const result = await runScript(script, env, cwd);
      expect(result.exitCode, `${script}\n${result.stdout}\n${result.stderr}`).toBe(0);
    }
    const tfgate = githubStep('release-gate-tfgate.yml', 'Conformance gate');
    expect((await runScript(tfgate.script, tfgate.env, cwd)).stdout).toMatch(
      /^PASS: 0 blocking drift findings \(2 acknowledged\)/,
    );
  });
});

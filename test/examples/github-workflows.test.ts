// examples/github-actions: every workflow linted with the real actionlint (pinned, built by
// scripts/setup-tools.sh), and the code scanning workflow run as GitHub would run its steps: the `run` steps
// in bash against real terraform and the real service; the upload step, which needs GitHub, is checked
// against what it would be given (the file, and its `if:`).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildCli, REPO_ROOT } from '../helpers/cli.js';
import { lineOf } from '../helpers/locate.js';
import { githubUploadProblems, multitoolErrors } from '../helpers/sarif.js';
import {
  createAccountKey,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { TerraformWorkspace } from '../helpers/terraform.js';
import { tfgateBinDir } from './tfgate-on-path.js';

const WORKFLOWS = join(REPO_ROOT, 'examples', 'github-actions');
const ACTIONLINT = join(REPO_ROOT, '.tools', 'bin', 'actionlint');

interface ActionlintError {
  message: string;
  filepath: string;
  line: number;
  kind: string;
}

async function actionlint(files: string[]): Promise<{ exitCode: number; errors: ActionlintError[] }> {
  expect(existsSync(ACTIONLINT), 'actionlint: run `bash scripts/setup-tools.sh actionlint`').toBe(true);
  const result = await execa(ACTIONLINT, ['-no-color', '-format', '{{json .}}', ...files], { reject: false });
  const errors = result.stdout.trim() === '' ? [] : (JSON.parse(result.stdout) as ActionlintError[]);
  return { exitCode: result.exitCode ?? -1, errors };
}

describe('actionlint', () => {
  it('passes every example workflow', async () => {
    const files = readdirSync(WORKFLOWS)
      .filter((name) => /\.ya?ml$/.test(name))
      .map((name) => join(WORKFLOWS, name));
    expect(files.length).toBeGreaterThanOrEqual(3);
    const { exitCode, errors } = await actionlint(files);
    expect(errors.map((e) => `${e.filepath}:${e.line}: ${e.message} [${e.kind}]`)).toEqual([]);
    expect(exitCode).toBe(0);
  });

  it('reports a broken workflow (so a pass above means something)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-actionlint-'));
    const broken = join(dir, 'broken.yml');
    const text = readFileSync(join(WORKFLOWS, 'plan-code-scanning.yml'), 'utf8')
      .replace('security-events: write', 'security-event: write')
      .replace('secrets.TFGATE_API_KEY', 'secret.TFGATE_API_KEY');
    writeFileSync(broken, text);
    const { exitCode, errors } = await actionlint([broken]);
    rmSync(dir, { recursive: true, force: true });
    expect(exitCode).toBe(1);
    expect(errors.map((e) => e.kind).sort()).toEqual(['expression', 'permissions']);
  });
});

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  if?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Workflow {
  permissions: Record<string, string>;
  env: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

describe('examples/github-actions/plan-code-scanning.yml', () => {
  const workflow = parse(readFileSync(join(WORKFLOWS, 'plan-code-scanning.yml'), 'utf8')) as Workflow;
  const steps = workflow.jobs.plan!.steps;
  const step = (name: string) => steps.find((s) => s.name === name)!;
  let svc: TestService;
  let ciKey: string;
  let binDir: string;
  const workspaces: TerraformWorkspace[] = [];

  beforeAll(async () => {
    await buildCli();
    // `tfgate` on PATH, as the workflow's `npm install --global tfgate` puts it.
    binDir = tfgateBinDir();
    svc = await startService();
    const owner = await createAccountKey(svc, 'acme', 'large', ['compliance:read', 'compliance:write']);
    ciKey = (await createAccountKey(svc, 'acme', 'large', ['compliance:read'], 'ci')).key;
    // The platform's design for the workflow's package: nothing sanctioned, so the example's plan is blocked.
    const strict = readFileSync(join(REPO_ROOT, 'examples', 'terraform', 'design-strict.yaml'), 'utf8');
    await createApprovedPackage(
      { baseUrl: svc.baseUrl, apiKey: owner.key },
      strict.replace(/^package_id: .*$/m, `package_id: ${workflow.env.TFGATE_PACKAGE}`),
    );
  });

  afterAll(async () => {
    await svc?.stop();
    rmSync(binDir, { recursive: true, force: true });
  });

  afterEach(() => {
    for (const ws of workspaces.splice(0)) ws.cleanup();
  });

  /** A `run` step as GitHub runs it on ubuntu (bash -e), with the workflow's and the step's env. */
  async function run(name: string, cwd: string, env: NodeJS.ProcessEnv, baseUrl: string) {
    const s = step(name);
    const expand = (value: string) =>
      value
        .replace(/\$\{\{\s*vars\.TFGATE_BASE_URL\s*\}\}/g, baseUrl)
        .replace(/\$\{\{\s*secrets\.TFGATE_API_KEY\s*\}\}/g, ciKey);
    const stepEnv = Object.fromEntries(
      Object.entries({ ...workflow.env, ...s.env }).map(([k, v]) => [k, expand(String(v))]),
    );
    for (const value of Object.values(stepEnv)) expect(value).not.toContain('${{');
    const clean = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('TFGATE_')));
    // The step's outputs file, as the runner gives it ($GITHUB_OUTPUT: name=value lines).
    const outputFile = join(cwd, '.github-output');
    writeFileSync(outputFile, '');
    const result = await execa('bash', ['--noprofile', '--norc', '-e', '-c', s.run!], {
      cwd,
      env: {
        ...clean,
        ...stepEnv,
        GITHUB_ACTIONS: 'true',
        GITHUB_OUTPUT: outputFile,
        NO_COLOR: '1',
        PATH: `${binDir}${delimiter}${env.PATH ?? ''}`,
      },
      extendEnv: false,
      reject: false,
    });
    const outputs = Object.fromEntries(
      readFileSync(outputFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    return { ...result, outputs };
  }

  it('asks for the permissions upload-sarif documents, and uploads the report the plan step writes', () => {
    expect(workflow.permissions).toEqual({
      contents: 'read',
      'security-events': 'write',
      actions: 'read',
    });
    const upload = steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif@'))!;
    expect(step('Plan and evaluate').run).toContain(`--output ${upload.with?.sarif_file}`);
    // After a pass or a block, never after no decision: code scanning refuses an unsuccessful run's SARIF.
    expect(upload.if).toContain('!cancelled()');
    expect(upload.if).toContain(
      "(steps.tfgate.outputs.exit-code == '0' || steps.tfgate.outputs.exit-code == '3')",
    );
    expect(step('Plan and evaluate').id).toBe('tfgate');
  });

  it('a blocked plan fails the step and leaves a SARIF report with each finding for the upload', async () => {
    const ws = TerraformWorkspace.create(join(REPO_ROOT, 'examples', 'terraform'));
    workspaces.push(ws);
    expect((await run('Terraform init', ws.dir, ws.env, svc.baseUrl)).exitCode).toBe(0);
    const plan = await run('Plan and evaluate', ws.dir, ws.env, svc.baseUrl);
    expect(plan.exitCode, plan.stderr).toBe(3);
    expect(plan.outputs).toEqual({ 'exit-code': '3' });
    expect(plan.stdout).toMatch(/^FAIL: 2 failures/m);
    const sarifText = readFileSync(join(ws.dir, 'tfgate.sarif'), 'utf8');
    const sarif = JSON.parse(sarifText) as {
      version: string;
      runs: Array<{
        tool: { driver: { name: string } };
        results: Array<{ locations: Array<{ physicalLocation: unknown }> }>;
      }>;
    };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]?.tool.driver.name).toBe('tfgate');
    expect(sarif.runs[0]?.results).toHaveLength(2);
    // Each finding on the line that declares it (the checkout is the root: no .git in this copy), as
    // code scanning and the annotations need it.
    const queueLine = lineOf(join(ws.dir, 'main.tf'), 'resource "terraform_data" "queue"');
    expect(sarif.runs[0]?.results.map((r) => r.locations[0]?.physicalLocation)).toContainEqual({
      artifactLocation: { uri: 'main.tf', uriBaseId: '%SRCROOT%' },
      region: { startLine: queueLine },
    });
    expect(plan.stdout).toContain(
      `::error file=main.tf,line=${queueLine},title=tfgate unsanctioned_creation (high)::terraform_data.queue`,
    );
    expect(githubUploadProblems(sarif)).toEqual([]);
    expect(await multitoolErrors({ 'tfgate.sarif': sarifText })).toEqual([]);
  });

  it('no decision fails the step; its SARIF report says so (no results, a run that did not succeed)', async () => {
    const ws = TerraformWorkspace.create(join(REPO_ROOT, 'examples', 'terraform'));
    workspaces.push(ws);
    expect((await run('Terraform init', ws.dir, ws.env, svc.baseUrl)).exitCode).toBe(0);
    const down = await run('Plan and evaluate', ws.dir, ws.env, 'http://127.0.0.1:9');
    expect(down.exitCode).toBe(4);
    // The upload's condition reads this: no upload after no decision.
    expect(down.outputs).toEqual({ 'exit-code': '4' });
    const sarifText = readFileSync(join(ws.dir, 'tfgate.sarif'), 'utf8');
    const sarif = JSON.parse(sarifText);
    expect(sarif.runs[0].results).toEqual([]);
    expect(sarif.runs[0].invocations[0]).toMatchObject({
      executionSuccessful: false,
      toolExecutionNotifications: [
        {
          level: 'error',
          message: { text: expect.stringMatching(/^no decision: could not reach the tfgate service/) },
        },
      ],
      properties: { decision: 'no_decision' },
    });
    expect(githubUploadProblems(sarif)).toEqual([]);
    expect(await multitoolErrors({ 'tfgate.sarif': sarifText })).toEqual([]);
  });
});

// `tfgate check --plan-file`: a saved plan (Atlantis's $PLANFILE, Spacelift's spacelift.plan) streamed
// through the real `terraform show -json` into the real bundle evaluation.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  normaliseCheckInput,
  normaliseCheckOptions as resolveCheckOptions,
} from '../../src/cli/normalise/check.js';
import { runCheck as runParsedCheck } from '../../src/commands/check.js';
import { ExitCode, type TfgateError } from '../../src/errors/index.js';
import { readBody, sendJson, startLoopback, testEnv } from '../client/loopback.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { runCheck, runPlan } from '../helpers/commands.js';
import { erroredPlan, guardedWorkspace } from '../helpers/errored-plan.js';
import { TerraformWorkspace } from '../helpers/terraform.js';
import { passingEvaluation } from '../report/fixtures.js';
import {
  capture,
  EXAMPLE_DIR,
  type Keys,
  makeKeys,
  type SignedBundle,
  signedBundle,
} from './wrapper-fixtures.js';

let keys: Keys;
let sanctioned: SignedBundle;
let strict: SignedBundle;
const workspaces: TerraformWorkspace[] = [];

beforeAll(async () => {
  keys = makeKeys();
  sanctioned = await signedBundle(keys, join(EXAMPLE_DIR, 'design.yaml'), 'sanctioned');
  strict = await signedBundle(keys, join(EXAMPLE_DIR, 'design-strict.yaml'), 'strict');
});
afterAll(() => rmSync(keys.dir, { recursive: true, force: true }));
afterEach(() => {
  for (const ws of workspaces.splice(0)) ws.cleanup();
});

function checkContext(env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  return {
    context: {
      env,
      color: false,
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
    },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

describe('tfgate check --plan-file', () => {
  it('evaluates a saved plan through terraform show -json: FAIL on the strict design, PASS on the sanctioned one', async () => {
    const ws = TerraformWorkspace.create(EXAMPLE_DIR);
    workspaces.push(ws);
    const planFile = await ws.plan();
    for (const [bundle, exitCode, headline] of [
      [strict, ExitCode.blocked, /^FAIL/],
      [sanctioned, ExitCode.ok, /^PASS/],
    ] as const) {
      const out = checkContext(ws.env);
      const options = resolveCheckOptions(
        { planFile, chdir: ws.dir, bundle: bundle.bundle, publicKey: bundle.publicKey },
        {},
      );
      expect(options.plan).toEqual({
        kind: 'plan-file',
        path: planFile,
        chdir: ws.dir,
        terraformBin: undefined,
      });
      const outcome = await runCheck(options, out.context);
      expect(outcome.exitCode).toBe(exitCode);
      expect(out.stdout()).toMatch(headline);
    }
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('a file that is not a plan is a terraform failure, explained (exit 2)', async () => {
    const ws = TerraformWorkspace.create(EXAMPLE_DIR);
    workspaces.push(ws);
    const bogus = join(ws.dir, 'bogus.tfplan');
    writeFileSync(bogus, '{"not":"a plan"}');
    const options = resolveCheckOptions(
      { planFile: bogus, chdir: ws.dir, bundle: sanctioned.bundle, publicKey: sanctioned.publicKey },
      {},
    );
    const error = (await runCheck(options, checkContext(ws.env).context).catch(
      (e: unknown) => e,
    )) as TfgateError;
    expect(error.code).toBe('invalid_plan_file');
    expect(error.exitCode).toBe(ExitCode.terraform);
    // Advisory mode covers a missing decision, not a terraform failure: still exit 2; the report file says
    // why nothing was decided, rather than keeping an earlier run's result.
    const report = join(ws.dir, 'tfgate.md');
    writeFileSync(report, 'PASS: an earlier run\n');
    const advisory = (await runCheck(
      { ...options, advisory: true, reports: [{ format: 'markdown', path: report }] },
      checkContext(ws.env).context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(advisory.exitCode).toBe(ExitCode.terraform);
    const written = readFileSync(report, 'utf8');
    expect(written).not.toContain('an earlier run');
    expect(written).toContain(advisory.message);
    expect(written).not.toMatch(/advisory/i);
  });

  it('a state file given as --plan-file is named a state, not a plan: no decision (exit 4)', async () => {
    await buildCli();
    const ws = TerraformWorkspace.create(EXAMPLE_DIR);
    workspaces.push(ws);
    await ws.apply();
    const result = await runCli(
      [
        'check',
        '--plan-file',
        'terraform.tfstate',
        '--bundle',
        sanctioned.bundle,
        '--public-key',
        sanctioned.publicKey,
      ],
      { env: { TF_CLI_CONFIG_FILE: String(ws.env.TF_CLI_CONFIG_FILE) }, cwd: ws.dir },
    );
    expect(result.exitCode).toBe(ExitCode.noDecision);
    expect(result.stderr).toContain(
      'this is a state, not a plan (a state file, or `terraform show -json` run without a plan file)',
    );
  });

  it('a file that is not a plan is the same terraform failure on the service route (exit 2), not no decision', async () => {
    const ws = TerraformWorkspace.create(EXAMPLE_DIR);
    workspaces.push(ws);
    const bogus = join(ws.dir, 'bogus.tfplan');
    writeFileSync(bogus, '{"not":"a plan"}');
    const service = await startLoopback(async (req, res) => {
      await readBody(req);
      sendJson(res, 200, passingEvaluation());
    });
    try {
      const bundleRoute = { bundle: sanctioned.bundle, publicKey: sanctioned.publicKey };
      const serviceRoute = { package: 'payments', baseUrl: service.baseUrl };
      const errors: TfgateError[] = [];
      for (const route of [bundleRoute, serviceRoute]) {
        const options = resolveCheckOptions({ planFile: bogus, chdir: ws.dir, ...route }, {});
        const env = { ...ws.env, ...testEnv(service.baseUrl) };
        errors.push(
          (await runCheck(options, checkContext(env).context).catch((e: unknown) => e)) as TfgateError,
        );
      }
      const [local, remote] = errors as [TfgateError, TfgateError];
      for (const error of [local, remote]) {
        expect(error.code).toBe('invalid_plan_file');
        expect(error.exitCode).toBe(ExitCode.terraform);
      }
      expect(remote.message).toBe(
        'terraform show failed: the file is not a plan file this terraform can read',
      );
      expect(remote.message).toBe(local.message);
      expect(remote.hint).toBe(local.hint);
      // Nothing was decided from the service: the plan never finished uploading.
      expect(service.requests.every((r) => r.body === undefined)).toBe(true);
    } finally {
      await service.close();
    }
  });

  it('passes -no-color to terraform when the output is not a terminal: no ESC byte from show or plan reaches the logs (built CLI)', async () => {
    await buildCli();
    const ws = TerraformWorkspace.create(EXAMPLE_DIR);
    workspaces.push(ws);
    const bogus = join(ws.dir, 'notes.txt');
    writeFileSync(bogus, 'not a plan\n');
    const route = ['--bundle', sanctioned.bundle, '--public-key', sanctioned.publicKey];
    const env = { TF_CLI_CONFIG_FILE: String(ws.env.TF_CLI_CONFIG_FILE) };
    // terraform show colours its error even into a pipe unless told -no-color.
    const shown = await runCli(['check', '--plan-file', bogus, '--chdir', ws.dir, ...route], { env });
    expect(shown.exitCode).toBe(ExitCode.terraform);
    expect(shown.stderr).toContain('Failed to read the given file as a state or plan file');
    expect(shown.stdout + shown.stderr).not.toContain('\u001b');
    writeFileSync(join(ws.dir, 'broken.tf'), 'resource "terraform_data" "broken" { input = }\n');
    const planned = await runCli(['plan', '--chdir', ws.dir, ...route], { env });
    expect(planned.exitCode).toBe(ExitCode.terraform);
    expect(planned.stderr).toContain('Invalid expression');
    expect(planned.stdout + planned.stderr).not.toContain('\u001b');
  });

  it.each([
    ['no base URL', ['--package', 'payments'], { TFGATE_API_KEY: 'tfg_x' }, /TFGATE_BASE_URL/],
    [
      'no API key',
      ['--package', 'payments', '--base-url', 'http://127.0.0.1:9'],
      {},
      /TFGATE_API_KEY is not set/,
    ],
    [
      'a missing bundle',
      ['--bundle', 'none.tar.gz', '--public-key', 'none.pem'],
      {},
      /--bundle none\.tar\.gz does not exist/,
    ],
  ])(
    'plan and apply check the route before terraform starts: %s is exit 1 with no plan printed',
    async (_what, route, extraEnv, message) => {
      await buildCli();
      const ws = TerraformWorkspace.create(EXAMPLE_DIR);
      workspaces.push(ws);
      const env = { TF_CLI_CONFIG_FILE: String(ws.env.TF_CLI_CONFIG_FILE), TFGATE_BASE_URL: '', ...extraEnv };
      for (const command of ['plan', 'apply']) {
        const result = await runCli([command, '--chdir', ws.dir, ...route], { env, cwd: ws.dir });
        expect(result.exitCode, result.stderr).toBe(ExitCode.usage);
        expect(result.stderr).toMatch(message);
        // Terraform never started: neither its plan nor tfgate's "terraform plan" step was printed.
        expect(result.stdout + result.stderr).not.toMatch(/terraform plan|Plan:|will be created/);
      }
    },
  );

  it.each([
    [
      'a report in a directory that does not exist',
      ['--report', 'sarif=/nonexistent/x.sarif'],
      'cannot write the sarif report to /nonexistent/x.sarif: the directory /nonexistent does not exist',
    ],
    [
      'a report that is a directory',
      ['--report', 'json=rdir'],
      'cannot write the json report to rdir: it is a directory',
    ],
    [
      'two reports to one file',
      ['--report', 'json=out.txt', '--report', 'junit=out.txt'],
      'the json report and the junit report would both be written to out.txt',
    ],
  ])(
    'plan and apply check where the reports go before terraform starts: %s is exit 1 with no plan printed',
    async (_what, reports, message) => {
      await buildCli();
      const ws = TerraformWorkspace.create(EXAMPLE_DIR);
      workspaces.push(ws);
      mkdirSync(join(ws.dir, 'rdir'));
      const route = ['--bundle', sanctioned.bundle, '--public-key', sanctioned.publicKey];
      const env = { TF_CLI_CONFIG_FILE: String(ws.env.TF_CLI_CONFIG_FILE) };
      for (const command of ['plan', 'apply']) {
        const result = await runCli([command, ...route, ...reports], { env, cwd: ws.dir });
        expect(result.exitCode, result.stderr).toBe(ExitCode.usage);
        expect(result.stderr).toContain(message);
        // Terraform never started: a decision made after a whole plan was lost to the path (exit 4).
        expect(result.stdout + result.stderr).not.toMatch(/terraform plan|Plan:|will be created/);
        expect(existsSync(join(ws.dir, 'out.txt'))).toBe(false);
      }
      expect(ws.stateAddresses()).toEqual([]);
    },
  );

  it('plan under GitHub Actions with a JSON report on stdout: stdout is the report alone, the annotations on stderr', async () => {
    await buildCli();
    const ws = TerraformWorkspace.create(EXAMPLE_DIR);
    workspaces.push(ws);
    const result = await runCli(
      ['plan', '--bundle', sanctioned.bundle, '--public-key', sanctioned.publicKey, '--report', 'json'],
      { env: { TF_CLI_CONFIG_FILE: String(ws.env.TF_CLI_CONFIG_FILE), GITHUB_ACTIONS: 'true' }, cwd: ws.dir },
    );
    expect(result.exitCode, result.stderr).toBe(ExitCode.ok);
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: 'pass' });
    expect(result.stderr).toMatch(/^::notice title=tfgate plan evaluation::PASS/m);
  });

  it('plan and apply refuse a report over the bundle or the key they read, before terraform starts', async () => {
    await buildCli();
    const ws = TerraformWorkspace.create(EXAMPLE_DIR);
    workspaces.push(ws);
    copyFileSync(sanctioned.bundle, join(ws.dir, 'bundle.tar.gz'));
    copyFileSync(sanctioned.publicKey, join(ws.dir, 'key.pem'));
    const route = ['--bundle', 'bundle.tar.gz', '--public-key', 'key.pem'];
    const env = { TF_CLI_CONFIG_FILE: String(ws.env.TF_CLI_CONFIG_FILE) };
    for (const [command, report, read] of [
      ['plan', 'json=key.pem', '--public-key key.pem'],
      ['apply', `junit=${join(ws.dir, 'bundle.tar.gz')}`, '--bundle bundle.tar.gz'],
    ] as const) {
      const result = await runCli([command, ...route, '--report', report], { env, cwd: ws.dir });
      expect(result.exitCode, result.stderr).toBe(ExitCode.usage);
      expect(result.stderr).toContain(`it is the file read as ${read}, which the report would replace`);
      expect(result.stdout + result.stderr).not.toMatch(/terraform plan|Plan:|will be created/);
    }
    expect(readFileSync(join(ws.dir, 'key.pem'))).toEqual(readFileSync(sanctioned.publicKey));
    expect(readFileSync(join(ws.dir, 'bundle.tar.gz'))).toEqual(readFileSync(sanctioned.bundle));
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('an errored plan (terraform wrote it anyway) is never evaluated: exit 4 by --plan-file and --plan-json (built CLI)', async () => {
    await buildCli();
    const ws = await guardedWorkspace();
    workspaces.push(ws);
    const errored = await erroredPlan(ws);
    expect(errored.exitCode).toBe(1);
    const jsonPath = join(ws.dir, 'errored.json');
    writeFileSync(jsonPath, await ws.showPlanJson('errored.tfplan'));
    const route = ['--bundle', sanctioned.bundle, '--public-key', sanctioned.publicKey];
    const env = { TF_CLI_CONFIG_FILE: String(ws.env.TF_CLI_CONFIG_FILE), TF_IN_AUTOMATION: '1' };
    for (const input of [
      ['--plan-file', errored.path, '--chdir', ws.dir],
      ['--plan-json', jsonPath],
    ]) {
      const result = await runCli(['check', ...input, ...route], { env });
      expect(result.exitCode).toBe(ExitCode.noDecision);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        'the plan is incomplete: terraform reported errors while planning; fix them and plan again',
      );
    }
  });

  it('a missing plan file is a usage error (exit 1), naming the flag and the file, even with --advisory', async () => {
    const options = resolveCheckOptions(
      { planFile: '/nonexistent/plan.tfplan', bundle: sanctioned.bundle, publicKey: sanctioned.publicKey },
      {},
    );
    const expected = {
      exitCode: ExitCode.usage,
      message: '--plan-file /nonexistent/plan.tfplan does not exist',
    };
    await expect(runCheck(options, checkContext(process.env).context)).rejects.toMatchObject(expected);
    // --advisory covers a missing decision, not a usage error.
    await expect(
      runCheck({ ...options, advisory: true }, checkContext(process.env).context),
    ).rejects.toMatchObject(expected);
  });

  it('takes exactly one plan input and exactly one route', () => {
    expect(() =>
      resolveCheckOptions({ planFile: 'a', planJson: 'b', bundle: 'x', publicKey: 'y' }, {}),
    ).toThrow(/exactly one plan input/);
    expect(() => resolveCheckOptions({ planFile: 'a' }, {})).toThrow(/exactly one route/);
    expect(() => resolveCheckOptions({ planFile: 'a', bundle: 'x', baseUrl: 'http://h' }, {})).toThrow(
      /two routes/,
    );
    expect(resolveCheckOptions({ planFile: 'a', package: 'payments' }, {}).route).toEqual({
      kind: 'remote',
      packageId: 'payments',
      baseUrl: undefined,
      caFile: undefined,
    });
  });
});

describe('tfgate plan --out', () => {
  it.each([
    // Each of these deleted the file at --out before anything else, then failed.
    [
      'a state, with no base URL',
      ['--package', 'payments', '--out', 'terraform.tfstate'],
      { TFGATE_API_KEY: 'tfg_x' },
      /no service URL/,
    ],
    [
      'a text file, with a terraform that does not exist',
      ['--bundle', 'B', '--public-key', 'K', '--out', 'notes.txt', '--terraform-bin', 'nope'],
      {},
      /--out notes\.txt is not a terraform plan: tfgate replaces only an earlier plan there, never another file/,
    ],
    [
      'the directory itself',
      ['--bundle', 'B', '--public-key', 'K', '--out', '.'],
      {},
      /cannot write the plan \(--out\) to \.: it is a directory\nhint: name a file, not a directory: e\.g\. tfgate\.tfplan/,
    ],
    [
      'a file in a directory that does not exist',
      ['--bundle', 'B', '--public-key', 'K', '--out', '/nonexistent/x.tfplan'],
      {},
      /cannot write the plan \(--out\) to \/nonexistent\/x\.tfplan: the directory \/nonexistent does not exist/,
    ],
  ])(
    '--out naming %s: exit 1 before terraform starts, and nothing deleted (built CLI)',
    async (_what, args, extraEnv, message) => {
      await buildCli();
      const ws = TerraformWorkspace.create(EXAMPLE_DIR);
      workspaces.push(ws);
      const files = { 'terraform.tfstate': '{"version": 4, "serial": 3}\n', 'notes.txt': 'my notes\n' };
      for (const [name, content] of Object.entries(files)) writeFileSync(join(ws.dir, name), content);
      const route = args.map((a) => (a === 'B' ? sanctioned.bundle : a === 'K' ? sanctioned.publicKey : a));
      const env = { TF_CLI_CONFIG_FILE: String(ws.env.TF_CLI_CONFIG_FILE), TFGATE_BASE_URL: '', ...extraEnv };
      const result = await runCli(['plan', ...route], { env, cwd: ws.dir });
      expect(result.exitCode, result.stderr).toBe(ExitCode.usage);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain('internal error');
      // Terraform never started: neither tfgate's "▶ terraform plan" step nor terraform's plan was printed.
      expect(result.stdout + result.stderr).not.toMatch(/▶ \S+ plan|Plan:|will be created/);
      for (const [name, content] of Object.entries(files)) {
        expect(readFileSync(join(ws.dir, name), 'utf8')).toBe(content);
      }
    },
  );

  it('keeps the plan readable by its owner only', async () => {
    const ws = TerraformWorkspace.create(EXAMPLE_DIR);
    workspaces.push(ws);
    const out = join(ws.dir, 'kept.tfplan');
    const result = await runPlan(
      {
        route: { kind: 'bundle', bundle: sanctioned.bundle, publicKey: sanctioned.publicKey },
        chdir: ws.dir,
        out,
      },
      capture(ws.env).context,
    );
    expect(result.planFile).toBe(out);
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });
});

describe('tfgate check --plan-file, several', () => {
  it('each saved plan is shown in its own directory and judged; one verdict over both', async () => {
    const first = TerraformWorkspace.create(EXAMPLE_DIR);
    const second = TerraformWorkspace.create(EXAMPLE_DIR);
    workspaces.push(first, second);
    const plans = [await first.plan(), await second.plan([], 'x.tfplan')];
    const out = checkContext(first.env);
    const options = normaliseCheckInput(
      { planFile: plans, bundle: strict.bundle, publicKey: strict.publicKey, format: ['json'] },
      {},
    );
    const outcome = await runParsedCheck(options, out.context);
    expect(outcome.exitCode, out.stderr()).toBe(ExitCode.blocked);
    const body = JSON.parse(out.stdout());
    expect(body.counts).toEqual({ roots: 2, pass: 0, block: 2, no_decision: 0 });
    expect(
      body.results.map((r: { plan: string; counts: { creations: number } }) => [r.plan, r.counts.creations]),
    ).toEqual([
      [plans[0], 2],
      [plans[1], 2],
    ]);
  });
});

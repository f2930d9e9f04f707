// Terragrunt, the real one (pinned, built by scripts/setup-tools.sh from the Go module proxy): `tfgate plan` and
// `tfgate apply` with --terraform-bin terragrunt on a unit, and `tfgate check` judging every plan of a
// `terragrunt run --all plan` stack (units of terraform_data, with dependencies between them; their plan JSON
// written per unit by terragrunt's --json-out-dir). A missing terragrunt fails these tests, never skips them.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors/index.js';
import { buildCli, CLI_MAIN, runCli } from '../helpers/cli.js';
import { runApply, runPlan } from '../helpers/commands.js';
import { printed, TERRAFORM_BIN, terraformEnv } from '../helpers/terraform.js';
import { capture, bundleRoute as route, useWrapperSuite } from './wrapper-fixtures.js';

const TERRAGRUNT_BIN = 'terragrunt';
const STACK = resolve(import.meta.dirname, '..', '..', 'examples', 'terragrunt', 'live');
const suite = useWrapperSuite();

let dir: string;
let env: NodeJS.ProcessEnv;
let terragruntVersion: string;

beforeAll(async () => {
  const version = await execa(TERRAGRUNT_BIN, ['--version'], { reject: false });
  if (version.exitCode !== 0) {
    throw new Error(
      'terragrunt is not on PATH: run scripts/setup-tools.sh (it builds the pinned terragrunt)',
    );
  }
  terragruntVersion = /v(\d+\.\d+\.\d+)/.exec(version.stdout)?.[1] ?? '';
  dir = mkdtempSync(join(tmpdir(), 'tfgate-terragrunt-'));
  writeFileSync(join(dir, 'empty.tfrc'), '');
  // Terragrunt runs terraform (TG_TF_PATH; its own default would be tofu when both are installed).
  env = terraformEnv(join(dir, 'empty.tfrc'), { TG_TF_PATH: TERRAFORM_BIN, TG_NON_INTERACTIVE: 'true' });
  // The check never runs terraform (the plans are JSON already): it needs no terraform environment.
  await buildCli();
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The unit's state, as terragrunt reads it (Terragrunt keeps it in the unit's .terragrunt-cache copy). */
async function stateList(unit: string): Promise<string[]> {
  const list = await execa(TERRAGRUNT_BIN, ['run', '--', 'state', 'list'], { cwd: unit, env, reject: false });
  return list.stdout.split('\n').filter((line) => line.startsWith('terraform_data.'));
}

/** A fresh copy of the stack. */
function stack(name: string): string {
  const live = join(dir, name);
  cpSync(STACK, live, { recursive: true });
  return live;
}

describe('tfgate plan / apply --terraform-bin terragrunt on a unit', () => {
  it('plan: blocked on the strict design (exit 3), passes on the sanctioned one', async () => {
    const unit = join(stack('plan'), 'network');
    const blocked = capture(env);
    const strict = await runPlan(
      { route: route(suite.strict), chdir: unit, terraformBin: TERRAGRUNT_BIN },
      blocked.context,
    );
    expect(strict.exitCode).toBe(ExitCode.blocked);
    expect(strict.evaluation?.findings.map((f) => `${f.rule} ${f.address}`)).toEqual([
      'unsanctioned_creation terraform_data.network',
    ]);
    // The progress says which binary ran: terragrunt, and the terraform it wraps.
    expect(blocked.progress()).toMatch(
      new RegExp(`Terragrunt ${terragruntVersion.replace(/\./g, '\\.')} \\(Terraform \\d+\\.\\d+\\.\\d+\\)`),
    );
    const passed = await runPlan(
      { route: route(suite.sanctioned), chdir: unit, terraformBin: TERRAGRUNT_BIN },
      capture(env).context,
    );
    expect(passed.exitCode).toBe(ExitCode.ok);
  }, 120_000);

  it('apply: applies exactly the evaluated plan through terragrunt; blocked applies nothing', async () => {
    const unit = join(stack('apply'), 'network');
    const blocked = await runApply(
      { route: route(suite.strict), chdir: unit, terraformBin: TERRAGRUNT_BIN },
      capture(env).context,
    );
    expect(blocked.exitCode).toBe(ExitCode.blocked);
    expect(await stateList(unit)).toEqual([]);
    const applied = await runApply(
      { route: route(suite.sanctioned), chdir: unit, terraformBin: TERRAGRUNT_BIN },
      capture(env).context,
    );
    expect(applied).toMatchObject({ status: 'applied', exitCode: ExitCode.ok });
    expect(await stateList(unit)).toEqual(['terraform_data.network']);
  }, 120_000);
});

describe('tfgate check: every plan of a terragrunt run --all plan stack', () => {
  let live: string;
  let json: string;

  beforeAll(async () => {
    live = stack('all');
    json = join(dir, 'plans-json');
    // The documented way to get each unit's plan JSON: a saved plan per unit (--out-dir), shown as JSON into
    // a mirror of the stack (--json-out-dir): <json>/<unit>/tfplan.json.
    const run = await execa(
      TERRAGRUNT_BIN,
      ['run', '--all', '--out-dir', join(dir, 'plans'), '--json-out-dir', json, '--', 'plan'],
      { cwd: live, env, reject: false, all: true },
    );
    expect(run.exitCode, run.all).toBe(0);
    for (const unit of ['network', 'app', 'worker'])
      expect(existsSync(join(json, unit, 'tfplan.json'))).toBe(true);
  }, 180_000);

  const offline = (bundle: { bundle: string; publicKey: string }) => [
    '--bundle',
    bundle.bundle,
    '--public-key',
    bundle.publicKey,
  ];

  it('the strict design blocks every unit; one report names each unit as a root', async () => {
    const result = await runCli(['check', '--plan-json', json, ...offline(suite.strict), '--format', 'json']);
    expect(result.exitCode, result.stderr).toBe(3);
    const body = JSON.parse(result.stdout);
    expect(body.decision).toBe('block');
    expect(
      body.results.map((r: { root: string; decision: string; findings: Array<{ address: string }> }) => [
        r.root,
        r.decision,
        r.findings.map((f) => f.address),
      ]),
    ).toEqual([
      ['app', 'block', ['terraform_data.app']],
      ['network', 'block', ['terraform_data.network']],
      ['worker', 'block', ['terraform_data.worker[0]', 'terraform_data.worker[1]']],
    ]);
  });

  it('the sanctioned design passes the whole stack; a map can judge one unit by a stricter package', async () => {
    const pass = await runCli(['check', '--plan-json', json, ...offline(suite.sanctioned)]);
    expect(pass.exitCode, pass.stderr).toBe(0);
    expect(pass.stdout).toMatch(/^PASS: 0 blocking findings in 3 roots, 4 resource changes evaluated/);

    const map = join(dir, 'tfgate-plans.yaml');
    writeFileSync(
      map,
      [
        'plans:',
        '  - plan_json: plans-json/*/tfplan.json',
        `    bundle: ${suite.sanctioned.bundle}`,
        '  - plan_json: plans-json/worker/tfplan.json',
        '    root: worker (strict)',
        `    bundle: ${suite.strict.bundle}`,
        '',
      ].join('\n'),
    );
    const mixed = await runCli(
      ['check', '--plan-map', map, '--public-key', suite.sanctioned.publicKey, '--format', 'markdown'],
      { cwd: dir },
    );
    expect(mixed.exitCode, mixed.stderr).toBe(3);
    expect(mixed.stdout).toContain(
      '#### ❌ `worker (strict)` (package `example-terraform`): FAIL: 2 failures',
    );
    for (const unit of ['plans-json/app', 'plans-json/network', 'plans-json/worker']) {
      expect(mixed.stdout).toContain(`<details><summary>✅ <code>${unit}</code>`);
    }
  });
});

describe('a signal during tfgate apply --terraform-bin terragrunt', () => {
  it.each([
    ['terraform', TERRAFORM_BIN],
    ['tofu', 'tofu'],
  ])(
    'stops the %s terragrunt runs (the whole process group is signalled): exit 2, the provisioner cut short',
    async (name, binary) => {
      const unit = join(stack(`signal-${name}`), 'network');
      // The provisioner leaves a mark if it runs to its end: then nothing stopped it. Its shell writes its pid
      // as it starts: signalled before its command runs (the line below printed, the shell not yet started, as
      // under load), terraform stops before the command, and the test would prove nothing about the process
      // group.
      const mark = join(unit, 'provisioned');
      const started = join(unit, 'started');
      writeFileSync(
        join(unit, 'main.tf'),
        `resource "terraform_data" "slow" {\n  provisioner "local-exec" {\n    command = "echo $$ > ${started}.tmp && mv ${started}.tmp ${started} && sleep 10 && touch ${mark}"\n  }\n}\n`,
      );
      // The slow resource is of a sanctioned kind, so the plan passes and its apply starts.
      const child = execa(
        'node',
        [
          CLI_MAIN,
          'apply',
          '--bundle',
          suite.sanctioned.bundle,
          '--public-key',
          suite.sanctioned.publicKey,
          '--terraform-bin',
          TERRAGRUNT_BIN,
        ],
        {
          cwd: unit,
          env: { ...env, TG_TF_PATH: binary, NO_COLOR: '1', CI: 'true' },
          reject: false,
          all: true,
        },
      );
      await printed(child, "Provisioning with 'local-exec'", 90_000);
      const deadline = Date.now() + 30_000;
      while (!existsSync(started) && Date.now() < deadline) await new Promise((wait) => setTimeout(wait, 50));
      expect(existsSync(started), 'the provisioner command never started').toBe(true);
      child.kill('SIGINT');
      const result = await child;
      const all = String(result.all);
      expect(result.exitCode, all).toBe(ExitCode.terraform);
      expect(all).toContain('error: interrupted by SIGINT during terraform apply');
      expect(all).not.toContain('Creation complete');
      // terraform cut the provisioner short: signalled alone, terragrunt let it run to its end. Once its shell
      // is gone (at once when cut short; after its 10 s sleep when not), the mark says which.
      const shell = Number(readFileSync(started, 'utf8'));
      const gone = Date.now() + 30_000;
      while (running(shell) && Date.now() < gone) await new Promise((wait) => setTimeout(wait, 100));
      expect(running(shell), `the provisioner's shell (pid ${shell}) still runs`).toBe(false);
      expect(existsSync(mark)).toBe(false);
    },
    120_000,
  );
});

/** A process that runs: not gone, not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

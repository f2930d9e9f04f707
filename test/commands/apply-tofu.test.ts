// tfgate apply, plan and check with the real OpenTofu (`tofu`, installed by scripts/setup-tools.sh) on the
// bundle route: a real signed bundle, the real policy engine, state read back from tofu's own state file.
// A missing tofu fails these tests (requireTofu), it never skips them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { normaliseCheckOptions as resolveCheckOptions } from '../../src/cli/normalise/check.js';
import { ExitCode, type TfgateError } from '../../src/errors/index.js';
import { runApply, runCheck, runPlan } from '../helpers/commands.js';
import { requireTofu, TOFU_BIN } from '../helpers/terraform.js';
import { capture, bundleRoute as route, useWrapperSuite } from './wrapper-fixtures.js';

const suite = useWrapperSuite();
/** `tofu version`'s first line, e.g. "OpenTofu v1.10.10". */
let tofuVersion: string;

beforeAll(async () => {
  tofuVersion = await requireTofu();
});

/** The example configuration, run by tofu (ws.apply/plan/show use tofu too). */
const tofuWorkspace = () => suite.workspace(undefined, { bin: TOFU_BIN });

describe('tfgate apply --terraform-bin tofu (bundle route, real OpenTofu)', () => {
  it('blocked: exit 3, findings printed, nothing applied', async () => {
    const ws = tofuWorkspace();
    const run = capture(ws.env);
    const result = await runApply(
      { route: route(suite.strict), chdir: ws.dir, terraformBin: TOFU_BIN },
      run.context,
    );
    expect(result.status).toBe('blocked');
    expect(result.exitCode).toBe(ExitCode.blocked);
    expect(result.evaluation?.findings.map((f) => `${f.rule} ${f.address}`).sort()).toEqual([
      'unsanctioned_creation terraform_data.ledger[0]',
      'unsanctioned_creation terraform_data.queue',
    ]);
    expect(run.progress()).toMatch(/OpenTofu 1\.\d+\.\d+; deciding with/);
    expect(run.progress()).not.toContain('> terraform apply');
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('passed: applied; then a no-change plan exits 0 without applying (binary from TFGATE_TERRAFORM_BIN)', async () => {
    const ws = tofuWorkspace();
    const first = capture(ws.env);
    const result = await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, terraformBin: TOFU_BIN },
      first.context,
    );
    expect(result).toMatchObject({ status: 'applied', exitCode: ExitCode.ok });
    expect(result.evaluation?.counts.creations).toBe(2);
    expect(ws.stateAddresses()).toEqual(['terraform_data.ledger[0]', 'terraform_data.queue']);
    // tofu wrote the state (terraform 1.11 would have put its own version here).
    expect(`OpenTofu v${ws.readState()?.terraform_version}`).toBe(tofuVersion);
    const serial = ws.readState()?.serial;

    // No --terraform-bin: the environment names tofu.
    const again = capture({ ...ws.env, TFGATE_TERRAFORM_BIN: TOFU_BIN });
    const noChange = await runApply({ route: route(suite.sanctioned), chdir: ws.dir }, again.context);
    expect(noChange).toMatchObject({ status: 'no-changes', exitCode: ExitCode.ok });
    expect(noChange.evaluation).toMatchObject({ decision: 'pass', findings: [] });
    expect(again.progress()).toContain('No changes');
    expect(again.progress()).toMatch(/OpenTofu 1\.\d+\.\d+/);
    expect(ws.readState()?.serial).toBe(serial);
  });

  it('errored plan (failing precondition): exit 2, never applied', async () => {
    const ws = tofuWorkspace();
    writeFileSync(
      join(ws.dir, 'check.tf'),
      'resource "terraform_data" "guarded" {\n  lifecycle {\n    precondition {\n      condition     = var.release == "v2"\n      error_message = "release must be v2"\n    }\n  }\n}\n',
    );
    const run = capture(ws.env);
    const error = (await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, terraformBin: TOFU_BIN },
      run.context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.exitCode).toBe(ExitCode.terraform);
    expect(error.message).toContain('Resource precondition failed');
    expect(run.progress()).not.toContain('Evaluate plan');
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('passes OpenTofu-only -exclude through to tofu: the excluded resource is neither planned nor applied', async () => {
    const ws = tofuWorkspace();
    const result = await runApply(
      {
        route: route(suite.sanctioned),
        chdir: ws.dir,
        terraformBin: TOFU_BIN,
        terraformArgs: ['-exclude', 'terraform_data.ledger'],
      },
      capture(ws.env).context,
    );
    expect(result.status).toBe('applied');
    expect(result.evaluation?.counts.resource_changes).toBe(1);
    expect(ws.stateAddresses()).toEqual(['terraform_data.queue']);
  });

  it("plan --out takes tofu's own saved plan there for an earlier plan: replaced by a pass, removed by a block", async () => {
    const ws = tofuWorkspace();
    // Another release than the run's: byte for byte another plan (two plans of one configuration made within
    // the same two seconds are the same bytes).
    const out = await ws.plan(['-var=release=earlier'], 'reviewed.tfplan');
    const before = readFileSync(out);
    const passed = await runPlan(
      { route: route(suite.sanctioned), chdir: ws.dir, terraformBin: TOFU_BIN, out },
      capture(ws.env).context,
    );
    expect(passed).toMatchObject({ status: 'passed', planFile: out });
    expect(readFileSync(out)).not.toEqual(before);
    const blocked = await runPlan(
      { route: route(suite.strict), chdir: ws.dir, terraformBin: TOFU_BIN, out },
      capture(ws.env).context,
    );
    expect(blocked.exitCode).toBe(ExitCode.blocked);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses -exclude for terraform before anything runs, saying it is OpenTofu-only (exit 1)', async () => {
    const ws = suite.workspace();
    const run = capture(ws.env);
    const error = (await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, terraformArgs: ['-exclude=terraform_data.ledger'] },
      run.context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toBe('-exclude is OpenTofu-only: terraform has no -exclude flag');
    expect(error.hint).toContain('--terraform-bin tofu');
    expect(run.progress()).toBe('');
    expect(ws.stateAddresses()).toEqual([]);
  });
});

describe('tfgate check --plan-file <planfile> --terraform-bin tofu', () => {
  it("evaluates tofu's saved plan through tofu show -json: FAIL strict, PASS sanctioned; nothing applied", async () => {
    const ws = tofuWorkspace();
    const planFile = await ws.plan();
    expect(existsSync(planFile)).toBe(true);
    for (const [bundle, exitCode, headline] of [
      [suite.strict, ExitCode.blocked, /^FAIL/],
      [suite.sanctioned, ExitCode.ok, /^PASS/],
    ] as const) {
      let stdout = '';
      const options = resolveCheckOptions(
        {
          planFile,
          chdir: ws.dir,
          terraformBin: TOFU_BIN,
          bundle: bundle.bundle,
          publicKey: bundle.publicKey,
        },
        {},
      );
      const outcome = await runCheck(options, {
        env: ws.env,
        color: false,
        stdout: { write: (s: string) => (stdout += s) },
        stderr: { write: () => true },
      });
      expect(outcome.exitCode).toBe(exitCode);
      expect(stdout).toMatch(headline);
    }
    expect(ws.stateAddresses()).toEqual([]);
  });
});

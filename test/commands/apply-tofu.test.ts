// tfgate apply, plan and check with the real OpenTofu (`tofu`, installed by scripts/setup-tools.sh) on the
// bundle route: a real signed bundle, the real policy engine, state read back from tofu's own state file.
// A missing tofu fails these tests (requireTofu), it never skips them.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runApply } from '../../src/commands/apply.js';
import { resolveCheckOptions, runCheck } from '../../src/commands/check.js';
import { ExitCode, type TfgateError } from '../../src/errors/index.js';
import { requireTofu, TerraformWorkspace, TOFU_BIN } from '../helpers/terraform.js';
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
let privateTmp: string;
/** `tofu version`'s first line, e.g. "OpenTofu v1.10.10". */
let tofuVersion: string;
const previousTmp = process.env.TMPDIR;
const workspaces: TerraformWorkspace[] = [];

beforeAll(async () => {
  tofuVersion = await requireTofu();
  keys = makeKeys();
  sanctioned = await signedBundle(keys, join(EXAMPLE_DIR, 'design.yaml'), 'sanctioned');
  strict = await signedBundle(keys, join(EXAMPLE_DIR, 'design-strict.yaml'), 'strict');
  privateTmp = mkdtempSync(join(tmpdir(), 'tfgate-tofu-tmp-'));
  process.env.TMPDIR = privateTmp;
});

afterAll(() => {
  process.env.TMPDIR = previousTmp;
  if (keys) rmSync(keys.dir, { recursive: true, force: true });
  if (privateTmp) rmSync(privateTmp, { recursive: true, force: true });
});

afterEach(() => {
  // tfgate's private plan directories are removed whatever happened.
  expect(readdirSync(privateTmp).filter((n) => n.startsWith('tfgate-plan-'))).toEqual([]);
  for (const ws of workspaces.splice(0)) ws.cleanup();
});

/** The example configuration, run by tofu (ws.apply/plan/show use tofu too). */
function tofuWorkspace(): TerraformWorkspace {
  const ws = TerraformWorkspace.create(EXAMPLE_DIR, { bin: TOFU_BIN });
  workspaces.push(ws);
  return ws;
}

function route(bundle: SignedBundle) {
  return { kind: 'bundle' as const, bundle: bundle.bundle, publicKey: bundle.publicKey };
}

describe('tfgate apply --terraform-bin tofu (bundle route, real OpenTofu)', () => {
  it('blocked: exit 3, findings printed, nothing applied', async () => {
    const ws = tofuWorkspace();
    const run = capture(ws.env);
    const result = await runApply(
      { route: route(strict), chdir: ws.dir, terraformBin: TOFU_BIN },
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
      { route: route(sanctioned), chdir: ws.dir, terraformBin: TOFU_BIN },
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
    const noChange = await runApply({ route: route(sanctioned), chdir: ws.dir }, again.context);
    expect(noChange).toEqual({ status: 'no-changes', exitCode: ExitCode.ok });
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
      { route: route(sanctioned), chdir: ws.dir, terraformBin: TOFU_BIN },
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
        route: route(sanctioned),
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

  it('refuses -exclude for terraform before anything runs, saying it is OpenTofu-only (exit 1)', async () => {
    const ws = TerraformWorkspace.create(EXAMPLE_DIR);
    workspaces.push(ws);
    const run = capture(ws.env);
    const error = (await runApply(
      { route: route(sanctioned), chdir: ws.dir, terraformArgs: ['-exclude=terraform_data.ledger'] },
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
      [strict, ExitCode.blocked, /^FAIL/],
      [sanctioned, ExitCode.ok, /^PASS/],
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

// tfgate apply and tfgate plan end to end: real terraform (terraform_data), a real signed bundle verified
// with the platform key, the real policy engine. State is read back from terraform to prove what happened.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { ExitCode, type TfgateError } from '../../src/errors/index.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { runApply, runPlan } from '../helpers/commands.js';
import { capture, bundleRoute as route, useWrapperSuite } from './wrapper-fixtures.js';

const suite = useWrapperSuite();
const workspace = (source?: string) => suite.workspace(source);

/** The sanctioned bundle with one byte of its signed content flipped: it does not verify. */
function tamperedBundle(name: string): string {
  const tampered = join(suite.keys.dir, name);
  const bytes = readFileSync(suite.sanctioned.bundle);
  bytes[bytes.length - 10] = (bytes[bytes.length - 10] ?? 0) ^ 0xff;
  writeFileSync(tampered, bytes);
  return tampered;
}

describe('tfgate apply (bundle route, real terraform)', () => {
  it('applies a plan that passes, then reports a no-change plan without applying', async () => {
    const ws = workspace();
    const first = capture(ws.env);
    const result = await runApply({ route: route(suite.sanctioned), chdir: ws.dir }, first.context);
    expect(result.status).toBe('applied');
    expect(result.exitCode).toBe(ExitCode.ok);
    expect(result.evaluation?.decision).toBe('pass');
    expect(result.evaluation?.counts.creations).toBe(2);
    expect(first.stdout()).toMatch(/pass/i);
    expect(ws.stateAddresses()).toEqual(['terraform_data.ledger[0]', 'terraform_data.queue']);
    const serial = ws.readState()?.serial;

    // An earlier run's report: a plan without changes is still evaluated, and its report replaces this one.
    const report = join(ws.dir, 'tfgate.json');
    writeFileSync(report, '{"decision":"block","findings":[{"rule":"stale"}]}\n');
    const again = capture(ws.env);
    const noChange = await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, reports: [{ format: 'json', path: report }] },
      again.context,
    );
    expect(noChange).toMatchObject({ status: 'no-changes', exitCode: ExitCode.ok });
    expect(noChange.evaluation?.decision).toBe('pass');
    expect(noChange.evaluation?.findings).toEqual([]);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ decision: 'pass', findings: [] });
    expect(again.progress()).toContain('No changes');
    expect(again.progress()).not.toContain('> terraform apply');
    expect(ws.readState()?.serial).toBe(serial);
  });

  it('blocks an unsanctioned creation: exit 3, findings printed, nothing applied', async () => {
    const ws = workspace();
    const run = capture(ws.env);
    const result = await runApply({ route: route(suite.strict), chdir: ws.dir }, run.context);
    expect(result.status).toBe('blocked');
    expect(result.exitCode).toBe(ExitCode.blocked);
    expect(result.evaluation?.findings.map((f) => `${f.rule} ${f.address}`).sort()).toEqual([
      'unsanctioned_creation terraform_data.ledger[0]',
      'unsanctioned_creation terraform_data.queue',
    ]);
    expect(run.stdout()).toMatch(/^FAIL|\d+ failures?/m);
    expect(run.progress()).not.toContain('> terraform apply');
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('blocks destroying what a capability depends on, passing -var through; the ledger stays', async () => {
    const ws = workspace();
    await ws.apply();
    const run = capture(ws.env);
    const result = await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, terraformArgs: ['-var', 'ledger_enabled=false'] },
      run.context,
    );
    expect(result.exitCode).toBe(ExitCode.blocked);
    expect(result.evaluation?.findings).toMatchObject([
      { rule: 'capability_dependency_destroyed', address: 'terraform_data.ledger[0]', capability: 'ledger' },
    ]);
    expect(ws.stateAddresses()).toContain('terraform_data.ledger[0]');
  });

  it('passes -target and -refresh=false through: only the target is applied', async () => {
    const ws = workspace();
    const result = await runApply(
      {
        route: route(suite.sanctioned),
        terraformArgs: [`-chdir=${ws.dir}`, '-target=terraform_data.queue', '-refresh=false'],
      },
      capture(ws.env).context,
    );
    expect(result.status).toBe('applied');
    expect(ws.stateAddresses()).toEqual(['terraform_data.queue']);
  });

  it('--advisory applies a blocked plan and says so loudly', async () => {
    const ws = workspace();
    const run = capture(ws.env);
    const result = await runApply({ route: route(suite.strict), chdir: ws.dir, advisory: true }, run.context);
    expect(result.status).toBe('applied');
    expect(result.exitCode).toBe(ExitCode.ok);
    expect(result.evaluation?.decision).toBe('block');
    expect(run.progress()).toMatch(/BANNER ADVISORY MODE.*goes ahead/);
    expect(ws.stateAddresses()).toHaveLength(2);

    // Asked for through the environment, the notice names the variable, not a flag that was never given.
    const planned = workspace();
    const cli = await runCli(
      [
        'plan',
        '--bundle',
        suite.strict.bundle,
        '--public-key',
        suite.strict.publicKey,
        '--chdir',
        planned.dir,
      ],
      { env: { TF_CLI_CONFIG_FILE: String(planned.env.TF_CLI_CONFIG_FILE), TFGATE_ADVISORY: '1' } },
    );
    expect(cli.exitCode, cli.stderr).toBe(ExitCode.ok);
    expect(cli.stderr).toMatch(
      /ADVISORY MODE: \d+ findings? would block at min severity low; terraform goes ahead anyway because TFGATE_ADVISORY=1 is set/,
    );
    expect(cli.stderr).not.toContain('--advisory');
  });

  it('never applies an errored plan (failing precondition): exit 2, terraform error named', async () => {
    const ws = workspace();
    writeFileSync(
      join(ws.dir, 'check.tf'),
      'resource "terraform_data" "guarded" {\n  lifecycle {\n    precondition {\n      condition     = var.release == "v2"\n      error_message = "release must be v2"\n    }\n  }\n}\n',
    );
    const run = capture(ws.env);
    const error = (await runApply({ route: route(suite.sanctioned), chdir: ws.dir }, run.context).catch(
      (e: unknown) => e,
    )) as TfgateError;
    expect(error.exitCode).toBe(ExitCode.terraform);
    expect(error.message).toContain('Resource precondition failed');
    expect(run.progress()).not.toContain('Evaluate plan');
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('an invalid configuration fails in terraform plan with exit 2; the report file says so, not an earlier run', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'broken.tf'), 'resource "terraform_data" "x" {\n  no_such_argument = 1\n}\n');
    const report = join(ws.dir, 'tfgate.json');
    writeFileSync(report, '{"decision":"pass","findings":[]}\n');
    const error = (await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, reports: [{ format: 'json', path: report }] },
      capture(ws.env).context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.exitCode).toBe(ExitCode.terraform);
    expect(error.message).toMatch(/Unsupported argument/);
    const written = JSON.parse(readFileSync(report, 'utf8'));
    expect(written.decision).toBe('no_decision');
    expect(written.error.message).toMatch(/Unsupported argument/);
  });

  it('refuses a tampered bundle: exit 4, the plan started meanwhile is stopped, nothing applied', async () => {
    const ws = workspace();
    const tampered = tamperedBundle('tampered.tar.gz');
    const run = capture(ws.env);
    const error = (await runApply(
      { route: { kind: 'bundle', bundle: tampered, publicKey: suite.sanctioned.publicKey }, chdir: ws.dir },
      run.context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.exitCode).toBe(ExitCode.noDecision);
    expect(error.name).toBe('BundleVerificationError');
    expect(run.progress()).not.toContain('> Evaluate plan');
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('--advisory goes ahead past a bundle that does not verify: applied, said loudly, the report says no decision', async () => {
    const ws = workspace();
    const tampered = tamperedBundle('tampered-advisory.tar.gz');
    const report = join(ws.dir, 'tfgate.txt');
    const run = capture(ws.env);
    const result = await runApply(
      {
        route: { kind: 'bundle', bundle: tampered, publicKey: suite.sanctioned.publicKey },
        chdir: ws.dir,
        advisory: true,
        reports: [{ format: 'text', path: report }],
      },
      run.context,
    );
    expect(result).toMatchObject({ status: 'applied', exitCode: ExitCode.ok });
    expect(ws.stateAddresses()).toEqual(['terraform_data.ledger[0]', 'terraform_data.queue']);
    expect(run.progress()).toMatch(/BANNER ADVISORY MODE: no decision could be reached/);
    expect(readFileSync(report, 'utf8')).toMatch(
      /^ADVISORY: no decision \(.*bundle.*\); not enforced because --advisory was given\n/,
    );
  });

  it('a terraform binary that cannot be run is a set-up error (exit 1), named, with a hint; nothing run', async () => {
    const ws = workspace();
    const error = (await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, terraformBin: '/nonexistent/terraform' },
      capture(ws.env).context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.code).toBe('terraform_not_found');
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toBe('cannot run "/nonexistent/terraform": no such file');

    // Through the CLI, as a pipeline runs it: a path, a name not on PATH, a file that is not executable.
    const notExecutable = join(ws.dir, 'terraform-copy');
    writeFileSync(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
    const bundle = ['--bundle', suite.sanctioned.bundle, '--public-key', suite.sanctioned.publicKey];
    for (const [command, bin, why] of [
      ['plan', '/nonexistent/terraform', 'no such file'],
      ['apply', 'terraform-nowhere-on-path', 'not found on PATH'],
      ['plan', notExecutable, 'permission denied (not an executable file)'],
    ] as const) {
      const result = await runCli([command, ...bundle, '--chdir', ws.dir, '--terraform-bin', bin]);
      expect(result.exitCode, result.stderr).toBe(ExitCode.usage);
      expect(result.stderr).toContain(`error: cannot run "${bin}": ${why}\nhint: `);
      expect(result.stderr).toMatch(/hint: .*--terraform-bin \(or TFGATE_TERRAFORM_BIN\)/);
    }
    // check --plan-file runs terraform show: the same set-up error.
    const planFile = join(ws.dir, 'kept.tfplan');
    writeFileSync(planFile, '');
    const checked = await runCli([
      'check',
      ...bundle,
      '--plan-file',
      planFile,
      '--terraform-bin',
      '/nonexistent/tf',
    ]);
    expect(checked.exitCode, checked.stderr).toBe(ExitCode.usage);
    expect(checked.stderr).toContain('error: cannot run "/nonexistent/tf": no such file\nhint: ');
    expect(ws.readState()).toBeUndefined();
  });

  it('fails closed when the evaluation errors: exit 4, nothing applied; --advisory goes ahead', async () => {
    const ws = workspace();
    const failing = () =>
      Promise.resolve({
        description: 'an evaluator that cannot decide',
        evaluate: () => Promise.reject(new Error('engine exploded')),
      });
    const closed = capture(ws.env);
    const error = (await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir },
      { ...closed.context, openEvaluator: failing },
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.exitCode).toBe(ExitCode.noDecision);
    expect(error.message).toContain('engine exploded');
    expect(ws.stateAddresses()).toEqual([]);

    const advisory = capture(ws.env);
    const result = await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, advisory: true },
      { ...advisory.context, openEvaluator: failing },
    );
    expect(result.status).toBe('applied');
    expect(advisory.progress()).toMatch(/BANNER ADVISORY MODE: no decision could be reached/);
    expect(ws.stateAddresses()).toHaveLength(2);
  });
});

describe('tfgate plan and apply: the report files on no decision', () => {
  const failing = () =>
    Promise.resolve({
      description: 'an evaluator that cannot decide',
      evaluate: () => Promise.reject(new Error('engine exploded')),
    });

  it("say no decision, so an earlier run's PASS never stays for a CI step to publish; stdout stays empty", async () => {
    const ws = workspace();
    const junit = join(ws.dir, 'report.xml');
    const json = join(ws.dir, 'report.json');
    const reports = [
      { format: 'junit' as const, path: junit },
      { format: 'json' as const, path: json },
    ];
    const passed = await runPlan(
      { route: route(suite.sanctioned), chdir: ws.dir, reports },
      capture(ws.env).context,
    );
    expect(passed.exitCode).toBe(ExitCode.ok);
    expect(JSON.parse(readFileSync(json, 'utf8')).decision).toBe('pass');

    // The evaluation fails (exit 4).
    const failed = capture(ws.env);
    const error = (await runPlan(
      { route: route(suite.sanctioned), chdir: ws.dir, reports },
      { ...failed.context, openEvaluator: failing },
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.exitCode).toBe(ExitCode.noDecision);
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({
      decision: 'no_decision',
      error: { code: 'evaluation_failed', message: expect.stringContaining('engine exploded') },
    });
    expect(readFileSync(junit, 'utf8')).toMatch(
      /errors="1"[\s\S]*<error message="no decision: [^"]*engine exploded/,
    );
    expect(failed.stdout()).toBe('');

    // The bundle does not verify (apply, while terraform plans): exit 4, the same.
    writeFileSync(json, '{"decision": "pass"}');
    const tampered = join(suite.keys.dir, 'tampered-report.tar.gz');
    const bytes = readFileSync(suite.sanctioned.bundle);
    bytes[bytes.length - 10] = (bytes[bytes.length - 10] ?? 0) ^ 0xff;
    writeFileSync(tampered, bytes);
    const refused = (await runApply(
      {
        route: { kind: 'bundle', bundle: tampered, publicKey: suite.sanctioned.publicKey },
        chdir: ws.dir,
        reports,
      },
      capture(ws.env).context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(refused.name).toBe('BundleVerificationError');
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({
      decision: 'no_decision',
      error: { message: refused.message },
    });
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('--advisory goes ahead without a decision, and the report says so', async () => {
    const ws = workspace();
    const text = join(ws.dir, 'report.txt');
    writeFileSync(text, 'PASS: 0 blocking findings (an earlier run)\n');
    const result = await runPlan(
      {
        route: route(suite.sanctioned),
        chdir: ws.dir,
        advisory: true,
        reports: [{ format: 'text', path: text }],
      },
      { ...capture(ws.env).context, openEvaluator: failing },
    );
    expect(result.exitCode).toBe(ExitCode.ok);
    expect(readFileSync(text, 'utf8')).toMatch(
      /^ADVISORY: no decision \(the plan could not be evaluated: engine exploded\); not enforced because --advisory was given\n/,
    );
  });
});

describe('tfgate plan and apply --plan-file', () => {
  it('keeps a passing plan at --out, which apply --plan-file evaluates again and applies', async () => {
    const ws = workspace();
    const out = join(ws.dir, 'reviewed.tfplan');
    const planned = await runPlan(
      { route: route(suite.sanctioned), chdir: ws.dir, out },
      capture(ws.env).context,
    );
    expect(planned).toMatchObject({ status: 'passed', exitCode: ExitCode.ok, planFile: out });
    expect(ws.stateAddresses()).toEqual([]);
    const applied = await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, planFile: out },
      capture(ws.env).context,
    );
    expect(applied.status).toBe('applied');
    expect(ws.stateAddresses()).toHaveLength(2);
  });

  it('apply --plan-file runs terraform where the plan was made, from any directory; apply flags may take their value apart', async () => {
    await buildCli();
    const ws = workspace();
    const out = join(ws.dir, 'reviewed.tfplan');
    const planned = await runPlan(
      { route: route(suite.sanctioned), chdir: ws.dir, out },
      capture(ws.env).context,
    );
    expect(planned).toMatchObject({ status: 'passed', planFile: out });
    // Applied from another directory, with no --chdir: terraform used that directory's (empty) state.
    const elsewhere = mkdtempSync(join(tmpdir(), 'tfgate-elsewhere-'));
    try {
      const result = await runCli(
        [
          'apply',
          '--bundle',
          suite.sanctioned.bundle,
          '--public-key',
          suite.sanctioned.publicKey,
          '--plan-file',
          out,
          '--',
          '-lock-timeout',
          '5s',
        ],
        { cwd: elsewhere, env: { TF_CLI_CONFIG_FILE: String(ws.env.TF_CLI_CONFIG_FILE) } },
      );
      expect(result.exitCode, result.stderr).toBe(ExitCode.ok);
      expect(ws.stateAddresses()).toEqual(['terraform_data.ledger[0]', 'terraform_data.queue']);
      expect(readdirSync(elsewhere)).toEqual([]);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('takes --chdir and -chdir naming one directory however spelled; two directories are a usage error', async () => {
    const ws = workspace();
    const same = await runPlan(
      { route: route(suite.sanctioned), chdir: ws.dir, terraformArgs: [`-chdir=${ws.dir}/./`] },
      capture(ws.env).context,
    );
    expect(same).toMatchObject({ status: 'passed', exitCode: ExitCode.ok });
    const other = (await runPlan(
      { route: route(suite.sanctioned), chdir: ws.dir, terraformArgs: [`-chdir=${ws.dir}/..`] },
      capture(ws.env).context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(other.code).toBe('conflicting_chdir');
  });

  it('does not keep a blocked plan, and removes a stale one already at --out', async () => {
    const ws = workspace();
    // An earlier plan someone might apply: terraform's own saved plan.
    const out = await ws.plan([], 'reviewed.tfplan');
    const planned = await runPlan(
      { route: route(suite.strict), chdir: ws.dir, out },
      capture(ws.env).context,
    );
    expect(planned.exitCode).toBe(ExitCode.blocked);
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    ['a state file', 'terraform.tfstate', '{"version": 4, "serial": 7, "resources": []}\n'],
    ['a text file', 'notes.txt', 'an old plan someone might apply\n'],
    ['a zip that is not a plan', 'archive.zip', 'PK\u0003\u0004 not a plan at all'],
    [
      "OpenTofu's encrypted envelope (a plan or a state)",
      'encrypted.tfplan',
      '{"meta":{"key_provider.pbkdf2.k":"e30="},"encrypted_data":"AAAA","encryption_version":"v0"}',
    ],
  ])(
    'never removes %s at --out: refused (exit 1) before terraform starts, the file untouched',
    async (_what, name, content) => {
      const ws = workspace();
      const out = join(ws.dir, name);
      writeFileSync(out, content);
      const run = capture(ws.env);
      const error = (await runPlan({ route: route(suite.sanctioned), chdir: ws.dir, out }, run.context).catch(
        (e: unknown) => e,
      )) as TfgateError;
      expect(error.code).toBe('out_not_a_plan');
      expect(error.exitCode).toBe(ExitCode.usage);
      expect(error.message).toContain(`--out ${out} is`);
      expect(error.hint).toMatch(/another --out/);
      expect(readFileSync(out, 'utf8')).toBe(content);
      expect(run.progress()).not.toContain('> terraform plan');
    },
  );

  it('removes an earlier plan at --out only once everything is checked: a run refused before terraform keeps it', async () => {
    const ws = workspace();
    // Another release than the run's: byte for byte another plan (two plans of one configuration made within
    // the same two seconds are the same bytes).
    const out = await ws.plan(['-var=release=earlier'], 'reviewed.tfplan');
    const before = readFileSync(out);
    const refused = (await runPlan(
      {
        route: { ...route(suite.sanctioned), bundle: join(ws.dir, 'no-such-bundle.tar.gz') },
        chdir: ws.dir,
        out,
      },
      capture(ws.env).context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(refused.exitCode).toBe(ExitCode.usage);
    expect(readFileSync(out)).toEqual(before);
    // Checked and passing: the earlier plan is replaced by the one just evaluated.
    const planned = await runPlan(
      { route: route(suite.sanctioned), chdir: ws.dir, out },
      capture(ws.env).context,
    );
    expect(planned).toMatchObject({ status: 'passed', planFile: out });
    expect(readFileSync(out)).not.toEqual(before);
  });

  it('explains a stale saved plan: the state changed after planning', async () => {
    const ws = workspace();
    const out = join(ws.dir, 'reviewed.tfplan');
    await runPlan({ route: route(suite.sanctioned), chdir: ws.dir, out }, capture(ws.env).context);
    await ws.apply(['-var=release=v2']);
    const error = (await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, planFile: out },
      capture(ws.env).context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.code).toBe('stale_plan');
    expect(error.exitCode).toBe(ExitCode.terraform);
    expect(error.message).toMatch(/state changed after the plan was made/);
    expect(error.hint).toMatch(/run `tfgate apply` again/);
    // The state is v2's: the stale plan applied nothing.
    expect(JSON.stringify(ws.readState())).toContain('"v2"');
  });

  it('never applies a saved errored plan (terraform wrote it anyway): exit 2, explained', async () => {
    const ws = workspace();
    writeFileSync(
      join(ws.dir, 'check.tf'),
      'resource "terraform_data" "guarded" {\n  lifecycle {\n    precondition {\n      condition     = var.release == "v9"\n      error_message = "release must be v9"\n    }\n  }\n}\n',
    );
    await ws.run(['plan', '-input=false', '-no-color', '-out=errored.tfplan'], { allowFailure: true });
    expect(existsSync(join(ws.dir, 'errored.tfplan'))).toBe(true);
    const error = (await runApply(
      { route: route(suite.sanctioned), chdir: ws.dir, planFile: join(ws.dir, 'errored.tfplan') },
      capture(ws.env).context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.code).toBe('incomplete_plan');
    expect(error.exitCode).toBe(ExitCode.terraform);
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('rejects plan flags with --plan-file: they cannot change a saved plan', async () => {
    const ws = workspace();
    await expect(
      runApply(
        {
          route: route(suite.sanctioned),
          chdir: ws.dir,
          planFile: join(ws.dir, 'x'),
          terraformArgs: ['-var=a=b'],
        },
        capture(ws.env).context,
      ),
    ).rejects.toMatchObject({ code: 'plan_args_with_plan_file', exitCode: ExitCode.usage });
  });

  it('moves terraform output to stderr when a machine-readable report goes to stdout', async () => {
    const ws = workspace();
    const run = capture(ws.env);
    const result = await runPlan(
      { route: route(suite.strict), chdir: ws.dir, reports: [{ format: 'json' }] },
      run.context,
    );
    expect(result.exitCode).toBe(ExitCode.blocked);
    expect(JSON.parse(run.stdout())).toMatchObject({ decision: 'block' });
  });
});

import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TerraformError, UsageError } from '../../src/errors/index.js';
import {
  createPrivatePlanDir,
  explainFailure,
  parsePassThrough,
  parseVersionOutput,
  resolveTerraformCommand,
  Terraform,
} from '../../src/terraform/index.js';
import { requireTofu, TOFU_BIN } from '../helpers/terraform.js';
import { FAILING_PRECONDITION, makeWorkdir, ONE_RESOURCE, type Workdir } from './workdir.js';

describe('launch', () => {
  let work: Workdir | undefined;
  afterEach(async () => {
    await work?.dispose();
    work = undefined;
  });

  it('starts the plan first and identifies the binary (`version`) once its process has started', async () => {
    work = await makeWorkdir({ 'main.tf': ONE_RESOURCE });
    // The real terraform behind a script that logs each call with its process id: Linux hands out ids in
    // the order processes are created, where the log's line order is only the order the shells ran in.
    const log = join(work.dir, 'calls.log');
    const bin = join(work.dir, 'terraform-logged');
    await writeFile(bin, `#!/bin/sh\necho "$$ $*" >> "${log}"\nexec terraform "$@"\n`, { mode: 0o755 });
    const { terraform, identified } = Terraform.launch({
      bin,
      chdir: work.dir,
      env: work.env,
      stdout: 'stderr',
    });
    expect(await terraform.plan(join(work.dir, 'tfplan'), [])).toBe('changes');
    expect((await identified).product).toBe('terraform');
    const calls = (await readFile(log, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' '))
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(calls.map((call) => call.slice(1).find((arg) => !arg.startsWith('-')))).toEqual([
      'plan',
      'version',
    ]);
  });
});

describe('binary', () => {
  it('tells Terraform from OpenTofu by the version line', () => {
    expect(parseVersionOutput('terraform', 'Terraform v1.11.4\non linux_amd64\n')).toEqual({
      command: 'terraform',
      product: 'terraform',
      version: '1.11.4',
    });
    expect(parseVersionOutput('/opt/tofu', 'OpenTofu v1.9.0\non linux_amd64\n').product).toBe('opentofu');
    expect(() => parseVersionOutput('ls', 'something else')).toThrow(TerraformError);
  });

  it('takes --terraform-bin over TFGATE_TERRAFORM_BIN over the default', () => {
    expect(resolveTerraformCommand('tofu', { TFGATE_TERRAFORM_BIN: '/x/terraform' })).toBe('tofu');
    expect(resolveTerraformCommand(undefined, { TFGATE_TERRAFORM_BIN: '/x/terraform' })).toBe('/x/terraform');
    expect(resolveTerraformCommand(undefined, {})).toBe('terraform');
  });

  it('detects the real terraform on PATH', async () => {
    const tf = await Terraform.open({ env: { ...process.env, TFGATE_TERRAFORM_BIN: undefined } });
    expect(tf.binary.product).toBe('terraform');
    expect(tf.binary.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('explains a missing binary as a set-up error (exit 1): terraform never ran', async () => {
    const error = await Terraform.open({ bin: '/nonexistent/terraform' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe('terraform_not_found');
    expect((error as UsageError).exitCode).toBe(1);
    expect((error as UsageError).message).toBe('cannot run "/nonexistent/terraform": no such file');
  });
});

describe('pass-through arguments', () => {
  it('normalizes both flag forms and splits plan from apply flags', () => {
    const parsed = parsePassThrough(
      [
        '-var',
        'a=b',
        '-var-file=x.tfvars',
        '--target',
        'terraform_data.a',
        '-refresh=false',
        '-lock-timeout=5s',
        '-parallelism',
        '3',
      ],
      'terraform',
    );
    expect(parsed.plan).toEqual([
      '-var=a=b',
      '-var-file=x.tfvars',
      '-target=terraform_data.a',
      '-refresh=false',
      '-lock-timeout=5s',
      '-parallelism=3',
    ]);
    expect(parsed.apply).toEqual(['-lock-timeout=5s', '-parallelism=3']);
    expect(parsed.chdir).toBeUndefined();
  });

  it('takes -auto-approve, carried over from `terraform apply -auto-approve`, as what it does anyway', () => {
    for (const flag of ['-auto-approve', '--auto-approve', '-auto-approve=true']) {
      expect(parsePassThrough([flag, '-var=a=b'], 'terraform')).toEqual({
        chdir: undefined,
        plan: ['-var=a=b'],
        apply: [],
      });
    }
  });

  it('takes -chdir out of the plan arguments', () => {
    expect(parsePassThrough(['-chdir=infra', '-replace=terraform_data.a'], 'terraform')).toEqual({
      chdir: 'infra',
      plan: ['-replace=terraform_data.a'],
      apply: [],
    });
  });

  it('rejects the flags tfgate owns, unknown flags and positional arguments', () => {
    expect(() => parsePassThrough(['-out=x'], 'terraform')).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/^-out cannot be passed through/),
        hint: 'drop -out=x after --; tfgate sets what terraform needs itself',
      }),
    );
    expect(() => parsePassThrough(['-auto-approve=false'], 'terraform')).toThrow(UsageError);
    expect(() => parsePassThrough(['-frobnicate'], 'terraform')).toThrow(/-frobnicate is not passed through/);
    expect(() => parsePassThrough(['somedir'], 'terraform')).toThrow(/unexpected terraform argument/);
    expect(() => parsePassThrough(['-var'], 'terraform')).toThrow(/needs a value/);
  });

  it('passes OpenTofu-only flags for tofu alone, and tells a terraform user which binary has them', () => {
    expect(parsePassThrough(['-exclude', 'terraform_data.a'], 'opentofu').plan).toEqual([
      '-exclude=terraform_data.a',
    ]);
    // A binary not identified yet (a path with another name): terraform itself decides.
    expect(parsePassThrough(['-exclude=terraform_data.a'], undefined).plan).toEqual([
      '-exclude=terraform_data.a',
    ]);
    const error = (() => {
      try {
        parsePassThrough(['-exclude=terraform_data.a'], 'terraform');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe('-exclude is OpenTofu-only: terraform has no -exclude flag');
    expect((error as UsageError).hint).toMatch(/--terraform-bin tofu .*-target/);
  });
});

describe('failures', () => {
  it('explains a stale plan', () => {
    const error = explainFailure({
      step: 'apply',
      command: 'terraform',
      exitCode: 1,
      signal: undefined,
      stderr: '\u001b[31m│\u001b[0m \u001b[1mError: \u001b[0mSaved plan is stale\n',
    });
    expect(error.code).toBe('stale_plan');
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/state changed after the plan was made/);
    expect(error.details?.terraform_error).toBe('Saved plan is stale');
  });

  it('names the first terraform error when nothing in the table matches', () => {
    const error = explainFailure({
      step: 'plan',
      command: 'terraform',
      exitCode: 1,
      signal: undefined,
      stderr: '╷\n│ Error: Resource precondition failed\n│\n',
    });
    expect(error.code).toBe('terraform_plan_failed');
    expect(error.message).toBe('terraform plan exited with code 1: Resource precondition failed');
  });
});

describe('private plan directory', () => {
  it('is mode 0700 and removed on dispose', async () => {
    const planDir = await createPrivatePlanDir();
    expect((await stat(planDir.dir)).mode & 0o777).toBe(0o700);
    expect(planDir.planFile.startsWith(planDir.dir)).toBe(true);
    await planDir.dispose();
    expect(existsSync(planDir.dir)).toBe(false);
  });
});

describe('real terraform: plan, show -json, apply', () => {
  let work: Workdir | undefined;
  afterEach(async () => {
    await work?.dispose();
    work = undefined;
  });

  it('plans changes, streams show -json on every open(), applies, then sees no changes', async () => {
    work = await makeWorkdir({ 'main.tf': ONE_RESOURCE });
    const tf = await Terraform.open({ chdir: work.dir, env: work.env, color: false, stdout: 'stderr' });
    const planFile = join(work.dir, 'p.tfplan');
    expect(await tf.plan(planFile, ['-var=value=two'])).toBe('changes');

    const source = tf.showJson(planFile);
    expect(source.reopenable).toBe(true);
    for (let i = 0; i < 2; i++) {
      const plan = JSON.parse(await text(source.open())) as {
        resource_changes: Array<{ address: string; change: { actions: string[]; after: { input: string } } }>;
      };
      expect(plan.resource_changes[0]?.address).toBe('terraform_data.a');
      expect(plan.resource_changes[0]?.change.actions).toEqual(['create']);
      expect(plan.resource_changes[0]?.change.after.input).toBe('two');
    }
    expect(await work.stateList()).toEqual([]);
    await tf.apply(planFile, []);
    expect(await work.stateList()).toEqual(['terraform_data.a']);
    expect(await tf.plan(planFile, ['-var=value=two'])).toBe('no-changes');
  });

  it('runs from a relative -chdir with an absolute plan path', async () => {
    work = await makeWorkdir({ 'main.tf': ONE_RESOURCE });
    const tf = await Terraform.open({
      chdir: relative(process.cwd(), work.dir),
      env: work.env,
      color: false,
      stdout: 'stderr',
    });
    expect(await tf.plan(join(work.dir, 'rel.tfplan'), [])).toBe('changes');
    expect(existsSync(join(work.dir, 'rel.tfplan'))).toBe(true);
  });

  it('throws on an errored plan and removes the plan file terraform wrote anyway', async () => {
    work = await makeWorkdir({ 'main.tf': FAILING_PRECONDITION });
    const tf = await Terraform.open({ chdir: work.dir, env: work.env, color: false, stdout: 'stderr' });
    const planFile = join(work.dir, 'errored.tfplan');
    const error = await tf.plan(planFile, []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerraformError);
    expect((error as TerraformError).message).toMatch(/Resource precondition failed/);
    expect(existsSync(planFile)).toBe(false);
  });

  it('explains a stale plan when the state changed after planning', async () => {
    work = await makeWorkdir({ 'main.tf': ONE_RESOURCE });
    const tf = await Terraform.open({ chdir: work.dir, env: work.env, color: false, stdout: 'stderr' });
    const first = join(work.dir, 'first.tfplan');
    const second = join(work.dir, 'second.tfplan');
    await tf.plan(first, []);
    await tf.plan(second, []);
    await tf.apply(first, []);
    const error = await tf.apply(second, []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerraformError);
    expect((error as TerraformError).code).toBe('stale_plan');
  });

  it('explains a plan applied against another state (another directory or workspace): nothing applied', async () => {
    work = await makeWorkdir({ 'main.tf': ONE_RESOURCE });
    const other = await makeWorkdir({ 'main.tf': ONE_RESOURCE });
    try {
      const here = await Terraform.open({ chdir: work.dir, env: work.env, color: false, stdout: 'stderr' });
      const there = await Terraform.open({
        chdir: other.dir,
        env: other.env,
        color: false,
        stdout: 'stderr',
      });
      // Two states of their own (two lineages); a plan made against the first is applied where the second is.
      for (const [tf, dir] of [
        [here, work.dir],
        [there, other.dir],
      ] as const) {
        await tf.plan(join(dir, 'first.tfplan'), []);
        await tf.apply(join(dir, 'first.tfplan'), []);
      }
      const planFile = join(work.dir, 'again.tfplan');
      await here.plan(planFile, ['-var=value=two']);
      const error = (await there.apply(planFile, []).catch((e: unknown) => e)) as TerraformError;
      expect(error).toBeInstanceOf(TerraformError);
      expect(error.code).toBe('plan_for_other_state');
      expect(error.hint).toMatch(/^nothing was applied; apply the plan where it was made/);
    } finally {
      await other.dispose();
    }
  });

  it('fails the show stream with an explained error when the file is not a plan', async () => {
    work = await makeWorkdir({ 'main.tf': ONE_RESOURCE, 'bogus.tfplan': 'not a plan' });
    const tf = await Terraform.open({ chdir: work.dir, env: work.env, color: false });
    const error = await text(tf.showJson(join(work.dir, 'bogus.tfplan')).open()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerraformError);
    expect((error as TerraformError).exitCode).toBe(2);
    expect((error as TerraformError).code).toBe('invalid_plan_file');
    expect((error as TerraformError).code).toBe('invalid_plan_file');
  });
});

/** The real OpenTofu that scripts/setup-tools.sh installs: a missing tofu fails here, it is never skipped. */
describe('real OpenTofu (tofu)', () => {
  let versionLine: string;
  let work: Workdir | undefined;
  beforeAll(async () => {
    versionLine = await requireTofu();
  });
  afterEach(async () => {
    await work?.dispose();
    work = undefined;
  });

  it('is identified as OpenTofu by --terraform-bin tofu, by TFGATE_TERRAFORM_BIN=tofu, and by launch()', async () => {
    const byFlag = await Terraform.open({
      bin: TOFU_BIN,
      env: { ...process.env, TFGATE_TERRAFORM_BIN: 'terraform' },
    });
    expect(byFlag.binary).toEqual({
      command: 'tofu',
      product: 'opentofu',
      version: expect.stringMatching(/^1\.\d+\.\d+$/),
    });
    expect(versionLine).toBe(`OpenTofu v${byFlag.binary.version}`);
    expect(byFlag.description).toBe(`OpenTofu ${byFlag.binary.version}`);

    const byEnv = await Terraform.open({ env: { ...process.env, TFGATE_TERRAFORM_BIN: TOFU_BIN } });
    expect(byEnv.binary).toEqual(byFlag.binary);

    // launch() guesses the product from the name at once, then settles on the version line.
    const { terraform, identified } = Terraform.launch({ bin: TOFU_BIN });
    expect(terraform.binary).toMatchObject({ product: 'opentofu', version: 'unknown' });
    expect(await identified).toEqual(byFlag.binary);
    expect(terraform.binary).toEqual(byFlag.binary);
  });

  it('plans with -exclude passed through, streams show -json, applies: the excluded resource stays out', async () => {
    work = await makeWorkdir(
      { 'main.tf': `${ONE_RESOURCE}resource "terraform_data" "b" {}\n` },
      { bin: TOFU_BIN },
    );
    const tf = await Terraform.open({
      bin: TOFU_BIN,
      chdir: work.dir,
      env: work.env,
      color: false,
      stdout: 'stderr',
    });
    const args = parsePassThrough(['-exclude', 'terraform_data.b'], tf.binary.product);
    const planFile = join(work.dir, 'tofu.tfplan');
    expect(await tf.plan(planFile, args.plan)).toBe('changes');
    const plan = JSON.parse(await text(tf.showJson(planFile).open())) as {
      terraform_version: string;
      resource_changes: Array<{ address: string; change: { actions: string[] } }>;
    };
    expect(plan.terraform_version).toBe(tf.binary.version);
    expect(plan.resource_changes.map((rc) => [rc.address, rc.change.actions])).toEqual([
      ['terraform_data.a', ['create']],
    ]);
    await tf.apply(planFile, args.apply);
    expect(await work.stateList()).toEqual(['terraform_data.a']);
    expect(await tf.plan(planFile, args.plan)).toBe('no-changes');
  });

  it("explains OpenTofu's own failures with hints naming tofu: module not installed, stale plan", async () => {
    work = await makeWorkdir(
      { 'main.tf': `${ONE_RESOURCE}module "m" {\n  source = "./m"\n}\n` },
      { bin: TOFU_BIN },
    );
    const tf = await Terraform.open({
      bin: TOFU_BIN,
      chdir: work.dir,
      env: work.env,
      color: false,
      stdout: 'stderr',
    });
    const notInit = (await tf
      .plan(join(work.dir, 'x.tfplan'), [])
      .catch((e: unknown) => e)) as TerraformError;
    expect(notInit).toBeInstanceOf(TerraformError);
    expect(notInit.code).toBe('init_required');
    expect(notInit.hint).toBe('run `tofu init` in the configuration directory first');

    await work.write('main.tf', ONE_RESOURCE);
    const first = join(work.dir, 'first.tfplan');
    const second = join(work.dir, 'second.tfplan');
    await tf.plan(first, []);
    await tf.plan(second, []);
    await tf.apply(first, []);
    const stale = (await tf.apply(second, []).catch((e: unknown) => e)) as TerraformError;
    expect(stale.code).toBe('stale_plan');
    expect(stale.exitCode).toBe(2);
  });

  it('throws on an errored OpenTofu plan and removes the plan file it wrote anyway', async () => {
    work = await makeWorkdir({ 'main.tf': FAILING_PRECONDITION }, { bin: TOFU_BIN });
    const tf = await Terraform.open({
      bin: TOFU_BIN,
      chdir: work.dir,
      env: work.env,
      color: false,
      stdout: 'stderr',
    });
    const planFile = join(work.dir, 'errored.tfplan');
    const error = (await tf.plan(planFile, []).catch((e: unknown) => e)) as TerraformError;
    expect(error).toBeInstanceOf(TerraformError);
    expect(error.message).toMatch(/Resource precondition failed/);
    expect(existsSync(planFile)).toBe(false);
  });
});

import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, describe, expect, it } from 'vitest';
import { TerraformError, UsageError } from '../../src/errors/index.js';
import {
  createPrivatePlanDir,
  explainFailure,
  parsePassThrough,
  parseVersionOutput,
  resolveTerraformCommand,
  Terraform,
} from '../../src/terraform/index.js';
import { FAILING_PRECONDITION, makeWorkdir, ONE_RESOURCE, type Workdir } from './workdir.js';

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

  it('runs a binary at a path, identified as OpenTofu by its version line (stand-in script delegating to the real terraform: OpenTofu is not installable here)', async () => {
    const bin = await mkdtemp(join(tmpdir(), 'tfgate-tofu-'));
    const tofu = join(bin, 'tofu');
    await writeFile(
      tofu,
      '#!/bin/sh\nif [ "$1" = version ]; then echo "OpenTofu v1.9.0"; echo "on linux_amd64"; exit 0; fi\nexec terraform "$@"\n',
    );
    await chmod(tofu, 0o755);
    const work = await makeWorkdir({ 'main.tf': ONE_RESOURCE });
    try {
      const tf = await Terraform.open({
        env: { ...work.env, TFGATE_TERRAFORM_BIN: tofu },
        chdir: work.dir,
        stdout: 'stderr',
      });
      expect(tf.binary).toEqual({ command: tofu, product: 'opentofu', version: '1.9.0' });
      expect(tf.description).toBe('OpenTofu 1.9.0');
      const planFile = join(work.dir, 'tofu.tfplan');
      expect(await tf.plan(planFile, [])).toBe('changes');
      await tf.apply(planFile, []);
      expect(await work.stateList()).toEqual(['terraform_data.a']);
      // Hints name the binary the user runs.
      const error = explainFailure({
        step: 'plan',
        command: tofu,
        exitCode: 1,
        signal: undefined,
        stderr: 'Error: Backend initialization required',
      });
      expect(error.hint).toBe(`run \`${tofu} init\` in the configuration directory first`);
    } finally {
      await work.dispose();
      await rm(bin, { recursive: true, force: true });
    }
  });

  it('explains a missing binary as a terraform failure (exit 2)', async () => {
    const error = await Terraform.open({ bin: '/nonexistent/terraform' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerraformError);
    expect((error as TerraformError).code).toBe('terraform_not_found');
    expect((error as TerraformError).exitCode).toBe(2);
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

  it('takes -chdir out of the plan arguments', () => {
    expect(parsePassThrough(['-chdir=infra', '-replace=terraform_data.a'], 'terraform')).toEqual({
      chdir: 'infra',
      plan: ['-replace=terraform_data.a'],
      apply: [],
    });
  });

  it('rejects the flags tfgate owns, unknown flags and positional arguments', () => {
    expect(() => parsePassThrough(['-out=x'], 'terraform')).toThrow(/cannot be passed through/);
    expect(() => parsePassThrough(['-auto-approve'], 'terraform')).toThrow(UsageError);
    expect(() => parsePassThrough(['-frobnicate'], 'terraform')).toThrow(/-frobnicate is not passed through/);
    expect(() => parsePassThrough(['somedir'], 'terraform')).toThrow(/unexpected terraform argument/);
    expect(() => parsePassThrough(['-var'], 'terraform')).toThrow(/needs a value/);
  });

  it('passes OpenTofu-only flags for tofu alone', () => {
    expect(parsePassThrough(['-exclude=terraform_data.a'], 'opentofu').plan).toEqual([
      '-exclude=terraform_data.a',
    ]);
    expect(() => parsePassThrough(['-exclude=terraform_data.a'], 'terraform')).toThrow(UsageError);
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

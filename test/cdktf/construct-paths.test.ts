// Plan address -> construct path, read from a real synth's "//" metadata (both toolkits).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Construct } from 'constructs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  constructPathOf,
  constructPathsForPlan,
  readConstructPaths,
  resolveCdktfStack,
} from '../../src/cdktf/index.js';
import { cloudResource, type TempDir, TOOLKITS, tempDir } from './helpers.js';

let out: TempDir;
afterEach(() => out?.cleanup());

describe.each(TOOLKITS)('construct paths from a %s synth', (toolkitName, tk) => {
  it('maps resources (instances included) and module contents to their constructs', () => {
    out = tempDir(`${toolkitName}-paths`);
    const app = new tk.App({ outdir: out.dir });
    const stack = new tk.TerraformStack(app, 'web');
    new tk.LocalBackend(stack, { path: 'terraform.tfstate' });
    const ledger = new tk.DataResource(stack, 'ledger', {});
    const tier = new Construct(new Construct(stack, 'api'), 'tier');
    const workers = new tk.DataResource(tier, 'workers', { count: 2 });
    const bucket = new (cloudResource(tk, 'aws_s3_bucket'))(tier, 'bucket');
    new tk.TerraformHclModule(stack, 'network', {
      source: 'terraform-aws-modules/vpc/aws',
      version: '5.0.0',
    });
    app.synth();

    const paths = readConstructPaths(out.dir, 'web');
    expect(paths.get('terraform_data.ledger')).toBe('web/ledger');
    expect(paths.get(`terraform_data.${workers.friendlyUniqueId}`)).toBe('web/api/tier/workers');
    expect(paths.get(`aws_s3_bucket.${bucket.friendlyUniqueId}`)).toBe('web/api/tier/bucket');
    expect(paths.get('module.network')).toBe('web/network');

    const planned = [
      `terraform_data.${ledger.friendlyUniqueId}`,
      `terraform_data.${workers.friendlyUniqueId}[1]`,
      'module.network.aws_subnet.private["a]b"]',
      'terraform_data.not_from_cdktf',
    ];
    expect(Object.fromEntries(constructPathsForPlan(out.dir, 'web', planned))).toEqual({
      'terraform_data.ledger': 'web/ledger',
      [`terraform_data.${workers.friendlyUniqueId}[1]`]: 'web/api/tier/workers',
      'module.network.aws_subnet.private["a]b"]': 'web/network',
    });
  });
});

describe('resolveCdktfStack (tfgate apply --cdktf-stack)', () => {
  it("finds the stack under cdktf.json's output directory and maps plan addresses", () => {
    out = tempDir('resolve');
    writeFileSync(
      join(out.dir, 'cdktf.json'),
      JSON.stringify({ language: 'typescript', app: 'x', output: 'build/tf' }),
    );
    mkdirSync(join(out.dir, 'build', 'tf'), { recursive: true });
    const app = new TOOLKITS[0]![1].App({ outdir: join(out.dir, 'build', 'tf') });
    const stack = new TOOLKITS[0]![1].TerraformStack(app, 'web');
    new TOOLKITS[0]![1].DataResource(stack, 'ledger', {});
    app.synth();

    const target = resolveCdktfStack('web', { projectDir: out.dir });
    expect(target.workingDirectory).toBe(join(out.dir, 'build', 'tf', 'stacks', 'web'));
    expect(
      Object.fromEntries(target.constructPaths(['terraform_data.ledger', 'terraform_data.other'])),
    ).toEqual({
      'terraform_data.ledger': 'web/ledger',
    });
    expect(() => resolveCdktfStack('web', { projectDir: out.dir, outdir: 'cdktf.out' })).toThrow(
      /no synthesized CDKTF stack "web"/,
    );
  });
});

describe('construct paths: errors and edge cases', () => {
  it('names the stacks that exist when the stack was not synthesized', () => {
    out = tempDir('paths-missing');
    mkdirSync(join(out.dir, 'stacks', 'platform'), { recursive: true });
    mkdirSync(join(out.dir, 'stacks', 'storage'), { recursive: true });
    expect(() => readConstructPaths(out.dir, 'plattform')).toThrow(
      /no synthesized CDKTF stack "plattform": .* \(stacks in .*: platform, storage\)/,
    );
  });

  it('explains a cdk.tf.json that is not JSON, naming the file', () => {
    out = tempDir('paths-bad');
    const dir = join(out.dir, 'stacks', 'web');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cdk.tf.json'), '{"resource": ');
    expect(() => readConstructPaths(out.dir, 'web')).toThrow(/cdk\.tf\.json is not valid JSON/);
  });

  it('strips instance keys, including quoted keys with brackets, and ignores "//" keys', () => {
    const paths = new Map([
      ['aws_x.a', 'stack/a'],
      ['module.m', 'stack/m'],
    ]);
    expect(constructPathOf(paths, 'aws_x.a["k]"]')).toBe('stack/a');
    expect(constructPathOf(paths, 'aws_x.a[12]')).toBe('stack/a');
    expect(constructPathOf(paths, 'module.m[0].module.n.aws_y.b')).toBe('stack/m');
    expect(constructPathOf(paths, 'aws_x.b')).toBeUndefined();
  });
});

// Real terraform: plans and a state with every shape terraform_data can produce here, read by the streaming
// readers and compared with JSON.parse of the same bytes.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceChange } from '../../src/model/index.js';
import { readPlan } from '../../src/plan/read-plan.js';
import { readObservedState } from '../../src/plan/read-state.js';
import { fileSource } from '../../src/plan/source.js';
import { streamOf } from './helpers.js';

const SECRET = 'TOP-SECRET-hunter2';

const COMMON = `
variable "secret" {
  type      = string
  default   = "${SECRET}"
  sensitive = true
}
variable "gen" { default = "1" }
variable "fail" { default = false }

resource "terraform_data" "keep" { input = "keep" }
resource "terraform_data" "each" {
  for_each = toset(["a", "ünï", "日本"])
  input    = var.secret
}
resource "terraform_data" "rep" { triggers_replace = [var.gen] }
resource "terraform_data" "cbd" {
  triggers_replace = [var.gen]
  lifecycle { create_before_destroy = true }
}
# Replaced create-before-destroy with a failing provisioner: the old object stays, deposed.
resource "terraform_data" "dep" {
  triggers_replace = [var.gen]
  lifecycle { create_before_destroy = true }
  provisioner "local-exec" { command = var.fail ? "exit 1" : "true" }
}
module "child" { source = "./child" }
`;

const V1 = `${COMMON}
resource "terraform_data" "upd" { input = "v1" }
resource "terraform_data" "del" { input = "deleted next" }
resource "terraform_data" "old" { input = "moving" }
resource "terraform_data" "forgotten" { input = "kept outside terraform" }
resource "terraform_data" "counted" {
  count = 2
  input = "count-\${count.index}"
}
`;

const V2 = `${COMMON}
resource "terraform_data" "upd" { input = "v2" }
resource "terraform_data" "renamed" { input = "moving" }
moved {
  from = terraform_data.old
  to   = terraform_data.renamed
}
removed {
  from = terraform_data.forgotten
  lifecycle { destroy = false }
}
import {
  to = terraform_data.imported
  id = "imported-id"
}
resource "terraform_data" "imported" {}
resource "terraform_data" "new" { input = var.secret }
resource "terraform_data" "counted" {
  count = 1
  input = "count-\${count.index}"
}
# Its config is unknown until apply, so the read is planned: actions ["read"].
data "terraform_remote_state" "later" {
  backend = "local"
  config  = { path = terraform_data.new.output }
}
`;

const CHILD = `
resource "terraform_data" "inner" {
  input = { password = "${SECRET}" }
}
`;

let dir = '';
let planPath = '';
let statePath = '';
let destroyPlanPath = '';

async function terraform(args: string[], reject = true) {
  return execa('terraform', args, {
    cwd: dir,
    reject,
    env: { TF_CLI_CONFIG_FILE: join(dir, '.terraformrc'), TF_IN_AUTOMATION: '1', TF_INPUT: '0' },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tfgate-plan-shapes-'));
  writeFileSync(join(dir, '.terraformrc'), '');
  mkdirSync(join(dir, 'child'));
  writeFileSync(join(dir, 'child', 'main.tf'), CHILD);
  writeFileSync(join(dir, 'main.tf'), V1);
  await terraform(['init', '-input=false']);
  await terraform(['apply', '-auto-approve', '-input=false']);
  const failed = await terraform(
    [
      'apply',
      '-auto-approve',
      '-input=false',
      '-target=terraform_data.dep',
      '-var',
      'gen=2',
      '-var',
      'fail=true',
    ],
    false,
  );
  expect(failed.exitCode).not.toBe(0);
  statePath = join(dir, 'state.json');
  writeFileSync(statePath, (await terraform(['show', '-json'])).stdout);
  writeFileSync(join(dir, 'main.tf'), V2);
  await terraform(['plan', '-input=false', '-var', 'gen=2', '-out=tfplan']);
  planPath = join(dir, 'plan.json');
  writeFileSync(planPath, (await terraform(['show', '-json', 'tfplan'])).stdout);
  await terraform(['plan', '-destroy', '-input=false', '-out=destroy.tfplan']);
  destroyPlanPath = join(dir, 'destroy.json');
  writeFileSync(destroyPlanPath, (await terraform(['show', '-json', 'destroy.tfplan'])).stdout);
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Raw = Record<string, unknown> & { change: Record<string, unknown> };

/** JSON.parse of the same file, reduced by hand to the kept fields. */
function expectedChanges(path: string): unknown[] {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { resource_changes?: Raw[] };
  const keep = [
    'address',
    'module_address',
    'mode',
    'type',
    'name',
    'index',
    'provider_name',
    'deposed',
    'previous_address',
  ];
  return (raw.resource_changes ?? []).map((rc) => {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(rc)) if (keep.includes(key)) out[key] = rc[key];
    out.change = {
      actions: rc.change.actions,
      ...('importing' in rc.change ? { importing: rc.change.importing } : {}),
    };
    return out;
  });
}

function byAddress(changes: ResourceChange[], address: string, deposed = false): ResourceChange {
  const found = changes.find((rc) => rc.address === address && (rc.deposed !== undefined) === deposed);
  if (!found) throw new Error(`no change for ${address}${deposed ? ' (deposed)' : ''}`);
  return found;
}

describe('readPlan on plans from real terraform', () => {
  it('equals JSON.parse of the same file reduced to the kept fields, and drops the secrets', async () => {
    const text = readFileSync(planPath, 'utf8');
    expect(text).toContain(SECRET);
    const source = fileSource(planPath);
    const plan = await readPlan(source.open(), { description: source.description });
    expect(plan.format_version).toBe(JSON.parse(text).format_version);
    expect(plan.terraform_version).toBe(JSON.parse(text).terraform_version);
    expect(plan.resource_changes).toEqual(expectedChanges(planPath));
    expect(JSON.stringify(plan)).not.toContain(SECRET);
    expect(Object.keys(plan)).toEqual(['format_version', 'terraform_version', 'resource_changes']);
  });

  it('gives the same result fed one byte at a time and in random chunks', async () => {
    const bytes = readFileSync(planPath);
    const whole = await readPlan(streamOf(bytes, 'whole'));
    expect(await readPlan(streamOf(bytes, 'bytes'))).toEqual(whole);
    for (const seed of [3, 5, 7]) expect(await readPlan(streamOf(bytes, 'random', seed))).toEqual(whole);
  });

  it('has every action shape terraform 1.11 produces with terraform_data', async () => {
    const { resource_changes: changes } = await readPlan(fileSource(planPath).open());
    expect(byAddress(changes, 'terraform_data.keep').change).toEqual({ actions: ['no-op'] });
    expect(byAddress(changes, 'terraform_data.upd').change.actions).toEqual(['update']);
    expect(byAddress(changes, 'terraform_data.new').change.actions).toEqual(['create']);
    expect(byAddress(changes, 'terraform_data.del').change.actions).toEqual(['delete']);
    expect(byAddress(changes, 'terraform_data.counted[1]')).toMatchObject({
      index: 1,
      change: { actions: ['delete'] },
    });
    expect(byAddress(changes, 'terraform_data.rep').change.actions).toEqual(['delete', 'create']);
    expect(byAddress(changes, 'terraform_data.cbd').change.actions).toEqual(['create', 'delete']);
    expect(byAddress(changes, 'terraform_data.forgotten').change.actions).toEqual(['forget']);
    expect(byAddress(changes, 'data.terraform_remote_state.later')).toMatchObject({
      mode: 'data',
      change: { actions: ['read'] },
    });
    expect(byAddress(changes, 'terraform_data.imported').change).toEqual({
      actions: ['no-op'],
      importing: { id: 'imported-id' },
    });
    expect(byAddress(changes, 'terraform_data.renamed')).toMatchObject({
      previous_address: 'terraform_data.old',
      change: { actions: ['no-op'] },
    });
    const deposed = byAddress(changes, 'terraform_data.dep', true);
    expect(deposed.deposed).toMatch(/^[0-9a-f]{8}$/);
    expect(deposed.change.actions).toEqual(['delete']);
    expect(byAddress(changes, 'terraform_data.each["日本"]').index).toBe('日本');
    expect(byAddress(changes, 'module.child.terraform_data.inner').module_address).toBe('module.child');
  });

  it('reads a destroy plan', async () => {
    const plan = await readPlan(fileSource(destroyPlanPath).open());
    expect(plan.resource_changes).toEqual(expectedChanges(destroyPlanPath));
    expect(plan.resource_changes.some((rc) => rc.change.actions.join() === 'delete')).toBe(true);
  });

  it('refuses the state JSON as a plan', async () => {
    await expect(readPlan(fileSource(statePath).open(), { description: 'state.json' })).rejects.toThrow(
      /state\.json is not a Terraform plan in JSON: .*this is a state, not a plan/,
    );
  });
});

describe('readObservedState on a state from real terraform', () => {
  it('flattens root and child modules, keeps deposed objects, and drops the values', async () => {
    const text = readFileSync(statePath, 'utf8');
    expect(text).toContain(SECRET);
    const state = await readObservedState(fileSource(statePath).open(), { description: 'state.json' });
    expect(JSON.stringify(state)).not.toContain(SECRET);
    type Module = { address?: string; resources?: Record<string, unknown>[]; child_modules?: Module[] };
    const raw = JSON.parse(text) as {
      format_version: string;
      terraform_version: string;
      values: { root_module: Module };
    };
    const expected: unknown[] = [];
    const walk = (module: Module) => {
      for (const r of module.resources ?? []) {
        expected.push({
          address: r.address,
          mode: r.mode,
          type: r.type,
          name: r.name,
          ...(module.address ? { module_address: module.address } : {}),
        });
      }
      for (const child of module.child_modules ?? []) walk(child);
    };
    walk(raw.values.root_module);
    expect(state).toEqual({
      format_version: raw.format_version,
      terraform_version: raw.terraform_version,
      resources: expected,
    });
    expect(
      state.resources.find((r) => r.address === 'module.child.terraform_data.inner')?.module_address,
    ).toBe('module.child');
    // The deposed object is still a live object: it is listed beside the current one (deposed_key is dropped).
    expect(state.resources.filter((r) => r.address === 'terraform_data.dep')).toHaveLength(2);
  });

  it('refuses a plan as a state', async () => {
    await expect(
      readObservedState(fileSource(planPath).open(), { description: 'plan.json' }),
    ).rejects.toThrow(/plan\.json is not a Terraform state in JSON: .*this is a plan, not a state/);
  });
});

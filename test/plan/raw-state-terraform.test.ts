// readRawState against the real terraform and tofu: a configuration applied by each (terraform_data in the
// root, count, for_each over hostile keys, nested modules with count and for_each, terraform_remote_state
// data sources, a deposed object), then `state pull`. What tfgate reads from the raw state must equal what
// `show -json` on the same state lists (read by readObservedState), as a whole and address by address.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: terraform template syntax throughout, meant literally.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObservedResource } from '../../src/model/index.js';
import { readRawState } from '../../src/plan/read-raw-state.js';
import { readObservedState } from '../../src/plan/read-state.js';
import { TERRAFORM_BIN, TerraformWorkspace, TOFU_BIN } from '../helpers/terraform.js';
import { streamOf } from './helpers.js';

/** for_each keys Terraform must quote: escapes, template introducers, controls, non-ASCII, non-printables. */
const HOSTILE_KEYS = [
  'plain',
  '',
  'q"uote',
  'back\\slash',
  '${x}',
  '$${y}',
  '%{ if }',
  '%%{z}',
  '$',
  '%',
  '{',
  'new\nline',
  'tab\there',
  'cr\rx',
  'é-ü-中',
  'emoji 😀',
  '\u0001\u007f',
  'nbsp\u00a0',
  'zero-width\u200b',
  'line-separator\u2028',
  'nel\u0085',
  'bom\ufeff',
  'private-use\ue000',
  'astral-private-use\u{f0000}',
  'tag\u{e0001}',
  // Assigned in Unicode 16 (Node's tables know it, Go's 15.0 do not: Terraform escapes it).
  'unicode-16\u{1c89}',
  'unassigned\u0378',
];

const config = (dir: string) => {
  mkdirSync(join(dir, 'mod', 'inner'), { recursive: true });
  writeFileSync(
    join(dir, 'other.tfstate'),
    JSON.stringify({
      version: 4,
      terraform_version: '1.11.4',
      serial: 1,
      lineage: '00000000-0000-4000-8000-000000000000',
      outputs: { o: { value: 'v', type: 'string' } },
      resources: [],
    }),
  );
  const remote = (path: string) => ({ backend: 'local', config: { path } });
  writeFileSync(
    join(dir, 'main.tf.json'),
    JSON.stringify({
      variable: { keys: { type: 'list(string)' }, v: { default: '1' }, fail: { default: false } },
      resource: {
        terraform_data: {
          single: { input: 'x' },
          counted: { count: 3 },
          keyed: { for_each: '${toset(var.keys)}', input: '${each.key}' },
          // A replacement whose create fails (its provisioner) leaves the old object deposed.
          deposing: {
            triggers_replace: '${var.v}',
            lifecycle: { create_before_destroy: true },
            provisioner: { 'local-exec': { command: '${var.fail ? "false" : "true"}' } },
          },
        },
      },
      data: { terraform_remote_state: { other: remote('${path.module}/other.tfstate') } },
      module: {
        outer: { source: './mod', count: 2, keys: '${var.keys}' },
        single: { source: './mod', keys: ['a', 'b"'] },
      },
    }),
  );
  writeFileSync(
    join(dir, 'mod', 'main.tf.json'),
    JSON.stringify({
      variable: { keys: { type: 'list(string)' } },
      resource: { terraform_data: { here: { count: 2 } } },
      module: { inner: { source: './inner', for_each: '${toset(var.keys)}' } },
    }),
  );
  writeFileSync(
    join(dir, 'mod', 'inner', 'main.tf.json'),
    JSON.stringify({
      resource: { terraform_data: { leaf: { input: 'y' }, many: { count: 2 } } },
      data: { terraform_remote_state: { deep: remote('${path.root}/other.tfstate') } },
    }),
  );
  writeFileSync(join(dir, 'terraform.tfvars.json'), JSON.stringify({ keys: HOSTILE_KEYS }));
};

const canonical = (r: ObservedResource) =>
  JSON.stringify([r.address, r.mode, r.type, r.name, r.module_address]);

let source: string;
beforeAll(() => {
  source = mkdtempSync(join(tmpdir(), 'tfgate-rawstate-'));
  config(source);
});
afterAll(() => rmSync(source, { recursive: true, force: true }));

describe.each([
  ['terraform', TERRAFORM_BIN],
  ['tofu', TOFU_BIN],
])('the raw state %s wrote reads as its show -json lists it', (_name, bin) => {
  let workspace: TerraformWorkspace;
  let raw: string;
  let shown: string;
  beforeAll(async () => {
    workspace = TerraformWorkspace.create(source, { bin });
    await workspace.init();
    await workspace.apply();
    const failed = await workspace.apply(['-var', 'v=2', '-var', 'fail=true'], { allowFailure: true });
    expect(failed.exitCode).toBe(1);
    raw = (await workspace.run(['state', 'pull'])).stdout;
    shown = await workspace.showStateJson();
  }, 300_000);
  afterAll(() => workspace?.cleanup());

  it('the same resources, address by address, current and deposed objects alike', async () => {
    const fromRaw = (await readRawState(streamOf(raw, 'random'))).state.resources;
    const fromShow = (await readObservedState(streamOf(shown))).resources;
    expect(fromRaw.map(canonical).sort()).toEqual(fromShow.map(canonical).sort());
    const byAddress = (list: ObservedResource[]) => {
      const map = new Map<string, string[]>();
      for (const r of list) map.set(r.address, [...(map.get(r.address) ?? []), canonical(r)]);
      return map;
    };
    const rawByAddress = byAddress(fromRaw);
    for (const [address, entries] of byAddress(fromShow)) expect(rawByAddress.get(address)).toEqual(entries);
    // The configuration's shapes are all there (so the comparison above covers them).
    expect(fromShow.filter((r) => r.address === 'terraform_data.deposing')).toHaveLength(2);
    const keyed = fromShow.filter((r) => r.address.startsWith('terraform_data.keyed['));
    expect(keyed).toHaveLength(HOSTILE_KEYS.length);
    expect(keyed.map((r) => r.address)).toContain('terraform_data.keyed["$${x}"]');
    expect(keyed.map((r) => r.address)).toContain('terraform_data.keyed["unicode-16\\u1c89"]');
    expect(fromShow.map((r) => r.address)).toContain('data.terraform_remote_state.other');
    expect(fromShow.map((r) => r.module_address)).toContain('module.outer[1].module.inner["new\\nline"]');
    expect(fromShow.map((r) => r.address)).toContain(
      'module.single.module.inner["b\\""].data.terraform_remote_state.deep',
    );
  });

  it('a hand-made backend state with Go-only readings is rewritten by state pull; the reader equals show', async () => {
    // Go's JSON reading (case-insensitive keys, a number's integer part) and HCL escapes in a module address
    // differ from JSON.parse's; `state pull` reads the backend's state with Terraform's own reader and writes
    // it again, so what tfgate reads is Terraform's canonical form.
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-rawstate-hostile-'));
    try {
      const builtin = 'provider[\\"terraform.io/builtin/terraform\\"]';
      const backendState = join(dir, 'backend.tfstate');
      writeFileSync(
        backendState,
        `{"version":4,"terraform_version":"1.11.4","serial":5,"lineage":"11111111-0000-4000-8000-000000000000",
        "outputs":{},"resources":[
        {"mode":"managed","Type":"terraform_data","NAME":"cased","provider":"${builtin}",
         "instances":[{"schema_version":0,"attributes":{"id":"a"}}]},
        {"mode":"data","mode":"managed","type":"terraform_data","name":"dup","provider":"${builtin}",
         "instances":[{"index_key":"x","index_key":1.0,"attributes":{"id":"b"}},{"index_key":2.7,"attributes":{"id":"c"}}]},
        {"module":"module.m[\\"\\\\u0041\\"]","mode":"managed","type":"terraform_data","name":"esc",
         "provider":"${builtin}","instances":[{"index_key":"$\${x}","attributes":{"id":"d"}}]}]}`,
      );
      const config = join(dir, 'config');
      mkdirSync(config);
      writeFileSync(
        join(config, 'main.tf.json'),
        JSON.stringify({ terraform: { backend: { local: { path: backendState } } } }),
      );
      const reader = TerraformWorkspace.create(config, { bin });
      try {
        await reader.run(['init', '-input=false', '-no-color', '-get=false']);
        const pulled = (await reader.run(['state', 'pull'])).stdout;
        writeFileSync(join(reader.dir, 'pulled.tfstate'), pulled);
        const show = (await reader.run(['show', '-json', '-no-color', 'pulled.tfstate'])).stdout;
        const fromRaw = (await readRawState(streamOf(pulled))).state.resources;
        const fromShow = (await readObservedState(streamOf(show))).resources;
        expect(fromRaw.map(canonical).sort()).toEqual(fromShow.map(canonical).sort());
        expect(fromRaw.map((r) => r.address).sort()).toEqual([
          'module.m["A"].terraform_data.esc["$$${x}"]',
          'terraform_data.cased',
          'terraform_data.dup[1]',
          'terraform_data.dup[2]',
        ]);
      } finally {
        reader.cleanup();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the same identity (serial, lineage) as JSON.parse reads', async () => {
    const { identity } = await readRawState(streamOf(raw));
    const parsed = JSON.parse(raw) as { serial: number; lineage: string };
    expect(identity).toEqual({ serial: parsed.serial, lineage: parsed.lineage });
  });
});

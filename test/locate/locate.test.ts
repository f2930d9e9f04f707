// The locator against hand-written HCL and JSON, and against configurations initialised and planned by the
// real terraform and tofu (nested local modules, count and for_each instances).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findHclBlocks,
  findJsonBlocks,
  HclLexError,
  locateAddresses,
  parseResourceAddress,
  readModulesManifest,
} from '../../src/locate/index.js';
import { LOCATE_FIXTURE, lineOf } from '../helpers/locate.js';
import { TerraformWorkspace, TOFU_BIN } from '../helpers/terraform.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tfgate-locate-'));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe('parseResourceAddress', () => {
  it('drops instance keys and keeps the module chain', () => {
    expect(parseResourceAddress('terraform_data.x')).toEqual({
      modules: [],
      mode: 'managed',
      type: 'terraform_data',
      name: 'x',
    });
    expect(parseResourceAddress('aws_x.y[0]')).toMatchObject({ modules: [], type: 'aws_x', name: 'y' });
    expect(parseResourceAddress('module.m["k"].aws_x.y')).toMatchObject({ modules: ['m'], name: 'y' });
    expect(parseResourceAddress('module.a[1].module.b["x.y[0]\\"]"].data.aws_z.w["k\\"]"]')).toEqual({
      modules: ['a', 'b'],
      mode: 'data',
      type: 'aws_z',
      name: 'w',
    });
    expect(parseResourceAddress('module.data.data.t.n')).toMatchObject({ modules: ['data'], mode: 'data' });
  });

  it('refuses what is not a resource instance address', () => {
    for (const bad of ['', 'x', 'module.m', 'aws_x.y[', 'aws_x.y["a]', 'aws_x.y[a]', 'aws_x.y.z', '1x.y']) {
      expect(parseResourceAddress(bad), bad).toBeUndefined();
    }
  });
});

describe('findHclBlocks', () => {
  it('finds the top-level blocks past comments, heredocs, strings and templates that look like blocks', () => {
    const file = join(LOCATE_FIXTURE, 'main.tf');
    expect(findHclBlocks(readFileSync(file, 'utf8'))).toEqual([
      { type: 'locals', labels: [], line: lineOf(file, 'locals {') },
      {
        type: 'resource',
        labels: ['terraform_data', 'counted'],
        line: lineOf(file, 'resource "terraform_data" "counted"'),
      },
      { type: 'module', labels: ['app'], line: lineOf(file, 'module "app"') },
    ]);
  });

  it('decodes labels, reads identifier labels, and counts lines in CRLF files and block comments', () => {
    const text = [
      '/* one',
      'two */ resource "a\\u0062" "c\\"d" {',
      '}',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: HCL templates, not JavaScript ones
      'data x y { z = "${"}"}" }',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: HCL templates, not JavaScript ones
      'resource "t" "${var.x}" {}',
      '',
    ].join('\r\n');
    expect(findHclBlocks(text)).toEqual([
      { type: 'resource', labels: ['ab', 'c"d'], line: 2 },
      { type: 'data', labels: ['x', 'y'], line: 4 },
    ]);
  });

  it('refuses what it cannot follow instead of guessing', () => {
    for (const bad of ['resource "a" "b" {', 'x = "abc', '}', '/* open', 'x = <<EOT\nno end\n']) {
      expect(() => findHclBlocks(bad), bad).toThrow(HclLexError);
    }
    expect(() => findHclBlocks(`x = ${'"${'.repeat(100)}`)).toThrow(HclLexError);
  });
});

describe('findJsonBlocks', () => {
  it('gives the line of each block key and the CDKTF construct path beside it', () => {
    const text = [
      '{',
      '  "//": {"metadata": {"path": "app"}},',
      '  "resource": {',
      '    "terraform_data": {',
      '      "queue": {',
      '        "//": {"metadata": {"path": "app/queue", "uniqueId": "queue"}},',
      '        "input": [1, true, null, {"resource": {"x": {"y": {}}}}]',
      '      },',
      '      "q\\u0075eue2": {}',
      '    }',
      '  },',
      '  "module": {"net": {"//": {"metadata": {"path": "app/net"}}, "source": "./net"}}',
      '}',
    ].join('\n');
    expect(findJsonBlocks(text, 1024)).toEqual([
      { type: 'resource', labels: ['terraform_data', 'queue'], line: 5, constructPath: 'app/queue' },
      { type: 'resource', labels: ['terraform_data', 'queue2'], line: 9 },
      { type: 'module', labels: ['net'], line: 12, constructPath: 'app/net' },
    ]);
  });

  it('refuses invalid JSON', () => {
    expect(() => findJsonBlocks('{"resource": ', 1024)).toThrow();
    expect(() => findJsonBlocks('{"resource": {}}', 4)).toThrow();
  });
});

/** The addresses of the fixture's plan (both binaries plan the same ones). */
function expectedLocations() {
  const main = 'main.tf';
  const app = 'modules/app/main.tf';
  const inner = 'modules/inner/main.tf';
  const at = (file: string, start: string) => ({ file, line: lineOf(join(LOCATE_FIXTURE, file), start) });
  const counted = at(main, 'resource "terraform_data" "counted"');
  const worker = at(app, 'resource "terraform_data" "worker"');
  const queue = at(inner, 'resource "terraform_data" "queue"');
  return {
    'terraform_data.counted[0]': counted,
    'terraform_data.counted[1]': counted,
    'terraform_data.from_json': at('extra.tf.json', '      "from_json"'),
    'module.app["blue"].terraform_data.worker[0]': worker,
    'module.app["green"].terraform_data.worker[0]': worker,
    'module.app["blue"].module.inner.terraform_data.queue["a.b[0]"]': queue,
    'module.app["blue"].module.inner.terraform_data.queue["say \\"hi\\""]': queue,
    'module.app["green"].module.inner.terraform_data.queue["a.b[0]"]': queue,
    'module.app["green"].module.inner.terraform_data.queue["say \\"hi\\""]': queue,
  };
}

describe.each([
  ['terraform', undefined],
  ['tofu', TOFU_BIN],
])('locateAddresses on a configuration planned by %s', (_name, bin) => {
  it('places every planned address, module and instance, relative to the repository root', async () => {
    const ws = TerraformWorkspace.create(LOCATE_FIXTURE, bin ? { bin } : {});
    try {
      await ws.init();
      await ws.plan();
      const plan = JSON.parse(await ws.showPlanJson()) as {
        resource_changes: Array<{ address: string }>;
      };
      const addresses = plan.resource_changes.map((r) => r.address);
      const expected = expectedLocations();
      expect(addresses.sort()).toEqual(Object.keys(expected).sort());
      // No git work tree above a temporary directory: the configuration directory is the root.
      expect(Object.fromEntries(await locateAddresses(addresses, { configDir: ws.dir }))).toEqual(expected);

      // In a repository, paths are relative to its root (here: one level above the configuration).
      const located = await locateAddresses(addresses, {
        configDir: ws.dir,
        repositoryRoot: join(ws.dir, '..'),
      });
      expect(located.get('terraform_data.counted[1]')).toEqual({
        ...expected['terraform_data.counted[1]'],
        file: 'work/main.tf',
      });

      // Without the module manifest, nothing in a module can be placed; the root still is.
      const manifest = await readModulesManifest(ws.dir, '.terraform');
      expect([...(manifest?.keys() ?? [])].sort()).toEqual(['', 'app', 'app.inner']);
      rmSync(join(ws.dir, '.terraform', 'modules', 'modules.json'));
      const rootOnly = await locateAddresses(addresses, { configDir: ws.dir });
      expect([...rootOnly.keys()].sort()).toEqual([
        'terraform_data.counted[0]',
        'terraform_data.counted[1]',
        'terraform_data.from_json',
      ]);
    } finally {
      ws.cleanup();
    }
  });
});

describe('locateAddresses never gives a wrong location', () => {
  function config(files: Record<string, string>): string {
    const dir = tempDir();
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return dir;
  }

  it('leaves unplaced what is declared twice, unknown, in a file it cannot lex, or not an address', async () => {
    const dir = config({
      'a.tf': 'resource "t" "twice" {}\nresource "t" "once" {}\n',
      'b.tf': 'resource "t" "twice" {}\n',
      'c_override.tf': 'resource "t" "once" {}\n',
    });
    const located = await locateAddresses(['t.twice', 't.once', 't.missing', 'nonsense'], { configDir: dir });
    expect(Object.fromEntries(located)).toEqual({ 't.once': { file: 'a.tf', line: 2 } });

    const broken = config({ 'a.tf': 'resource "t" "x" {}\n', 'b.tf': 'resource "t" "y" {\n' });
    expect((await locateAddresses(['t.x', 't.y'], { configDir: broken })).size).toBe(0);
  });

  it('points at the module call when the module is not in the repository, and gives up past the time limit', async () => {
    const dir = config({
      'main.tf': '\nmodule "vpc" {\n  source = "registry/vpc/aws"\n}\n',
      '.terraform/modules/vpc/main.tf': 'resource "t" "subnet" {}\n',
      '.terraform/modules/modules.json':
        '{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"vpc","Source":"registry/vpc/aws","Dir":".terraform/modules/vpc"}]}',
    });
    expect(Object.fromEntries(await locateAddresses(['module.vpc.t.subnet[0]'], { configDir: dir }))).toEqual(
      {
        'module.vpc.t.subnet[0]': { file: 'main.tf', line: 2, moduleCall: 'module.vpc' },
      },
    );
    expect(
      (await locateAddresses(['module.vpc.t.subnet'], { configDir: dir, limits: { timeoutMs: -1 } })).size,
    ).toBe(0);
  });

  it('reads a hostile manifest as untrusted JSON and places nothing by it', async () => {
    const dir = config({
      'main.tf': 'module "m" {\n  source = "./m"\n}\n',
      'm/main.tf': 'resource "t" "x" {}\n',
      '.terraform/modules/modules.json': '{"Modules":[{"Key":"m","Dir":"m"},{"Key":"m","Dir":"other"}]}',
    });
    expect((await locateAddresses(['module.m.t.x'], { configDir: dir })).size).toBe(0);
    writeFileSync(join(dir, '.terraform/modules/modules.json'), '{"Modules": [');
    expect((await locateAddresses(['module.m.t.x'], { configDir: dir })).size).toBe(0);
    writeFileSync(join(dir, '.terraform/modules/modules.json'), '{"Modules":[{"Key":"m","Dir":"m"}]}');
    expect(Object.fromEntries(await locateAddresses(['module.m.t.x'], { configDir: dir }))).toEqual({
      'module.m.t.x': { file: 'm/main.tf', line: 1 },
    });
    // A module outside the repository root is not placed inside it.
    const outside = config({
      'repo/main.tf': 'module "m" {\n  source = "../shared"\n}\n',
      'shared/main.tf': '',
    });
    cpSync(join(dir, 'm', 'main.tf'), join(outside, 'shared', 'main.tf'));
    mkdirSync(join(outside, 'repo', '.terraform', 'modules'), { recursive: true });
    writeFileSync(
      join(outside, 'repo', '.terraform', 'modules', 'modules.json'),
      '{"Modules":[{"Key":"m","Dir":"../shared"}]}',
    );
    expect(
      Object.fromEntries(await locateAddresses(['module.m.t.x'], { configDir: join(outside, 'repo') })),
    ).toEqual({ 'module.m.t.x': { file: 'main.tf', line: 1, moduleCall: 'module.m' } });
  });
});

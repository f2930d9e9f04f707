// Findings located in the configuration by tfgate plan, apply and check, with the real terraform and tofu, on
// a configuration with nested local modules and count/for_each instances in a git work tree: SARIF (checked
// by the SARIF multitool and against GitHub's upload requirements), GitHub annotations, Markdown and text.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { normaliseCheckOptions as resolveCheckOptions } from '../../src/cli/normalise/check.js';
import { runCheck as runParsedCheck } from '../../src/commands/check.js';
import { ExitCode } from '../../src/errors/index.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { runApply, runPlan } from '../helpers/commands.js';
import { LOCATE_FIXTURE, lineOf } from '../helpers/locate.js';
import { githubUploadProblems, multitoolErrors } from '../helpers/sarif.js';
import { TERRAFORM_BIN, type TerraformWorkspace, TOFU_BIN } from '../helpers/terraform.js';
import { capture, bundleRoute as route, useWrapperSuite } from './wrapper-fixtures.js';

const suite = useWrapperSuite();
const sarifLogs: Record<string, string> = {};

beforeAll(() => buildCli(), 300_000);

/** The fixture in a git work tree one level above the configuration (`work/`), initialised by `bin`. */
async function repository(bin: string): Promise<TerraformWorkspace> {
  const ws = suite.workspace(LOCATE_FIXTURE, { bin });
  await execa('git', ['init', '-q', join(ws.dir, '..')]);
  await ws.init();
  return ws;
}

/** Where each finding must be, as `work/<file>:<line>`. */
function expectedLocation(address: string): string {
  const at = (file: string, start: string) => `work/${file}:${lineOf(join(LOCATE_FIXTURE, file), start)}`;
  if (address.includes('.queue[')) return at('modules/inner/main.tf', 'resource "terraform_data" "queue"');
  if (address.includes('.worker[')) return at('modules/app/main.tf', 'resource "terraform_data" "worker"');
  if (address.startsWith('terraform_data.counted['))
    return at('main.tf', 'resource "terraform_data" "counted"');
  if (address === 'terraform_data.from_json') return at('extra.tf.json', '      "from_json"');
  throw new Error(`unexpected address ${address}`);
}

interface SarifResult {
  message: { text: string };
  locations: Array<{
    physicalLocation?: { artifactLocation: { uri: string }; region: { startLine: number } };
    logicalLocations: Array<{ fullyQualifiedName: string }>;
  }>;
}

/** address -> `uri:line` of each result of a SARIF report file. */
function sarifLocations(name: string, file: string): Record<string, string> {
  const text = readFileSync(file, 'utf8');
  sarifLogs[name] = text;
  const log = JSON.parse(text) as { runs: Array<{ results: SarifResult[] }> };
  expect(githubUploadProblems(log)).toEqual([]);
  return Object.fromEntries(
    (log.runs[0]?.results ?? []).map((r) => {
      const physical = r.locations[0]?.physicalLocation;
      return [
        r.locations[0]?.logicalLocations[0]?.fullyQualifiedName,
        physical ? `${decodeURIComponent(physical.artifactLocation.uri)}:${physical.region.startLine}` : '',
      ];
    }),
  );
}

describe.each([
  ['terraform', TERRAFORM_BIN],
  ['tofu', TOFU_BIN],
])('with %s', (name, bin) => {
  it('tfgate plan: every format places each finding on the block that declares it', async () => {
    const ws = await repository(bin);
    const sarif = join(ws.dir, '..', 'tfgate.sarif');
    const markdown = join(ws.dir, '..', 'tfgate.md');
    const run = capture({ ...ws.env, GITHUB_ACTIONS: 'true' });
    const result = await runPlan(
      {
        route: route(suite.strict),
        chdir: ws.dir,
        terraformBin: bin,
        reports: [
          { format: 'text' },
          { format: 'sarif', path: sarif },
          { format: 'markdown', path: markdown },
        ],
      },
      run.context,
    );
    expect(result.exitCode).toBe(ExitCode.blocked);
    const located = sarifLocations(`${name}-plan`, sarif);
    expect(Object.keys(located)).toHaveLength(9);
    for (const [address, where] of Object.entries(located))
      expect(where, address).toBe(expectedLocation(address));

    const queue = 'module.app["green"].module.inner.terraform_data.queue["say \\"hi\\""]';
    const [file, line] = expectedLocation(queue).split(':');
    expect(run.stdout()).toContain(`::error file=${file},line=${line},title=tfgate unsanctioned_creation`);
    expect(run.stdout()).toMatch(/terraform_data\.counted\[1\]\s+work\/main\.tf:\d+\s/);
    expect(readFileSync(markdown, 'utf8')).toContain(
      `| \`terraform_data.from_json\` | \`${expectedLocation('terraform_data.from_json')}\` |`,
    );
  });

  it('tfgate check --plan-json --config-dir: located; without the module manifest, module findings fall back to the plan file', async () => {
    const ws = await repository(bin);
    await ws.plan();
    const planJson = join(ws.dir, 'plan.json');
    writeFileSync(planJson, await ws.showPlanJson());
    const sarif = join(ws.dir, 'check.sarif');
    const check = (flags: { configDir?: string; repositoryRoot?: string }) =>
      runParsedCheck(
        resolveCheckOptions(
          {
            planJson,
            bundle: suite.strict.bundle,
            publicKey: suite.strict.publicKey,
            format: ['sarif'],
            output: [sarif],
            ...flags,
          },
          {},
        ),
        { ...capture(ws.env).context, stderr: { write: () => true } },
      );
    expect((await check({ configDir: ws.dir })).exitCode).toBe(ExitCode.blocked);
    for (const [address, where] of Object.entries(sarifLocations(`${name}-check`, sarif))) {
      expect(where, address).toBe(expectedLocation(address));
    }
    // An explicit repository root: paths relative to it.
    await check({ configDir: ws.dir, repositoryRoot: ws.dir });
    expect(sarifLocations(`${name}-check-root`, sarif)['terraform_data.from_json']).toBe(
      expectedLocation('terraform_data.from_json').replace('work/', ''),
    );

    rmSync(join(ws.dir, '.terraform', 'modules', 'modules.json'));
    await check({ configDir: ws.dir });
    const unplaced = sarifLocations(`${name}-check-unplaced`, sarif);
    for (const [address, where] of Object.entries(unplaced)) {
      expect(where, address).toBe(
        address.startsWith('module.') ? 'work/plan.json:1' : expectedLocation(address),
      );
    }
    // No configuration directory: nothing is located, every finding points at the plan file.
    await check({});
    expect(new Set(Object.values(sarifLocations(`${name}-check-plan-only`, sarif)))).toEqual(
      new Set(['work/plan.json:1']),
    );
  });
});

it('tfgate apply and check --plan-file locate in the directory terraform runs in', async () => {
  const ws = await repository(TERRAFORM_BIN);
  const sarif = join(ws.dir, '..', 'apply.sarif');
  const applied = await runApply(
    { route: route(suite.strict), chdir: ws.dir, reports: [{ format: 'sarif', path: sarif }] },
    capture(ws.env).context,
  );
  expect(applied.exitCode).toBe(ExitCode.blocked);
  const fromApply = sarifLocations('apply', sarif);
  expect(Object.keys(fromApply)).toHaveLength(9);
  for (const [address, where] of Object.entries(fromApply))
    expect(where, address).toBe(expectedLocation(address));

  const planFile = await ws.plan();
  const checked = await runParsedCheck(
    resolveCheckOptions(
      {
        planFile,
        chdir: ws.dir,
        bundle: suite.strict.bundle,
        publicKey: suite.strict.publicKey,
        format: ['sarif'],
        output: [sarif],
      },
      {},
    ),
    { ...capture(ws.env).context, stderr: { write: () => true } },
  );
  expect(checked.exitCode).toBe(ExitCode.blocked);
  expect(sarifLocations('check-plan-file', sarif)).toEqual(fromApply);
});

it('the CLI: check --plan-json --config-dir, and plan --repository-root from inside the configuration', async () => {
  const ws = await repository(TERRAFORM_BIN);
  await ws.plan();
  const planJson = join(ws.dir, 'plan.json');
  writeFileSync(planJson, await ws.showPlanJson());
  const bundle = ['--bundle', suite.strict.bundle, '--public-key', suite.strict.publicKey];
  const check = await runCli(
    ['check', '--plan-json', planJson, '--config-dir', ws.dir, ...bundle, '--format', 'sarif'],
    {
      env: ws.env as Record<string, string>,
    },
  );
  expect(check.exitCode, check.stderr).toBe(ExitCode.blocked);
  const checkSarif = join(ws.dir, 'cli-check.sarif');
  writeFileSync(checkSarif, check.stdout);
  for (const [address, where] of Object.entries(sarifLocations('cli-check', checkSarif))) {
    expect(where, address).toBe(expectedLocation(address));
  }
  const plan = await runCli(['plan', ...bundle, '--repository-root', ws.dir, '--format', 'markdown'], {
    cwd: ws.dir,
    env: ws.env as Record<string, string>,
  });
  expect(plan.exitCode, plan.stderr).toBe(ExitCode.blocked);
  expect(plan.stdout).toContain(`\`${expectedLocation('terraform_data.from_json').replace('work/', '')}\``);
});

it('every SARIF report above passes the SARIF multitool (schema, SARIF and GitHub rules)', async () => {
  expect(Object.keys(sarifLogs).length).toBeGreaterThanOrEqual(12);
  expect(await multitoolErrors(sarifLogs)).toEqual([]);
}, 120_000);

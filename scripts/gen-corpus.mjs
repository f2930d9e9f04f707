#!/usr/bin/env node
// Regenerates the test corpus: real `terraform show -json` plans (and a few states) from the
// configurations in test/fixtures/terraform/<scenario>/, optionally retyped to cloud resource types.
//
//   node scripts/gen-corpus.mjs [--plans-dir <dir>] [--states-dir <dir>] [scenario ...]
//
// Each scenario directory holds scenario.json (steps, plan arguments), config/ (the configuration that
// is planned), optionally before/ (applied first to create state), retype.json, design.yaml and
// expected.json. Only terraform_data and built-in data sources are used, so no provider is downloaded.
// A scenario.json with `"binary": "tofu"` is planned by OpenTofu (`tofu` on PATH: scripts/setup-tools.sh
// installs it into .tools/bin, which this script puts first on PATH) instead of terraform.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const scenariosDir = join(root, 'test', 'fixtures', 'terraform');
const toolsBin = join(root, '.tools', 'bin');
const BUILTIN_PROVIDER = 'terraform.io/builtin/terraform';

/** The binaries a scenario may name in scenario.json's "binary" (default terraform). */
const BINARIES = new Set(['terraform', 'tofu']);

/** Provider source addresses by type prefix, for retyped resources (registry host per binary). */
const PROVIDER_PATHS = {
  aws: 'hashicorp/aws',
  google: 'hashicorp/google',
  azurerm: 'hashicorp/azurerm',
  kubernetes: 'hashicorp/kubernetes',
  examplecorp: 'examplecorp/examplecorp',
};
/** OpenTofu resolves unqualified providers on its own registry, so its plans name that host. */
const REGISTRY_HOST = { terraform: 'registry.terraform.io', tofu: 'registry.opentofu.org' };

function parseArgs(argv) {
  const options = {
    plansDir: join(root, 'test', 'fixtures', 'plans'),
    statesDir: join(root, 'test', 'fixtures', 'states'),
    scenarios: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--plans-dir') options.plansDir = resolve(argv[++i]);
    else if (arg === '--states-dir') options.statesDir = resolve(argv[++i]);
    else if (arg === '--help' || arg === '-h') {
      console.log(
        'usage: node scripts/gen-corpus.mjs [--plans-dir <dir>] [--states-dir <dir>] [scenario ...]',
      );
      process.exit(0);
    } else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
    else options.scenarios.push(arg);
  }
  return options;
}

/** The environment every terraform run gets: no prompts, no update check, no ~/.terraformrc. */
function terraformEnv(workDir) {
  const cliConfig = join(workDir, '..', 'empty.tfrc');
  if (!existsSync(cliConfig)) writeFileSync(cliConfig, '');
  return {
    ...process.env,
    PATH: existsSync(toolsBin) ? `${toolsBin}${delimiter}${process.env.PATH ?? ''}` : process.env.PATH,
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
    CHECKPOINT_DISABLE: '1',
    TF_CLI_CONFIG_FILE: cliConfig,
  };
}

function terraform(bin, workDir, args, { allowFailure = false } = {}) {
  const env = terraformEnv(workDir);
  const result = spawnSync(bin, args, { cwd: workDir, env, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (result.error) {
    const hint =
      bin === 'tofu' && result.error.code === 'ENOENT'
        ? ' (OpenTofu is not on PATH: run scripts/setup-tools.sh tofu, which links it into .tools/bin)'
        : '';
    throw new Error(`could not run ${bin} ${args[0]}: ${result.error.message}${hint}`);
  }
  if (result.status !== 0 && !allowFailure) {
    throw new Error(
      `${bin} ${args.join(' ')} failed (exit ${result.status}) in ${workDir}:\n${result.stderr}${result.stdout}`,
    );
  }
  if (result.status === 0 && allowFailure === 'must') {
    throw new Error(`${bin} ${args.join(' ')} was expected to fail but succeeded in ${workDir}`);
  }
  return result;
}

/** Replace the configuration in workDir with the scenario's `configName` directory, keeping state. */
function useConfig(bin, scenarioDir, workDir, configName, previous) {
  for (const entry of previous) rmSync(join(workDir, entry), { recursive: true, force: true });
  const source = join(scenarioDir, configName);
  if (!existsSync(source))
    throw new Error(`${scenarioDir}: configuration directory ${configName}/ is missing`);
  const entries = readdirSync(source);
  for (const entry of entries) cpSync(join(source, entry), join(workDir, entry), { recursive: true });
  terraform(bin, workDir, ['init', '-input=false', '-no-color']);
  return entries;
}

function runScenario(name, scenarioDir) {
  const scenario = JSON.parse(readFileSync(join(scenarioDir, 'scenario.json'), 'utf8'));
  const bin = binaryOf(scenario, name);
  const base = mkdtempSync(join(tmpdir(), `tfgate-corpus-${name}-`));
  const workDir = join(base, 'work');
  mkdirSync(workDir);
  try {
    let current = [];
    let currentName;
    const switchTo = (configName) => {
      if (configName !== currentName) {
        current = useConfig(bin, scenarioDir, workDir, configName, current);
        currentName = configName;
      }
    };
    for (const step of scenario.steps ?? []) {
      switchTo(step.config ?? currentName ?? 'config');
      const args = step.args ?? [];
      const allowFailure = step.expect === 'failure' ? 'must' : false;
      if (step.command === 'apply')
        terraform(bin, workDir, ['apply', '-auto-approve', '-input=false', '-no-color', ...args], {
          allowFailure,
        });
      else if (step.command === 'taint' || step.command === 'untaint')
        terraform(bin, workDir, [step.command, '-no-color', ...args], { allowFailure });
      else throw new Error(`${name}: unknown step command ${step.command}`);
    }
    const state = existsSync(join(workDir, 'terraform.tfstate'))
      ? JSON.parse(terraform(bin, workDir, ['show', '-json', '-no-color']).stdout)
      : undefined;
    switchTo(scenario.plan?.config ?? 'config');
    terraform(bin, workDir, [
      'plan',
      '-input=false',
      '-no-color',
      '-out=tfplan',
      ...(scenario.plan?.args ?? []),
    ]);
    const planText = terraform(bin, workDir, ['show', '-json', '-no-color', 'tfplan']).stdout;
    return { scenario, planText, state };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

function binaryOf(scenario, name) {
  const bin = scenario.binary ?? 'terraform';
  if (!BINARIES.has(bin))
    throw new Error(`${name}: "binary" must be terraform or tofu, not ${JSON.stringify(bin)}`);
  return bin;
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Normalize retype.json: `{ "<terraform_data name>": "aws_s3_bucket" | { "type", "provider" } }`.
 * A name is retyped in every module it occurs in.
 */
function loadRetype(scenarioDir, bin) {
  const file = join(scenarioDir, 'retype.json');
  if (!existsSync(file)) return undefined;
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  const map = new Map();
  for (const [name, value] of Object.entries(raw)) {
    const type = typeof value === 'string' ? value : value.type;
    const prefix = type.split('_')[0];
    const known = PROVIDER_PATHS[prefix];
    const provider =
      (typeof value === 'object' && value.provider) || (known && `${REGISTRY_HOST[bin]}/${known}`);
    if (!provider)
      throw new Error(`${file}: no provider known for ${type}; give one as {"type", "provider"}`);
    map.set(name, { type, provider, providerKey: prefix });
  }
  return map;
}

/**
 * Rewrite terraform_data resources named in `retype` to cloud types, everywhere the plan or state
 * mentions them: type, provider_name, provider_config_key, and every address or reference string
 * (resource_changes, resource_drift, prior_state, planned_values, configuration, previous_address,
 * relevant_attributes). Terraform's structure is otherwise kept as is.
 */
export function retypeDocument(doc, retype) {
  const names = [...retype.keys()];
  const pattern = new RegExp(`(^|\\.)terraform_data\\.(${names.map(escapeRegExp).join('|')})(?=$|[.[])`, 'g');
  const rewriteString = (text) =>
    text.includes('terraform_data.')
      ? text.replace(pattern, (_m, lead, n) => `${lead}${retype.get(n).type}.${n}`)
      : text;
  const walk = (node) => {
    if (typeof node === 'string') return rewriteString(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const target = node.type === 'terraform_data' && node.mode !== 'data' && retype.get(node.name);
    const out = {};
    for (const [key, value] of Object.entries(node)) out[key] = walk(value);
    if (target) {
      out.type = target.type;
      if (out.provider_name === BUILTIN_PROVIDER) out.provider_name = target.provider;
      if (typeof out.provider_config_key === 'string')
        out.provider_config_key = out.provider_config_key.replace(
          /(^|:)terraform$/,
          `$1${target.providerKey}`,
        );
    }
    return out;
  };
  const result = walk(doc);
  const providerConfig = result.configuration?.provider_config;
  if (providerConfig) {
    for (const { providerKey, provider } of retype.values()) {
      providerConfig[providerKey] ??= { name: providerKey, full_name: provider };
    }
  }
  const leftover = JSON.stringify(result).match(pattern);
  if (leftover) throw new Error(`retype left ${leftover[0]} behind`);
  return result;
}

/** Synthetic action shapes neither terraform 1.11 nor OpenTofu 1.10 produces ([create, forget], [forget, create]). */
function patchActions(plan, patches, name) {
  for (const [address, actions] of Object.entries(patches)) {
    const change = plan.resource_changes.find((rc) => rc.address === address && !rc.deposed);
    if (!change) throw new Error(`${name}: patch_actions names ${address}, which the plan does not change`);
    change.change.actions = actions;
  }
}

/** Write a file whole or not at all. */
function writeAtomic(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

/** States are linted with the rest of the tree (plans are not), so write them as biome formats them. */
function formatWithBiome(text, name) {
  const biome = join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');
  if (!existsSync(biome)) return text;
  const stdinPath = join('test', 'fixtures', 'states', `${name}.json`);
  const result = spawnSync(process.execPath, [biome, 'format', `--stdin-file-path=${stdinPath}`], {
    cwd: root,
    input: text,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`biome format of the ${name} state failed:\n${result.stderr}`);
  return result.stdout;
}

export function generate(options) {
  const all = readdirSync(scenariosDir).filter((entry) =>
    existsSync(join(scenariosDir, entry, 'scenario.json')),
  );
  const unknown = options.scenarios.filter((s) => !all.includes(s));
  if (unknown.length > 0)
    throw new Error(`unknown scenario(s): ${unknown.join(', ')} (known: ${all.join(', ')})`);
  const selected = options.scenarios.length > 0 ? options.scenarios : all;
  for (const name of selected) {
    const started = Date.now();
    const scenarioDir = join(scenariosDir, name);
    const { scenario, planText, state } = runScenario(name, scenarioDir);
    const retype = loadRetype(scenarioDir, binaryOf(scenario, name));
    let planOut = planText.endsWith('\n') ? planText : `${planText}\n`;
    if (retype || scenario.patch_actions) {
      let plan = JSON.parse(planText);
      if (retype) plan = retypeDocument(plan, retype);
      if (scenario.patch_actions) patchActions(plan, scenario.patch_actions, name);
      planOut = `${JSON.stringify(plan)}\n`;
    }
    writeAtomic(join(options.plansDir, `${name}.json`), planOut);
    if (scenario.state && state) {
      const statePath = join(options.statesDir, `${name}.json`);
      writeAtomic(
        statePath,
        formatWithBiome(JSON.stringify(retype ? retypeDocument(state, retype) : state), name),
      );
    }
    console.log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    generate(parseArgs(process.argv.slice(2)));
  } catch (error) {
    console.error(`gen-corpus: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

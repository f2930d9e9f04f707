#!/usr/bin/env node
// Generates a Terraform plan JSON of N resource changes shaped like `terraform show -json` output, at
// about 1.4 KB per change (100k changes ≈ 140 MB), streamed to disk: nothing is built in memory.
//
//   node bench/gen-plan.mjs --changes 100000 [--out bench/out/plan-100000-changes.json]
//
// Sections in terraform's order: variables, planned_values (after values, nested child_modules),
// resource_changes (before/after/sensitivity), prior_state (before values), configuration (one block
// per resource), then timestamp/applyable/complete/errored. The mix: creates, updates, no-ops,
// deletes, both replacement orders, deferred data reads, imports and moved resources; module
// addresses, count and for_each keys, AWS/Google/Azure/Kubernetes types and some unrecognized ones;
// values with nested objects, lists, unicode, escapes and sensitive strings. Deterministic per N.
import { once } from 'node:events';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const OUT_DIR = join(here, 'out');
/** Bumped whenever the output changes, so cached plans are regenerated. */
export const GENERATOR_VERSION = 3;

/** Resources per module block; every fourth block is in the root module. */
const BLOCK = 50;

const TYPES = [
  { type: 'aws_s3_bucket', provider: 'aws' },
  { type: 'aws_sqs_queue', provider: 'aws' },
  { type: 'aws_db_instance', provider: 'aws' },
  { type: 'aws_iam_role', provider: 'aws' },
  { type: 'aws_lambda_function', provider: 'aws' },
  { type: 'aws_security_group', provider: 'aws' },
  { type: 'google_storage_bucket', provider: 'google' },
  { type: 'google_pubsub_topic', provider: 'google' },
  { type: 'azurerm_storage_account', provider: 'azurerm' },
  { type: 'kubernetes_deployment', provider: 'kubernetes' },
  { type: 'random_password', provider: 'random' },
  { type: 'examplecorp_widget', provider: 'examplecorp' },
];

const PROVIDERS = {
  aws: 'registry.terraform.io/hashicorp/aws',
  google: 'registry.terraform.io/hashicorp/google',
  azurerm: 'registry.terraform.io/hashicorp/azurerm',
  kubernetes: 'registry.terraform.io/hashicorp/kubernetes',
  random: 'registry.terraform.io/hashicorp/random',
  examplecorp: 'registry.terraform.io/examplecorp/examplecorp',
};

/** Out of 100: the action mix of a real, busy plan. */
function actionsFor(i) {
  const bucket = (i * 37) % 100;
  if (bucket < 35) return { actions: ['create'] };
  if (bucket < 60) return { actions: ['update'] };
  if (bucket < 80) return { actions: ['no-op'] };
  if (bucket < 88) return { actions: ['delete'] };
  if (bucket < 92) return { actions: ['delete', 'create'], reason: 'replace_because_cannot_update' };
  if (bucket < 95) return { actions: ['create', 'delete'], reason: 'replace_because_tainted' };
  if (bucket < 97) return { actions: ['read'], data: true, reason: 'read_because_dependency_pending' };
  if (bucket < 98) return { actions: ['no-op'], importing: true };
  if (bucket < 99) return { actions: ['no-op'], moved: true };
  return { actions: ['forget'], reason: 'delete_because_no_resource_config' };
}

/** Module address of change i ('' for the root module). */
function moduleOf(i) {
  const block = Math.floor(i / BLOCK);
  if (block % 4 === 0) return '';
  const outer = `module.svc_${block % 997}`;
  return block % 4 === 3 ? `${outer}.module.inner_${block}` : `module.svc_${block % 997}_${block}`;
}

const KEYS = ['eu-west-1', 'us-east-1', 'ap-southeast-2', 'café', 'ü-key'];

/** Everything about change i, derived from i alone. */
function resourceAt(i) {
  const { type, provider } = TYPES[i % TYPES.length];
  const action = actionsFor(i);
  const mode = action.data ? 'data' : 'managed';
  const module = moduleOf(i);
  const name = `r${i}`;
  const style = i % 3; // 0: single, 1: count, 2: for_each
  const index = style === 1 ? i % 4 : style === 2 ? `${KEYS[i % KEYS.length]}-${i % 7}` : undefined;
  const key =
    index === undefined ? '' : typeof index === 'number' ? `[${index}]` : `[${JSON.stringify(index)}]`;
  const local = `${mode === 'data' ? 'data.' : ''}${type}.${name}${key}`;
  const address = module ? `${module}.${local}` : local;
  return { i, type, provider: PROVIDERS[provider], action, mode, module, name, index, address };
}

function valuesOf(r, generation) {
  return {
    id: `${r.i.toString(16).padStart(8, '0')}-5f8e-4e6f-9a0b-${generation}`,
    name: `${r.name}-prod`,
    master_password: `s3cr3t-\\"q\\"-${r.i}-é日`,
    tags: { Name: r.name, Owner: 'platform-team' },
    settings: { retention_days: 30 + generation, encryption: { algorithm: 'aws:kms' } },
  };
}

const SENSITIVE = { master_password: true };

function plannedValue(r) {
  return {
    address: r.address,
    mode: r.mode,
    type: r.type,
    name: r.name,
    ...(r.index === undefined ? {} : { index: r.index }),
    provider_name: r.provider,
    schema_version: 0,
    values: valuesOf(r, 2),
    sensitive_values: SENSITIVE,
  };
}

function priorValue(r) {
  return { ...plannedValue(r), values: valuesOf(r, 1) };
}

function resourceChange(r) {
  const { actions, reason, importing, moved } = r.action;
  const creates =
    actions.includes('create') ||
    actions.includes('update') ||
    actions.includes('read') ||
    actions[0] === 'no-op';
  const existed = !(actions.length === 1 && actions[0] === 'create') && !actions.includes('read');
  const before = existed ? valuesOf(r, 1) : null;
  const after = creates ? valuesOf(r, actions[0] === 'no-op' ? 1 : 2) : null;
  return {
    address: r.address,
    ...(r.module ? { module_address: r.module } : {}),
    ...(moved ? { previous_address: r.address.replace(`.${r.name}`, `.${r.name}_old`) } : {}),
    mode: r.mode,
    type: r.type,
    name: r.name,
    ...(r.index === undefined ? {} : { index: r.index }),
    provider_name: r.provider,
    change: {
      actions,
      before,
      after,
      after_unknown: actions.includes('create') ? { id: true, arn: true } : {},
      before_sensitive: before ? SENSITIVE : false,
      after_sensitive: after ? SENSITIVE : false,
      ...(importing ? { importing: { id: `import-${r.i}` } } : {}),
    },
    ...(reason ? { action_reason: reason } : {}),
  };
}

function configResource(r) {
  return {
    address: `${r.mode === 'data' ? 'data.' : ''}${r.type}.${r.name}`,
    mode: r.mode,
    type: r.type,
    name: r.name,
    provider_config_key: r.type.split('_')[0],
    expressions: {
      name: { references: ['var.environment', 'local.prefix'] },
      tags: { constant_value: { Owner: 'platform-team' } },
    },
    schema_version: 0,
    ...(r.index === undefined
      ? {}
      : typeof r.index === 'number'
        ? { count_expression: { constant_value: 4 } }
        : { for_each_expression: { references: ['var.regions'] } }),
  };
}

/** Stream `[a,b,...]` of `render(i)` for i in `indexes` (with `filter`). */
async function writeList(write, indexes, render) {
  await write('[');
  let first = true;
  for (const i of indexes) {
    const item = render(i);
    if (item === undefined) continue;
    await write(`${first ? '' : ','}${JSON.stringify(item)}`);
    first = false;
  }
  await write(']');
}

function* range(from, to) {
  for (let i = from; i < to; i++) yield i;
}

/** Blocks of BLOCK changes grouped by module, for the nested planned_values / prior_state trees. */
function moduleTree(changes) {
  const blocks = Math.ceil(changes / BLOCK);
  const root = [];
  const children = new Map(); // outer module -> { own blocks, inner modules: Map(name -> blocks) }
  for (let b = 0; b < blocks; b++) {
    const module = moduleOf(b * BLOCK);
    if (!module) root.push(b);
    else {
      const [outer, inner] = module.split('.module.');
      const key = outer;
      if (!children.has(key)) children.set(key, { own: [], inner: new Map() });
      const entry = children.get(key);
      if (inner)
        entry.inner.set(`${outer}.module.${inner}`, [
          ...(entry.inner.get(`${outer}.module.${inner}`) ?? []),
          b,
        ]);
      else entry.own.push(b);
    }
  }
  return { root, children };
}

function* blockIndexes(blocks, changes) {
  for (const b of blocks) yield* range(b * BLOCK, Math.min((b + 1) * BLOCK, changes));
}

async function writeModuleValues(write, tree, changes, render) {
  await write('{"resources":');
  await writeList(write, blockIndexes(tree.root, changes), render);
  await write(',"child_modules":[');
  let first = true;
  for (const [address, entry] of tree.children) {
    await write(`${first ? '' : ','}{"resources":`);
    first = false;
    await writeList(write, blockIndexes(entry.own, changes), render);
    await write(`,"address":${JSON.stringify(address)}`);
    if (entry.inner.size > 0) {
      await write(',"child_modules":[');
      let firstInner = true;
      for (const [innerAddress, blocks] of entry.inner) {
        await write(`${firstInner ? '' : ','}{"resources":`);
        firstInner = false;
        await writeList(write, blockIndexes(blocks, changes), render);
        await write(`,"address":${JSON.stringify(innerAddress)}}`);
      }
      await write(']');
    }
    await write('}');
  }
  await write(']}');
}

/** Write a plan of `changes` resource changes to `path` (atomically); resolves to its size in bytes. */
export async function generatePlan(changes, path) {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  const out = createWriteStream(temp, { highWaterMark: 1 << 20 });
  let pending = '';
  // Batch small writes: one stream write per ~1 MB keeps generation fast.
  const write = async (text) => {
    pending += text;
    if (pending.length >= 1 << 20) {
      const chunk = pending;
      pending = '';
      if (!out.write(chunk)) await once(out, 'drain');
    }
  };
  const tree = moduleTree(changes);
  const at = (i) => resourceAt(i);

  await write('{"format_version":"1.2","terraform_version":"1.11.4",');
  await write(
    '"variables":{"environment":{"value":"production"},"regions":{"value":["eu-west-1","us-east-1"]}},',
  );
  await write('"planned_values":{"root_module":');
  await writeModuleValues(write, tree, changes, (i) => {
    const r = at(i);
    const a = r.action.actions;
    return a.length === 1 && (a[0] === 'delete' || a[0] === 'forget') ? undefined : plannedValue(r);
  });
  await write('},"resource_changes":');
  await writeList(write, range(0, changes), (i) => resourceChange(at(i)));
  await write(',"prior_state":{"format_version":"1.0","terraform_version":"1.11.4","values":{"root_module":');
  await writeModuleValues(write, tree, changes, (i) => {
    const r = at(i);
    return r.action.actions[0] === 'create' || r.mode === 'data' ? undefined : priorValue(r);
  });
  await write('}},"configuration":{"provider_config":');
  await write(
    JSON.stringify(
      Object.fromEntries(Object.entries(PROVIDERS).map(([k, v]) => [k, { name: k, full_name: v }])),
    ),
  );
  await write(',"root_module":{"resources":');
  await writeList(write, range(0, Math.min(changes, 200)), (i) => configResource(at(i)));
  await write('}},"timestamp":"2025-06-01T12:00:00Z","applyable":true,"complete":true,"errored":false}\n');
  out.write(pending);
  out.end();
  await once(out, 'finish');
  renameSync(temp, path);
  return statSync(path).size;
}

/** The cached plan for `changes` under bench/out, generated when missing or from an older generator. */
export async function ensurePlan(changes) {
  const path = join(OUT_DIR, `plan-${changes}-changes.json`);
  const stamp = `${path}.version`;
  const fresh =
    existsSync(path) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === String(GENERATOR_VERSION);
  if (!fresh) {
    await generatePlan(changes, path);
    writeFileSync(stamp, `${GENERATOR_VERSION}\n`);
  }
  return { path, bytes: statSync(path).size };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const changes = Number(option('changes') ?? '1000');
  if (!Number.isInteger(changes) || changes < 1) {
    console.error('usage: node bench/gen-plan.mjs --changes <N> [--out <file>]');
    process.exit(1);
  }
  const path = resolve(option('out') ?? join(OUT_DIR, `plan-${changes}-changes.json`));
  const started = Date.now();
  const bytes = await generatePlan(changes, path);
  console.log(
    `${path}: ${changes} changes, ${(bytes / 1e6).toFixed(1)} MB (${(bytes / changes).toFixed(0)} B per change) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

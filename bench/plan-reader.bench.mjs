// Benchmark of the streaming plan reader alone (stage 1), against a bare JSON.parse of the same file.
// Usage: npm run build && node bench/plan-reader.bench.mjs [--changes 100000] [--dist ./dist] [--runs 3]
//        [--plan gen] (gen-plan.mjs's terraform-shaped plan, as check-peers reads, instead of this file's own)
// Each measurement runs in a fresh child process so that peak RSS is its own. "streamed" reads with
// onChanges (the changes handed on in batches and dropped), as evaluation streamed with the read does.
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensurePlan } from './gen-plan.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};

const child = arg('child', undefined);
if (child) {
  await runChild(child, arg('file'), resolve(arg('dist')));
} else {
  await main();
}

async function main() {
  const changes = Number(arg('changes', '100000'));
  const dist = resolve(arg('dist', join(here, '..', 'dist')));
  const runs = Number(arg('runs', '3'));
  let file = join(here, 'out', `plan-${changes}.json`);
  if (arg('plan', 'own') === 'gen') file = (await ensurePlan(changes)).path;
  else if (!existsSync(file)) await generatePlan(file, changes);
  const size = statSync(file).size;
  console.log(`plan: ${file} (${changes} changes, ${(size / 1e6).toFixed(1)} MB); node ${process.version}`);
  const results = {};
  for (const what of ['parse', 'reader', 'streamed', 'lane']) {
    const samples = [];
    for (let r = 0; r < runs; r++) {
      const out = spawnSync(
        process.execPath,
        [fileURLToPath(import.meta.url), '--child', what, '--file', file, '--dist', dist],
        {
          encoding: 'utf8',
        },
      );
      if (out.status !== 0) throw new Error(`${what} failed: ${out.stderr}`);
      samples.push(JSON.parse(out.stdout.trim().split('\n').pop()));
    }
    samples.sort((a, b) => a.ms - b.ms);
    results[what] = samples[Math.floor(samples.length / 2)];
  }
  const rows = [
    ['bare JSON.parse(readFileSync)', results.parse],
    ['tfgate readPlan (stream)', results.reader],
    ['tfgate readPlan (stream, onChanges)', results.streamed],
    ['tfgate readPlan (stream, onChanges and onReducedChanges: the lane)', results.lane],
  ];
  console.log('| what | wall ms (median) | CPU ms | MB/s (wall) | peak RSS MB | changes |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, r] of rows) {
    console.log(
      `| ${name} | ${r.ms.toFixed(0)} | ${r.cpuMs.toFixed(0)} | ${(size / 1e6 / (r.ms / 1000)).toFixed(0)} | ${r.rssMb.toFixed(0)} | ${r.changes} |`,
    );
  }
  for (const what of ['reader', 'streamed', 'lane'])
    console.log(
      `${what} / JSON.parse: ${(results[what].ms / results.parse.ms).toFixed(2)}x wall, ${(results[what].cpuMs / results.parse.cpuMs).toFixed(2)}x CPU`,
    );
}

async function runChild(what, file, dist) {
  const started = process.hrtime.bigint();
  let changes;
  if (what === 'parse') {
    const plan = JSON.parse(readFileSync(file, 'utf8'));
    changes = plan.resource_changes.length;
  } else {
    const { readPlan, fileSource } = await import(pathToFileURL(join(dist, 'plan', 'index.js')).href);
    const source = fileSource(file);
    if (what === 'streamed' || what === 'lane') {
      changes = 0;
      await readPlan(source.open(), {
        description: source.description,
        onChanges: (batch) => {
          changes += batch.length;
        },
        // What evaluation does: most changes read in WebAssembly, straight into the policy's input form.
        ...(what === 'lane'
          ? {
              onReducedChanges: (_json, count) => {
                changes += count;
              },
            }
          : {}),
      });
    } else {
      const plan = await readPlan(source.open(), { description: source.description });
      changes = plan.resource_changes.length;
    }
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const usage = process.resourceUsage();
  const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
  console.log(JSON.stringify({ ms, cpuMs, rssMb: usage.maxRSS / 1024, changes }));
}

/** A plan shaped like Terraform's, about 1.4 KB per change, with before/after values holding fake secrets. */
async function generatePlan(file, changes) {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  const out = createWriteStream(tmp);
  const write = (text) => (out.write(text) ? undefined : new Promise((r) => out.once('drain', r)));
  const types = [
    'aws_s3_bucket',
    'aws_sqs_queue',
    'aws_db_instance',
    'google_storage_bucket',
    'azurerm_storage_account',
  ];
  const actionsFor = [
    ['create'],
    ['update'],
    ['no-op'],
    ['delete', 'create'],
    ['delete'],
    ['create', 'delete'],
    ['read'],
  ];
  await write(
    '{"format_version":"1.2","terraform_version":"1.11.4","planned_values":{"root_module":{}},"resource_changes":[',
  );
  for (let i = 0; i < changes; i++) {
    const type = types[i % types.length];
    const module = i % 3 === 0 ? `module.m${i % 50}` : undefined;
    const local = `${type}.r${i}["k-${i}"]`;
    const address = module ? `${module}.${local}` : local;
    const values = {
      id: `id-${i}-5f8e1c2a-7b3d-4e6f-9a0b-1c2d3e4f5a6b`,
      arn: `arn:aws:s3:::bucket-${i}-prod-eu-west-1`,
      password: `s3cr3t-\\"quoted\\"-${i}-\u00e9\u65e5`,
      tags: { Name: `resource-${i}`, Environment: 'production', Owner: 'platform-team', CostCenter: '4711' },
      settings: {
        versioning: true,
        retention_days: 30 + (i % 7),
        ratio: 0.25,
        encryption: { algorithm: 'aws:kms', key: null },
      },
      rules: [
        { id: 'expire', enabled: true, days: 90 },
        { id: 'transition', enabled: false, days: -1.5e3 },
      ],
      description:
        'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.',
    };
    const rc = {
      address,
      ...(module ? { module_address: module } : {}),
      mode: 'managed',
      type,
      name: `r${i}`,
      index: `k-${i}`,
      provider_name: 'registry.terraform.io/hashicorp/aws',
      change: {
        actions: actionsFor[i % actionsFor.length],
        before: values,
        after: { ...values, id: null },
        after_unknown: { id: true, tags: {} },
        before_sensitive: { password: true },
        after_sensitive: { password: true },
      },
    };
    await write(`${i === 0 ? '' : ','}${JSON.stringify(rc)}`);
  }
  await write(
    '],"configuration":{"root_module":{}},"timestamp":"2025-01-01T00:00:00Z","applyable":true,"complete":true,"errored":false}\n',
  );
  await new Promise((r, j) => out.end((e) => (e ? j(e) : r())));
  renameSync(tmp, file);
}

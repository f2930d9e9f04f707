#!/usr/bin/env node
// Benchmark (issue 4): the overhead of `tfgate apply` (bundle route) over plain terraform doing the same
// work: `terraform plan -out`, `terraform show -json` and `terraform apply` of that plan, on the same
// configuration, each run from a fresh state. Runs alternate between the two so drift hits both; the
// medians are compared as a ratio measured in one run.
//
//   npm run build && node bench/apply-overhead.bench.mjs [--runs 7] [--resources 50]
//
// Target (issue 15): tfgate apply takes at most 100 ms more than the plain terraform sequence. CPU time
// (user + system of each command and its children, from /usr/bin/time) is reported beside wall time: on a
// shared machine it is the steadier number.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const cli = join(root, 'dist', 'cli', 'main.js');

function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? Number(process.argv[i + 1]) : fallback;
}
const RUNS = flag('runs', 7);
const RESOURCES = flag('resources', 50);
const TARGET_OVERHEAD_MS = 100;
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
let cpuMs = 0;

console.log('## tfgate apply overhead\n');
if (!existsSync(cli)) {
  console.log('_dist/ is missing: run `npm run build` first._\n');
  process.exit(1);
}
const terraformVersion = spawnSync('terraform', ['version'], {
  encoding: 'utf8',
  env: { ...process.env, CHECKPOINT_DISABLE: '1' },
});
if (terraformVersion.status !== 0) {
  console.log('_terraform is not on PATH: skipped._\n');
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'tfgate-bench-apply-'));
const config = join(work, 'config');
spawnSync('mkdir', ['-p', config]);
writeFileSync(
  join(config, 'main.tf'),
  `variable "n" {\n  type    = number\n  default = ${RESOURCES}\n}\n\nresource "terraform_data" "item" {\n  count = var.n\n  input = { index = count.index, role = "bench" }\n}\n\nresource "terraform_data" "ledger" {\n  input = "ledger"\n}\n`,
);
const rc = join(work, 'empty.tfrc');
writeFileSync(rc, '');
const env = {
  ...process.env,
  TF_CLI_CONFIG_FILE: rc,
  TF_IN_AUTOMATION: '1',
  CHECKPOINT_DISABLE: '1',
  NO_COLOR: '1',
  CI: 'true',
};
delete env.TFGATE_TERRAFORM_BIN;

// The bundle: the configuration's kind sanctioned, so every run passes and applies.
const { buildBundle } = await import(pathToFileURL(join(root, 'dist', 'policy', 'bundle', 'index.js')).href);
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const bundlePath = join(work, 'bundle.tar.gz');
const publicKeyPath = join(work, 'platform.pem');
writeFileSync(publicKeyPath, publicKey.export({ type: 'spki', format: 'pem' }));
writeFileSync(
  bundlePath,
  await buildBundle({
    design: {
      package_id: 'bench-apply',
      sanctioned_kinds: ['generic_data'],
      capabilities: [{ name: 'ledger', depends_on: ['terraform_data.ledger'] }],
      catalog: { terraform_data: 'generic_data' },
    },
    signingKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }),
  }),
);

function freshState() {
  for (const name of ['terraform.tfstate', 'terraform.tfstate.backup', 'plain.tfplan']) {
    rmSync(join(config, name), { force: true });
  }
}

function run(command, args) {
  const timed = TIME ? [TIME, ['-f', 'cpu %U %S', command, ...args]] : [command, args];
  const result = spawnSync(timed[0], timed[1], {
    cwd: config,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 30,
  });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stderr}`);
  }
  const cpu = /cpu ([0-9.]+) ([0-9.]+)\s*$/.exec(String(result.stderr));
  if (cpu) cpuMs += (Number(cpu[1]) + Number(cpu[2])) * 1000;
}

function plainTerraform() {
  cpuMs = 0;
  const started = performance.now();
  run('terraform', ['plan', '-input=false', '-out=plain.tfplan']);
  // show -json's output is read whole through a pipe, as any consumer would, then discarded.
  run('terraform', ['show', '-json', 'plain.tfplan']);
  run('terraform', ['apply', '-input=false', 'plain.tfplan']);
  return { ms: performance.now() - started, cpuMs };
}

function tfgateApply() {
  cpuMs = 0;
  const started = performance.now();
  run(process.execPath, [cli, 'apply', '--bundle', bundlePath, '--public-key', publicKeyPath]);
  return { ms: performance.now() - started, cpuMs };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

try {
  // One warm-up of each (page cache, terraform's plugin discovery), not counted.
  freshState();
  plainTerraform();
  freshState();
  tfgateApply();
  const plain = [];
  const tfgate = [];
  for (let i = 0; i < RUNS; i++) {
    freshState();
    plain.push(plainTerraform());
    freshState();
    tfgate.push(tfgateApply());
  }
  const plainMs = median(plain.map((r) => r.ms));
  const tfgateMs = median(tfgate.map((r) => r.ms));
  const plainCpu = median(plain.map((r) => r.cpuMs));
  const tfgateCpu = median(tfgate.map((r) => r.cpuMs));
  const ok = tfgateMs - plainMs <= TARGET_OVERHEAD_MS;
  const fmt = (ms) => `${Math.round(ms)} ms`;
  console.log(
    `Configuration: ${RESOURCES + 1} terraform_data resources, created from an empty state each run; ${RUNS} runs of each, alternating; medians. Load average now: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(', ')}.\n`,
  );
  console.log('| | median wall | median CPU | wall of each run |');
  console.log('| --- | ---: | ---: | --- |');
  console.log(
    `| terraform plan -out + show -json + apply | ${fmt(plainMs)} | ${TIME ? fmt(plainCpu) : 'n/a'} | ${plain.map((r) => fmt(r.ms)).join(', ')} |`,
  );
  console.log(
    `| tfgate apply (bundle route) | ${fmt(tfgateMs)} | ${TIME ? fmt(tfgateCpu) : 'n/a'} | ${tfgate.map((r) => fmt(r.ms)).join(', ')} |`,
  );
  console.log('');
  console.log(
    `Overhead: **${fmt(tfgateMs - plainMs)} wall**, ${TIME ? fmt(tfgateCpu - plainCpu) : 'n/a'} CPU. Target: at most ${TARGET_OVERHEAD_MS} ms: **${ok ? 'met' : 'NOT met'}**.\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

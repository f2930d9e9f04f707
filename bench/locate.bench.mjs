#!/usr/bin/env node
// Benchmark: locating findings (src/locate) in large configurations, in this process, against the default
// limits (5 s, 256 MB read). A generated configuration of local modules, each module several .tf files of
// `resource` blocks with bodies full of strings, heredocs and comments; and a synthesized CDKTF stack of the
// same number of resources in one cdk.tf.json. Every address is located (the worst case: a finding on each).
//
//   npm run build && node bench/locate.bench.mjs [--resources 100000]
//
// Target: 100,000 resources located within the default 5 s time limit, peak RSS under 400 MB.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(resolve(here, '..'), 'dist', 'locate', 'index.js');
const i = process.argv.indexOf('--resources');
const RESOURCES = i >= 0 ? Number(process.argv[i + 1]) : 100_000;
const MODULES = 100;
const FILES_PER_MODULE = 10;
const perFile = Math.max(1, Math.round(RESOURCES / MODULES / FILES_PER_MODULE));

const { locateAddresses, DEFAULT_LOCATE_LIMITS } = await import(pathToFileURL(dist).href);

const body = (n) =>
  [
    `resource "terraform_data" "r${n}" {`,
    '  count = 2',
    `  # resource "terraform_data" "decoy${n}" {`,
    `  input = "\${var.name}-${n}-{}}"`,
    '  triggers_replace = <<-EOT',
    `    resource "x" "y${n}" {`,
    '  EOT',
    '}',
    '',
  ].join('\n');

function hclConfig(dir) {
  const addresses = [];
  const calls = [];
  for (let m = 0; m < MODULES; m++) {
    calls.push(`module "m${m}" {\n  source = "./modules/m${m}"\n  name   = "m${m}"\n}\n`);
    const moduleDir = join(dir, 'modules', `m${m}`);
    mkdirSync(moduleDir, { recursive: true });
    for (let f = 0; f < FILES_PER_MODULE; f++) {
      const blocks = [];
      for (let r = 0; r < perFile; r++) {
        const n = f * perFile + r;
        blocks.push(body(n));
        addresses.push(`module.m${m}.terraform_data.r${n}[1]`);
      }
      writeFileSync(
        join(moduleDir, `f${f}.tf`),
        `${f === 0 ? 'variable "name" {}\n' : ''}${blocks.join('')}`,
      );
    }
  }
  writeFileSync(join(dir, 'main.tf'), calls.join('\n'));
  const modules = [{ Key: '', Source: '', Dir: '.' }];
  for (let m = 0; m < MODULES; m++)
    modules.push({ Key: `m${m}`, Source: `./modules/m${m}`, Dir: `modules/m${m}` });
  mkdirSync(join(dir, '.terraform', 'modules'), { recursive: true });
  writeFileSync(join(dir, '.terraform', 'modules', 'modules.json'), JSON.stringify({ Modules: modules }));
  return addresses;
}

function cdktfStack(dir) {
  const resources = {};
  const addresses = [];
  for (let n = 0; n < RESOURCES; n++) {
    resources[`r${n}`] = {
      '//': { metadata: { path: `app/storage/r${n}`, uniqueId: `r${n}` } },
      input: `value-${n}`,
    };
    addresses.push(`terraform_data.r${n}`);
  }
  writeFileSync(
    join(dir, 'cdk.tf.json'),
    JSON.stringify({ resource: { terraform_data: resources } }, null, 2),
  );
  return addresses;
}

async function measure(label, dir, addresses) {
  const started = process.hrtime.bigint();
  const located = await locateAddresses(addresses, { configDir: dir });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rss = process.resourceUsage().maxRSS / 1024;
  console.log(
    `| ${label} | ${addresses.length.toLocaleString('en')} | ${located.size.toLocaleString('en')} | ${seconds.toFixed(2)} s | ${rss.toFixed(0)} MB |`,
  );
  return { seconds, rss, complete: located.size === addresses.length };
}

console.log('## Locating findings\n');
console.log(
  `Default limits: ${DEFAULT_LOCATE_LIMITS.timeoutMs} ms, ${DEFAULT_LOCATE_LIMITS.maxTotalBytes / 2 ** 20} MB read.\n`,
);
console.log('| configuration | addresses | located | time | peak RSS (process so far) |');
console.log('| --- | ---: | ---: | ---: | ---: |');
const work = mkdtempSync(join(tmpdir(), 'tfgate-bench-locate-'));
try {
  const hclDir = join(work, 'hcl');
  mkdirSync(hclDir);
  const hcl = await measure(`${MODULES} modules × ${FILES_PER_MODULE} .tf files`, hclDir, hclConfig(hclDir));
  const jsonDir = join(work, 'cdktf');
  mkdirSync(jsonDir);
  const json = await measure('one cdk.tf.json', jsonDir, cdktfStack(jsonDir));
  const met =
    hcl.complete && json.complete && hcl.seconds < 5 && json.seconds < 5 && Math.max(hcl.rss, json.rss) < 400;
  console.log(`\nTarget (all located within 5 s, peak RSS under 400 MB): **${met ? 'met' : 'missed'}**.`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

#!/usr/bin/env node
// `npm run bench`: prints the machine, then runs every bench/*.bench.mjs in sequence (or the ones named
// as arguments, with or without the .bench.mjs suffix; arguments after `--` are passed to each). Each is a standalone script that prints a
// markdown section; one that fails is reported and the rest still run, and the exit code says so.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((name) => name.endsWith('.bench.mjs'))
  .sort();

// Names before `--`; everything after it goes to each benchmark (e.g. `-- --sizes 1000,10000`).
const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
const requested = dashes >= 0 ? argv.slice(0, dashes) : argv;
const forwarded = dashes >= 0 ? argv.slice(dashes + 1) : [];
const selected =
  requested.length === 0
    ? available
    : requested.map((name) => (name.endsWith('.bench.mjs') ? name : `${name}.bench.mjs`));
const unknown = selected.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(
    `bench: no such benchmark: ${unknown.join(', ')} (available: ${available.map((n) => n.replace('.bench.mjs', '')).join(', ')})`,
  );
  process.exit(1);
}

const cpuList = cpus();
console.log('# tfgate benchmarks\n');
console.log(`- CPU: ${cpuList[0]?.model.trim() ?? 'unknown'}, ${cpuList.length} cores`);
console.log(`- Memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB`);
console.log(`- Node ${process.version} on ${process.platform} ${process.arch}`);
console.log(
  `- Load average at start: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(', ')}`,
);
console.log(`- Date: ${new Date().toISOString()}`);
console.log(`- Benchmarks: ${selected.join(', ')}\n`);

const failed = [];
for (const name of selected) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [join(here, name), ...forwarded], { stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    failed.push(name);
    console.log(`\n**${name} failed** (exit ${result.status ?? result.signal}) after ${seconds} s.\n`);
  } else {
    console.log(`_${name}: ${seconds} s_\n`);
  }
}
if (failed.length > 0) {
  console.error(`bench: ${failed.length} benchmark(s) failed: ${failed.join(', ')}`);
  process.exit(1);
}

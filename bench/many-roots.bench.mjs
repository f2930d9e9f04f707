#!/usr/bin/env node
// Benchmark (issue 12): many plans under one verdict. `tfgate check --bundle` on 50 roots of 1,000 changes each (a
// directory of 50 plans, read and evaluated in parallel within the memory budget) against the same number of
// changes in one plan (50,000). Each measurement is a fresh process under /usr/bin/time (wall, CPU, peak RSS),
// the two taken in turns; medians. Target: the 50 roots take at most 1.5x the wall time of the one plan.
//
//   npm run build && node bench/many-roots.bench.mjs [--roots 50] [--changes 1000] [--runs 3]
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DESIGN } from './design.mjs';
import { ensurePlan, OUT_DIR } from './gen-plan.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const roots = option('roots', 50);
const changes = option('changes', 1000);
const runs = option('runs', 3);

function run(command, commandArgs, outFile) {
  const out = spawnSync(
    'sh',
    ['-c', `exec "$@" > "${outFile}"`, 'sh', '/usr/bin/time', '-f', '%e %M %U %S', command, ...commandArgs],
    { encoding: 'utf8', timeout: 900_000 },
  );
  const [wall, rssKb, user, system] = (out.stderr.trim().split('\n').pop() ?? '').split(' ').map(Number);
  // 3: blocked (the generated plans have findings); anything else is a failed measurement.
  if (out.status !== 3 || !Number.isFinite(wall))
    throw new Error(`exit ${out.status}: ${out.stderr.slice(0, 400)}`);
  return { wall, cpu: user + system, rssMb: rssKb / 1024, body: JSON.parse(readFileSync(outFile, 'utf8')) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const dir = join(OUT_DIR, 'many-roots');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(dir, 'signing.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(join(dir, 'public.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
  writeFileSync(join(dir, 'design.json'), JSON.stringify(DESIGN));
  const bundle = join(dir, 'bundle.tar.gz');
  const built = spawnSync(process.execPath, [
    cli,
    'bundle',
    'build',
    '--design',
    join(dir, 'design.json'),
    '--signing-key',
    join(dir, 'signing.pem'),
    '--output',
    bundle,
  ]);
  if (built.status !== 0) throw new Error(`bundle build: ${built.stderr}`);
  const one = (await ensurePlan(roots * changes)).path;
  const small = (await ensurePlan(changes)).path;
  for (let i = 0; i < roots; i++) {
    const at = join(dir, 'roots', `root-${String(i).padStart(2, '0')}`);
    mkdirSync(at, { recursive: true });
    copyFileSync(small, join(at, 'plan.json'));
  }
  const route = ['--bundle', bundle, '--public-key', join(dir, 'public.pem'), '--format', 'json'];
  const rows = [
    { what: `one plan, ${(roots * changes).toLocaleString('en')} changes`, plan: one, samples: [] },
    {
      what: `${roots} roots × ${changes.toLocaleString('en')} changes`,
      plan: join(dir, 'roots'),
      samples: [],
    },
  ];
  const startLoad = loadavg()[0];
  for (let i = 0; i < runs; i++) {
    for (const row of rows) {
      row.samples.push(
        run(process.execPath, [cli, 'check', '--plan-json', row.plan, ...route], join(dir, 'out.json')),
      );
    }
  }
  const endLoad = loadavg()[0];
  const findings = (body) =>
    body.results ? body.results.reduce((n, r) => n + r.findings.length, 0) : body.findings.length;
  const changesOf = (body) =>
    body.results
      ? body.results.reduce((n, r) => n + r.counts.resource_changes, 0)
      : body.counts.resource_changes;
  console.log(`## \`tfgate check\`: ${roots} roots vs one plan of the same number of changes\n`);
  console.log(
    `Load average ${startLoad.toFixed(1)} at the start, ${endLoad.toFixed(1)} at the end; medians of ${runs}.\n`,
  );
  console.log('| input | changes | wall s | CPU s | peak RSS | findings | wall vs one plan |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const base = median(rows[0].samples.map((s) => s.wall));
  for (const row of rows) {
    const wall = median(row.samples.map((s) => s.wall));
    const cpu = median(row.samples.map((s) => s.cpu));
    const rss = Math.max(...row.samples.map((s) => s.rssMb));
    const body = row.samples[0].body;
    console.log(
      `| ${row.what} | ${changesOf(body).toLocaleString('en')} | ${wall.toFixed(2)} | ${cpu.toFixed(2)} | ${rss.toFixed(0)} MB | ${findings(body).toLocaleString('en')} | ${(wall / base).toFixed(2)}x |`,
    );
  }
  const ratio = median(rows[1].samples.map((s) => s.wall)) / base;
  console.log(
    `\nTarget: at most 1.5x the one plan's wall time: **${ratio <= 1.5 ? 'met' : 'NOT met'}** (${ratio.toFixed(2)}x).`,
  );
}

await main();

#!/usr/bin/env node
// Benchmark (issue 15): the whole `tfgate check --bundle` command, as a pipeline runs it (node start-up,
// bundle verification, reading the plan, evaluation, the JSON report), side by side in the same run with
// `conftest test` (bench/conftest/plan.rego: the two rules as a conftest user writes them), `opa eval`
// with the same signed bundle, and a bare `node -e JSON.parse(readFileSync(plan))`, on generated plans of
// 1k, 10k and 100k changes. Every measurement is a fresh process under /usr/bin/time (wall, CPU, peak RSS).
//
//   npm run build && node bench/check-peers.bench.mjs [--sizes 1000,10000,100000] [--runs 5]
//     [--peer-runs-large 1] [--no-setup]
//
// Targets: 1k changes faster than both conftest and opa eval; 100k changes at most 0.35x the wall time of
// the bare JSON.parse, peak RSS at most 120 MB. Peers missing from .tools/bin or PATH are skipped with a
// line saying so. A peer missing from .tools/bin is first built pinned by `scripts/setup-tools.sh <peer>`
// (cached in ~/.cache/tfgate-tools; --no-setup skips that).
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DESIGN } from './design.mjs';
import { ensurePlan, OUT_DIR } from './gen-plan.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const dist = join(root, 'dist');
const cli = join(dist, 'cli', 'main.js');
const TIME = '/usr/bin/time';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const sizes = option('sizes', '1000,10000,100000').split(',').map(Number);
const runs = Number(option('runs', '5'));
const peerRunsLarge = Number(option('peer-runs-large', '1'));

/** The pinned peer in .tools/bin, built by scripts/setup-tools.sh (cached) when it is missing; else PATH's. */
function tool(name) {
  const local = join(root, '.tools', 'bin', name);
  if (!existsSync(local) && !args.includes('--no-setup')) {
    spawnSync('bash', [join(root, 'scripts', 'setup-tools.sh'), name], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  if (existsSync(local)) return local;
  const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

/** The tool's version; a `go install` build says "dev", so the pinned cache directory's name says it then. */
function version(bin, flag) {
  const out = spawnSync(bin, [flag], { encoding: 'utf8' });
  const said = (out.stdout || out.stderr).trim().split('\n')[0].replace(/\s+/g, ' ');
  const pinned = basename(dirname(realpathSync(bin)));
  return said.includes('dev') && /-v\d/.test(pinned) ? pinned : said;
}

/** One run under /usr/bin/time; `ok` says which exit codes mean the tool decided. */
function timed(command, commandArgs, ok, outFile) {
  const out = spawnSync(
    'sh',
    ['-c', `exec "$@" > "${outFile}"`, 'sh', TIME, '-f', '%e %M %U %S', command, ...commandArgs],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 900_000, killSignal: 'SIGKILL' },
  );
  const last = out.stderr.trim().split('\n').pop() ?? '';
  const [wall, rssKb, user, system] = last.split(' ').map(Number);
  if (!ok(out.status) || !Number.isFinite(wall)) {
    return {
      error: `exit ${out.status ?? out.signal}: ${out.stderr.trim().split('\n').slice(0, 2).join(' ')}`,
    };
  }
  return { s: wall, cpu: user + system, rssMb: rssKb / 1024, output: readFileSync(outFile, 'utf8') };
}

/** A measurement to take `n` times; settle() takes them all, interleaved, so load drift hits every tool alike. */
function later(n, run) {
  return { pending: { n, run } };
}

function settle(rows) {
  const samples = rows.map(() => []);
  const rounds = Math.max(...rows.map((r) => r.pending?.n ?? 0));
  for (let i = 0; i < rounds; i++) {
    rows.forEach((row, at) => {
      if (row.pending && i < row.pending.n) samples[at].push(row.pending.run());
    });
  }
  rows.forEach((row, at) => {
    if (!row.pending) return;
    delete row.pending;
    const failed = samples[at].find((s) => s.error);
    if (failed) {
      Object.assign(row, failed);
      return;
    }
    const sorted = [...samples[at]].sort((a, b) => a.s - b.s);
    const mid = sorted[Math.floor(sorted.length / 2)];
    Object.assign(row, mid, { rssMb: Math.max(...samples[at].map((s) => s.rssMb)) });
  });
}

async function prepare() {
  const dir = join(OUT_DIR, 'check-peers');
  mkdirSync(dir, { recursive: true });
  const bundleModule = await import(pathToFileURL(join(dist, 'policy', 'bundle', 'index.js')).href);
  const designModule = await import(pathToFileURL(join(dist, 'design', 'index.js')).href);
  const catalogModule = await import(pathToFileURL(join(dist, 'catalog', 'index.js')).href);
  const design = designModule.designSchema.parse(DESIGN);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const bundle = join(dir, 'bench.tar.gz');
  const key = join(dir, 'public.pem');
  writeFileSync(
    bundle,
    await bundleModule.buildBundle({
      design,
      signingKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    }),
  );
  writeFileSync(key, publicKey.export({ type: 'spki', format: 'pem' }));
  // conftest's data: the same design, the catalog as the type -> kind table a user would keep.
  const data = join(dir, 'data.json');
  writeFileSync(
    data,
    JSON.stringify({
      design: {
        sanctioned_kinds: design.sanctioned_kinds,
        catalog: catalogModule.effectiveCatalog(design),
        capabilities: design.capabilities.map((c) => ({ name: c.name, depends_on: c.depends_on })),
      },
    }),
  );
  return { dir, bundle, key, data };
}

const fmt = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

async function main() {
  console.log('## `tfgate check --bundle` vs conftest vs opa eval vs bare JSON.parse\n');
  if (!existsSync(cli)) {
    console.log('_dist/ is missing: run `npm run build` first._\n');
    process.exit(1);
  }
  if (!existsSync(TIME)) {
    console.log('_/usr/bin/time is missing (apt-get install time): skipped._\n');
    process.exit(0);
  }
  const conftest = tool('conftest');
  const opa = tool('opa');
  const notes = [];
  if (!conftest)
    notes.push('conftest not found: its rows are skipped (`bash scripts/setup-tools.sh conftest`).');
  if (!opa) notes.push('opa not found: its rows are skipped (`bash scripts/setup-tools.sh opa`).');
  const load = loadavg();
  console.log(
    `${cpus().length} cores, ${cpus()[0]?.model.trim()}; Node ${process.version}; ${conftest ? version(conftest, '--version') : 'no conftest'}; ${opa ? version(opa, 'version') : 'no opa'}; load average at start ${load.map((n) => n.toFixed(2)).join(', ')}.`,
  );
  console.log(
    `Each row is a fresh process under /usr/bin/time: wall and CPU (user + system) of the whole process, node start-up included; median wall of ${runs} runs taken in turns across the tools (at 100k: tfgate 3, peers ${peerRunsLarge}), peak RSS the max. Ratios: wall time over tfgate's.\n`,
  );
  const files = await prepare();
  const outFile = join(files.dir, 'out.txt');
  console.log(
    '| changes | plan MB | what | wall s | CPU s | MB/s (wall) | peak RSS MB | findings | x tfgate wall |',
  );
  console.log('|---:|---:|---|---:|---:|---:|---:|---:|---:|');
  const verdicts = [];
  for (const changes of sizes) {
    const { path, bytes } = await ensurePlan(changes);
    const mb = bytes / 1e6;
    const n = changes >= 100000 ? Math.min(runs, 3) : runs;
    const peerN = changes >= 100000 ? peerRunsLarge : runs;
    const decided = (code) => code === 0 || code === 3;
    const tfgate = later(n, () =>
      timed(
        process.execPath,
        [
          cli,
          'check',
          '--plan-json',
          path,
          '--bundle',
          files.bundle,
          '--public-key',
          files.key,
          '--format',
          'json',
        ],
        decided,
        outFile,
      ),
    );
    const parse = later(n, () =>
      timed(
        process.execPath,
        [
          '-e',
          'const p = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")); process.stdout.write(String(p.resource_changes.length))',
          path,
        ],
        (code) => code === 0,
        outFile,
      ),
    );
    const conftestRow = conftest
      ? later(peerN, () =>
          timed(
            conftest,
            [
              'test',
              '--no-color',
              '--output',
              'json',
              '--policy',
              join(here, 'conftest'),
              '--data',
              files.data,
              path,
            ],
            (code) => code === 0 || code === 1,
            outFile,
          ),
        )
      : { error: 'conftest not installed' };
    const opaRow = opa
      ? later(peerN, () =>
          timed(
            opa,
            [
              'eval',
              '--bundle',
              files.bundle,
              '--input',
              path,
              '--format',
              'json',
              'data.tfgate.conformance.plan',
            ],
            (code) => code === 0,
            outFile,
          ),
        )
      : { error: 'opa not installed' };
    settle([tfgate, parse, conftestRow, opaRow]);
    if (!tfgate.error) tfgate.findings = JSON.parse(tfgate.output).findings?.length;
    if (!conftestRow.error) conftestRow.findings = JSON.parse(conftestRow.output)[0]?.failures?.length ?? 0;
    if (!opaRow.error)
      opaRow.findings = JSON.parse(opaRow.output).result?.[0]?.expressions?.[0]?.value?.findings?.length;
    const row = (label, r) => {
      const size = `${changes.toLocaleString('en')} | ${fmt(mb, 1)}`;
      if (r.error) return console.log(`| ${size} | ${label} | – | – | – | – | – | skipped: ${r.error} |`);
      const ratio = tfgate.error ? 'n/a' : `${fmt(r.s / tfgate.s)}x`;
      console.log(
        `| ${size} | ${label} | ${fmt(r.s)} | ${fmt(r.cpu)} | ${fmt(mb / r.s, 0)} | ${fmt(r.rssMb, 0)} | ${r.findings ?? '–'} | ${ratio} |`,
      );
    };
    row('`tfgate check --bundle`', tfgate);
    row('`conftest test` (rego as a user writes it)', conftestRow);
    row('`opa eval -b` (same bundle)', opaRow);
    row('bare `node -e JSON.parse(readFileSync)`', parse);
    if (tfgate.error) {
      verdicts.push(`${changes}: tfgate failed (${tfgate.error})`);
      continue;
    }
    if (changes === 1000) {
      // Judged on wall and CPU time both: on a loaded machine a peer's wall time can lose to queueing alone.
      const beats = (peer) =>
        peer.error
          ? 'not measured'
          : `wall ${tfgate.s < peer.s ? 'met' : 'NOT met'}, CPU ${tfgate.cpu < peer.cpu ? 'met' : 'NOT met'}`;
      verdicts.push(
        `1,000 changes: tfgate ${fmt(tfgate.s)} s vs conftest ${conftestRow.error ? 'n/a' : fmt(conftestRow.s)} s (${beats(conftestRow)}), opa eval ${opaRow.error ? 'n/a' : fmt(opaRow.s)} s (${beats(opaRow)}); CPU ${fmt(tfgate.cpu)} s vs ${conftestRow.error ? 'n/a' : fmt(conftestRow.cpu)} s and ${opaRow.error ? 'n/a' : fmt(opaRow.cpu)} s.`,
      );
    }
    if (changes === 100000 && !parse.error) {
      const ratio = tfgate.s / parse.s;
      verdicts.push(
        `100,000 changes: tfgate / JSON.parse = ${fmt(ratio)}x wall, ${fmt(tfgate.cpu / parse.cpu)}x CPU (target ≤ 0.35x: ${ratio <= 0.35 ? 'met' : 'NOT met'}); peak RSS ${fmt(tfgate.rssMb, 0)} MB (target ≤ 120 MB: ${tfgate.rssMb <= 120 ? 'met' : 'NOT met'}); ${fmt(mb / tfgate.s, 0)} MB/s.`,
      );
    }
  }
  console.log('');
  for (const verdict of verdicts) console.log(`- ${verdict}`);
  console.log(
    `- Load average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}.`,
  );
  for (const note of notes) console.log(`\nNote: ${note}`);
  console.log('');
}

await main();

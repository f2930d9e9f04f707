#!/usr/bin/env node
// Benchmark (issues 2 and 15): tfgate's local evaluation of a plan in process (dist/policy
// readAndEvaluatePlan: each batch evaluated as the plan reader delivers it; --whole: readPlan, then
// PolicyEngine.evaluatePlan on the plan held whole, as before issue 15) against a bare
// JSON.parse(readFileSync) of the same file and against the real `opa eval` with the same signed bundle,
// for generated plans of 1k, 10k and 100k changes.
// Every measurement runs in a fresh child process, so each peak RSS is that measurement's own.
//
//   npm run build && node bench/plan-eval.bench.mjs [--sizes 1000,10000,100000] [--runs 3]
//     [--opa-runs 1] [--no-opa] [--opa-timeout 900] [--bundle <bundle.tar.gz>] [--whole]
//
// Targets (issue 15): 100k changes in no more than 0.35x the time of JSON.parse, peak RSS at most 120 MB.
// Parts that have not landed yet (engine, bundle builder, policy.wasm) are reported as missing.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DESIGN } from './design.mjs';
import { ensurePlan, OUT_DIR } from './gen-plan.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const dist = join(root, 'dist');

const TARGET_RATIO = 0.35;
const TARGET_RSS_MB = 120;

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};

// --- child: one measurement, one process ---------------------------------------------------------

async function child(what, file) {
  const started = process.hrtime.bigint();
  const ms = () => Number(process.hrtime.bigint() - started) / 1e6;
  const result = { what };
  let stage = 'start';
  try {
    if (what === 'parse') {
      stage = 'JSON.parse';
      const plan = JSON.parse(readFileSync(file, 'utf8'));
      result.changes = plan.resource_changes.length;
    } else {
      stage = 'import dist';
      const planModule = await import(pathToFileURL(join(dist, 'plan', 'index.js')).href);
      const policyModule = await import(pathToFileURL(join(dist, 'policy', 'index.js')).href);
      const designModule = await import(pathToFileURL(join(dist, 'design', 'index.js')).href);
      // Until the engine lands, still time the plan reader alone, so the table says something.
      let engine;
      let data;
      try {
        stage = 'load the engine (PolicyEngine.load)';
        engine = await policyModule.PolicyEngine.load();
        stage = 'compile the design (compilePolicyData)';
        data = policyModule.compilePolicyData(designModule.designSchema.parse(DESIGN));
      } catch (error) {
        result.engineError = `${stage}: ${error instanceof Error ? error.message : String(error)}`.split(
          '\n',
        )[0];
      }
      result.loadMs = ms();
      const source = planModule.fileSource(file);
      let plan;
      if (engine && data && !args.includes('--whole')) {
        stage = 'read and evaluate the plan (readAndEvaluatePlan)';
        // As the bundle route reads a plan file (src/policy/bundle/evaluator.ts): into reused buffers.
        const { consumedChunks } = await import(pathToFileURL(join(dist, 'plan', 'source.js')).href);
        const { evaluation } = await policyModule.readAndEvaluatePlan(consumedChunks(source), engine, data, {
          description: source.description,
        });
        result.streamMs = ms() - result.loadMs;
        result.changes = evaluation.counts.resource_changes;
        result.findings = evaluation.findings.length;
        result.counts = evaluation.counts;
      } else {
        stage = 'read the plan (readPlan)';
        plan = await planModule.readPlan(source.open(), { description: source.description });
        result.changes = plan.resource_changes.length;
        result.readMs = ms() - result.loadMs;
      }
      if (engine && data && args.includes('--whole')) {
        stage = 'evaluate (evaluatePlan)';
        const evaluation = engine.evaluatePlan(data, plan);
        result.evalMs = ms() - result.loadMs - result.readMs;
        result.findings = evaluation.findings.length;
        result.counts = evaluation.counts;
      }
    }
  } catch (error) {
    result.error = `${stage}: ${error instanceof Error ? error.message : String(error)}`.split('\n')[0];
  }
  result.ms = ms();
  const usage = process.resourceUsage();
  result.cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
  result.rssMb = usage.maxRSS / 1024;
  console.log(JSON.stringify(result));
}

// --- parent ------------------------------------------------------------------------------------

function measure(what, file) {
  const whole = args.includes('--whole') ? ['--whole'] : [];
  const out = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--child', what, '--file', file, ...whole],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const last = out.stdout.trim().split('\n').pop();
  if (out.status !== 0 || !last) {
    return {
      what,
      error: `child exited ${out.status}: ${out.stderr.trim().split('\n').slice(-3).join(' ')}`,
    };
  }
  return JSON.parse(last);
}

function median(samples) {
  if (samples.some((s) => s.error)) return samples.find((s) => s.error);
  const sorted = [...samples].sort((a, b) => a.ms - b.ms);
  const mid = sorted[Math.floor(sorted.length / 2)];
  return { ...mid, rssMb: Math.max(...samples.map((s) => s.rssMb)) };
}

function opaBinary() {
  const local = join(root, '.tools', 'bin', 'opa');
  if (existsSync(local)) return local;
  const which = spawnSync('sh', ['-c', 'command -v opa'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

/** Build and sign the bench design's bundle with dist's buildBundle, or say why not. */
async function prepareBundle() {
  const dir = join(OUT_DIR, 'bundle');
  mkdirSync(dir, { recursive: true });
  try {
    const bundleModule = await import(pathToFileURL(join(dist, 'policy', 'bundle', 'index.js')).href);
    const designModule = await import(pathToFileURL(join(dist, 'design', 'index.js')).href);
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const signingKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' });
    const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' });
    const bytes = await bundleModule.buildBundle({
      design: designModule.designSchema.parse(DESIGN),
      signingKeyPem,
    });
    const bundle = join(dir, 'bench.tar.gz');
    const key = join(dir, 'public.pem');
    writeFileSync(bundle, bytes);
    writeFileSync(key, publicKeyPem);
    return { bundle, key };
  } catch (error) {
    return {
      error: `bundle not available (${error instanceof Error ? error.message : String(error)})`.split(
        '\n',
      )[0],
    };
  }
}

/**
 * `opa eval` on the whole plan with the bundle, under /usr/bin/time for wall time and peak RSS.
 * opa eval has no flag to verify a bundle's signature (opa build and opa run do), so it loads it as is.
 */
function measureOpa(opa, bundle, file, timeoutSeconds) {
  const output = join(OUT_DIR, 'opa-eval-output.json');
  const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
  const opaArgs = [
    'eval',
    '--bundle',
    bundle.bundle,
    '--input',
    file,
    '--format',
    'json',
    'data.tfgate.conformance.plan',
  ];
  const command = timeBin ? [timeBin, '-f', '%e %M %U %S', opa, ...opaArgs] : [opa, ...opaArgs];
  const started = process.hrtime.bigint();
  const out = spawnSync('sh', ['-c', `exec "$@" > "${output}"`, 'sh', ...command], {
    encoding: 'utf8',
    timeout: timeoutSeconds * 1000,
    killSignal: 'SIGKILL',
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (out.error || out.signal) {
    rmSync(output, { force: true });
    return {
      what: 'opa',
      error: out.signal ? `killed after ${timeoutSeconds} s (${out.signal})` : String(out.error),
    };
  }
  const timeLine = timeBin ? out.stderr.trim().split('\n').pop() : '';
  const [, rssKb, userS, systemS] = timeBin ? timeLine.split(' ').map(Number) : [];
  const cpuMs = ((userS ?? Number.NaN) + (systemS ?? Number.NaN)) * 1000;
  if (out.status !== 0) {
    const why = out.stderr.trim().split('\n').slice(0, 3).join(' ');
    rmSync(output, { force: true });
    return { what: 'opa', error: `opa eval exited ${out.status}: ${why}` };
  }
  let findings;
  let counts;
  try {
    const value = JSON.parse(readFileSync(output, 'utf8')).result?.[0]?.expressions?.[0]?.value;
    findings = value?.findings?.length;
    counts = value?.counts;
  } catch {
    // A result too large or odd to read back only loses the findings column.
  }
  rmSync(output, { force: true });
  return { what: 'opa', ms, cpuMs, rssMb: (rssKb ?? Number.NaN) / 1024, findings, counts };
}

const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

async function main() {
  const sizes = option('sizes', '1000,10000,100000').split(',').map(Number);
  const runs = Number(option('runs', '3'));
  const opaRuns = Number(option('opa-runs', '1'));
  const opaTimeout = Number(option('opa-timeout', '900'));
  const withOpa = !args.includes('--no-opa');
  const notes = [];

  if (!existsSync(join(dist, 'plan', 'index.js'))) notes.push('dist/ is missing: run `npm run build` first');
  const opa = withOpa ? opaBinary() : undefined;
  if (withOpa && !opa) notes.push('opa not found (.tools/bin/opa or PATH): opa column skipped');
  // --bundle <file> evaluates a ready bundle (e.g. one pulled from the service) instead of building one.
  const given = option('bundle');
  const bundle = !opa
    ? { error: withOpa ? 'opa not found' : 'skipped (--no-opa)' }
    : given
      ? { bundle: resolve(given) }
      : await prepareBundle();
  if (bundle.error && opa) notes.push(`opa eval skipped: ${bundle.error}`);

  console.log('## Plan evaluation: local engine vs JSON.parse vs opa eval\n');
  const load = loadavg()[0];
  if (load > cpus().length) {
    notes.push(
      `load average ${load.toFixed(1)} on ${cpus().length} cores at the start: wall times are inflated, CPU s is steadier`,
    );
  }
  console.log(
    `Generated plans (bench/gen-plan.mjs), each measurement in a fresh process; local and JSON.parse: median of ${runs} (peak RSS: max), opa: ${opaRuns} run(s). Wall: from the first line of work to the result (local includes importing dist, loading the wasm and compiling the design); CPU: the whole process, node start-up included.\n`,
  );
  console.log('| changes | plan MB | what | wall s | CPU s | MB/s (wall) | peak RSS MB | findings | notes |');
  console.log('|---:|---:|---|---:|---:|---:|---:|---:|---|');

  const bySize = new Map();
  for (const changes of sizes) {
    const { path, bytes } = await ensurePlan(changes);
    const mb = bytes / 1e6;
    const parse = median(Array.from({ length: runs }, () => measure('parse', path)));
    const local = median(Array.from({ length: runs }, () => measure('local', path)));
    const opaResult =
      opa && !bundle.error
        ? median(Array.from({ length: opaRuns }, () => measureOpa(opa, bundle, path, opaTimeout)))
        : { what: 'opa', error: bundle.error };
    bySize.set(changes, { parse, local, opa: opaResult });
    const row = (label, r, extra = '') => {
      if (r.error) {
        console.log(
          `| ${changes.toLocaleString('en')} | ${fmt(mb, 1)} | ${label} | – | – | – | – | – | missing: ${r.error} |`,
        );
        return;
      }
      const seconds = r.ms / 1000;
      console.log(
        `| ${changes.toLocaleString('en')} | ${fmt(mb, 1)} | ${label} | ${fmt(seconds, 3)} | ${fmt(r.cpuMs / 1000, 3)} | ${fmt(mb / seconds)} | ${fmt(r.rssMb)} | ${r.findings ?? '–'} | ${extra} |`,
      );
    };
    row('bare `JSON.parse(readFileSync)`', parse);
    if (local.engineError && !local.error) {
      row('tfgate readPlan alone (engine missing)', local, `missing: ${local.engineError}`);
    } else {
      row(
        args.includes('--whole')
          ? 'tfgate local (readPlan + wasm evaluatePlan, whole plan)'
          : 'tfgate local (readAndEvaluatePlan, streamed)',
        local,
        local.error
          ? ''
          : local.streamMs === undefined
            ? `load ${fmt(local.loadMs)} ms, read ${fmt(local.readMs)} ms, evaluate ${fmt(local.evalMs)} ms`
            : `load ${fmt(local.loadMs)} ms, read + evaluate ${fmt(local.streamMs)} ms`,
      );
    }
    const agree =
      !opaResult.error && !local.error && opaResult.counts && local.counts
        ? JSON.stringify(sortKeys(opaResult.counts)) === JSON.stringify(sortKeys(local.counts))
          ? 'counts equal local'
          : 'counts DIFFER from local'
        : '';
    row('`opa eval -b` (same bundle, whole plan)', opaResult, agree);
  }

  console.log('');
  const largest = Math.max(...sizes);
  const { parse, local } = bySize.get(largest);
  if (parse.error || local.error || local.engineError) {
    console.log(
      `Targets at ${largest.toLocaleString('en')} changes: not measurable yet (${local.error ?? local.engineError ?? parse.error}).`,
    );
  } else {
    const ratio = local.ms / parse.ms;
    const cpuRatio = local.cpuMs / parse.cpuMs;
    const verdict = (ok) => (ok ? 'met' : 'NOT met');
    console.log(
      `Targets at ${largest.toLocaleString('en')} changes: local / JSON.parse = ${fmt(ratio, 2)}x wall, ${fmt(cpuRatio, 2)}x CPU (target ≤ ${TARGET_RATIO}x: ${verdict(ratio <= TARGET_RATIO)}); local peak RSS ${fmt(local.rssMb)} MB (target ≤ ${TARGET_RSS_MB} MB: ${verdict(local.rssMb <= TARGET_RSS_MB)}).`,
    );
    if (largest < 100000) console.log('(The targets are stated for 100,000 changes.)');
  }
  for (const note of notes) console.log(`\nNote: ${note}`);
  console.log('');
}

function sortKeys(object) {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)));
}

// Last, so every declaration above is initialized before either mode runs.
if (option('child')) {
  await child(option('child'), option('file'));
} else {
  await main();
}

#!/usr/bin/env node
import { createHmac } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DESIGN } from './design.mjs';
import { ensurePlan } from './gen-plan.mjs';
import { startServe as startServeProcess } from './serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const args = process.argv.slice(2);
const at = args.indexOf('--plan-changes');
const PLAN_CHANGES = at >= 0 ? Number(args[at + 1]) : 100_000;
const CONCURRENT = 100;
const KEY = 'tfg_bench_bootstrap_key_0123456789abcdef';
const HMAC_KEY = 'bench-run-task-hmac-key-0123456789abcdef';
const TOKEN = 'bench.atlasv1.token';
const BASE = '/v1/analysis/conformance';

console.log('## Run task (HCP Terraform): a post_plan task on a large plan, and concurrent small tasks\n');
if (!existsSync(cli)) {
  console.log(`skipped: ${cli} is missing; run \`npm run build\` first.\n`);
  process.exit(0);
}

const plan = await ensurePlan(PLAN_CHANGES);
const SMALL_PLAN = JSON.stringify({
  format_version: '1.2',
  resource_changes: [
    {
      address: 'aws_s3_bucket.logs',
      mode: 'managed',
      type: 'aws_s3_bucket',
      name: 'logs',
      change: { actions: ['create'] },
    },
  ],
});

// The double: plan JSON by plan id ("large" streams the file), callbacks recorded with their arrival time.
const finals = new Map();
const runningSeen = new Set();
const double = createServer((req, res) => {
  const url = new URL(req.url, 'http://double');
  const planMatch = /^\/api\/v2\/plans\/([^/]+)\/json-output$/.exec(url.pathname);
  if (req.method === 'GET' && planMatch) {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return res.writeHead(401).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    if (planMatch[1] === 'large') createReadStream(plan.path).pipe(res);
    else res.end(SMALL_PLAN);
    return;
  }
  const callback = /^\/api\/v2\/task-results\/([^/]+)\/callback$/.exec(url.pathname);
  if (req.method === 'PATCH' && callback) {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      const status = body.data.attributes.status;
      if (status === 'running') runningSeen.add(callback[1]);
      else finals.set(callback[1], [...(finals.get(callback[1]) ?? []), { status, at: performance.now() }]);
      res.writeHead(200).end();
    });
    return;
  }
  res.writeHead(404).end();
});
await new Promise((r) => double.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${double.address().port}`;

const dataDir = mkdtempSync(join(tmpdir(), 'tfgate-bench-runtask-'));
/** A `tfgate serve` on the bench data dir (kept across its restart). */
function startServe() {
  return startServeProcess({
    cli,
    cwd: root,
    key: KEY,
    dataDir,
    env: { TFGATE_RUN_TASK_ALLOWED_ORIGINS: origin },
    echoStderr: true,
  });
}
function stopServe(served) {
  return served.stop({ keep: true });
}

// First start creates the store; the package is set up, then the
// service restarts, so the peak RSS measured is the run task's, as on a long-running service.
const served = await startServe();
const serviceUrl = served.url;
const child = () => served.child;

async function call(method, path, body, contentType = 'application/json') {
  const res = await fetch(`${serviceUrl}${path}`, {
    method,
    headers: { 'x-api-key': KEY, 'content-type': contentType },
    body,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text;
}

function payload(id, planId) {
  return JSON.stringify({
    payload_version: 1,
    stage: 'post_plan',
    access_token: TOKEN,
    is_speculative: false,
    organization_name: 'bench',
    workspace_name: 'bench',
    run_id: `run-${id}`,
    plan_json_api_url: `${origin}/api/v2/plans/${planId}/json-output`,
    task_result_callback_url: `${origin}/api/v2/task-results/${id}/callback`,
    task_result_enforcement_level: 'mandatory',
    task_result_id: id,
  });
}

async function send(id, planId) {
  const body = payload(id, planId);
  const res = await fetch(`${serviceUrl}${BASE}/packages/bench/run-task`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-tfc-task-signature': createHmac('sha512', HMAC_KEY).update(body).digest('hex'),
    },
    body,
  });
  await res.text();
  return res.status;
}

/** The service's RSS now (VmRSS), sampled while a task runs (VmHWM also holds the start-up peak). */
function rssMb() {
  const status = readFileSync(`/proc/${child().pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function peakRssMb() {
  const status = readFileSync(`/proc/${child().pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function waitFinals(ids, timeoutMs) {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until && ids.some((id) => !finals.has(id))) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

try {
  await call('PUT', `${BASE}/packages/bench`, JSON.stringify(DESIGN));
  await call('POST', `${BASE}/packages/bench/approve`, '{}');
  await call(
    'PUT',
    `${BASE}/packages/bench/run-task`,
    JSON.stringify({ hmac_key: HMAC_KEY, min_severity: 'high' }),
  );
  // Warm-up: the engine loads on first use.
  await send('warmup', 'small');
  await waitFinals(['warmup'], 30_000);

  const before = peakRssMb();
  const idle = rssMb();
  let sampled = idle;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, rssMb());
  }, 10);
  const started = performance.now();
  const answer = await send('large', 'large');
  const answered = performance.now() - started;
  await waitFinals(['large'], 120_000);
  clearInterval(sampler);
  const large = finals.get('large')?.[0];
  const seconds = large ? (large.at - started) / 1000 : Number.NaN;
  const rss = peakRssMb();

  const ids = Array.from({ length: CONCURRENT }, (_, i) => `small-${i}`);
  const t0 = performance.now();
  const statuses = await Promise.all(ids.map((id) => send(id, 'small')));
  await waitFinals(ids, 60_000);
  const smallSeconds = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 500));
  const lost = ids.filter((id) => !finals.has(id)).length;
  const doubled = ids.filter((id) => (finals.get(id)?.length ?? 0) > 1).length;
  const accepted = statuses.filter((s) => s === 200).length;

  console.log('| measure | value | target |');
  console.log('| --- | ---: | --- |');
  console.log(
    `| plan size | ${(plan.bytes / 1e6).toFixed(1)} MB (${PLAN_CHANGES} changes) | the issue's plan: 100,000 changes, ~147 MB |`,
  );
  console.log(`| POST answered (HTTP ${answer}) | ${answered.toFixed(0)} ms | at once |`);
  console.log(`| POST → final callback (${large?.status ?? 'none'}) | ${seconds.toFixed(2)} s | < 3 s |`);
  console.log(
    `| service RSS during the task (sampled every 10 ms) | ${sampled.toFixed(0)} MB (idle before: ${idle.toFixed(0)} MB) | < 600 MB |`,
  );
  console.log(
    `| service peak RSS (VmHWM, start-up included) | ${rss.toFixed(0)} MB (${before.toFixed(0)} MB before the task) | – |`,
  );
  console.log(
    `| ${CONCURRENT} concurrent small tasks | ${accepted} accepted, ${CONCURRENT - lost} finished in ${smallSeconds.toFixed(2)} s, ${lost} lost, ${doubled} doubled | none lost |`,
  );
  console.log(
    `\nLoad average at the end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(', ')}.\n`,
  );
} finally {
  await stopServe(served);
  double.close();
  rmSync(dataDir, { recursive: true, force: true });
}

#!/usr/bin/env node
// Benchmark (issue 4, "Upload memory"): peak RSS of tfgate's client while it uploads a 1 GiB plan JSON to
// the evaluation route. Target: at most 150 MB. The plan is generated once into bench/out/ (gitignored);
// the upload runs in a fresh node process (dist/client's RemoteEvaluator, streaming from the file) against
// a local HTTP server in this process that discards the body and answers with a contract evaluation result.
//
//   node bench/upload-memory.bench.mjs [--changes N]   (default: enough changes for >= 1 GiB)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensurePlan } from './gen-plan.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, '..', 'dist');
const TARGET_MB = 150;
const GIB = 2 ** 30;
/** ~1.47 KB per change (gen-plan.mjs): 740k changes is just over 1 GiB. */
const DEFAULT_CHANGES = 740_000;

const args = process.argv.slice(2);
const at = args.indexOf('--changes');
const changes = at >= 0 ? Number(args[at + 1]) : DEFAULT_CHANGES;

if (!existsSync(join(dist, 'client', 'index.js'))) {
  console.error('upload-memory: dist/ is missing; run `npm run build` (npm run bench does)');
  process.exit(1);
}

console.log('## Upload memory: streaming a 1 GiB plan to the evaluation route\n');
const genStart = Date.now();
const plan = await ensurePlan(changes);
const genSeconds = (Date.now() - genStart) / 1000;

// The sink: reads and discards every byte, then answers like the service would.
let received = 0;
const server = createServer((req, res) => {
  req.on('data', (chunk) => {
    received += chunk.length;
  });
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        package_id: 'bench',
        decision: 'pass',
        min_severity: 'high',
        findings: [],
        counts: { resource_changes: changes, creations: 0, destructions: 0, unrecognized: 0, findings: 0 },
      }),
    );
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const baseUrl = `http://127.0.0.1:${server.address().port}`;

// The client, alone in its own process, so its peak RSS is the client's own.
const clientScript = `
const { ServiceClient, RemoteEvaluator } = await import(${JSON.stringify(pathToFileURL(join(dist, 'client', 'index.js')).href)});
const { fileSource } = await import(${JSON.stringify(pathToFileURL(join(dist, 'plan', 'index.js')).href)});
const started = process.hrtime.bigint();
const client = await ServiceClient.fromOptions({}, process.env);
const result = await new RemoteEvaluator(client, 'bench').evaluate(fileSource(process.env.PLAN), 'high');
await client.close();
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
process.stdout.write(JSON.stringify({ decision: result.decision, seconds, maxRssKb: process.resourceUsage().maxRSS }));
`;

// spawnSync would block this process's event loop, and with it the sink: run the child asynchronously.
const child = spawn(process.execPath, ['--input-type=module', '-e', clientScript], {
  env: {
    PATH: process.env.PATH,
    PLAN: plan.path,
    TFGATE_BASE_URL: baseUrl,
    TFGATE_API_KEY: 'bench-key-not-a-secret',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
child.stdout.on('data', (chunk) => {
  output += chunk;
});
const [code] = await once(child, 'exit');
server.close();
if (code !== 0) {
  console.error(`upload-memory: the client exited ${code}`);
  process.exit(1);
}
const measured = JSON.parse(output);
const peakMb = measured.maxRssKb / 1024;
const mbPerSecond = plan.bytes / 2 ** 20 / measured.seconds;

console.log(`| Plan | Bytes received by the server | Upload time | Throughput | Client peak RSS | Target |`);
console.log(`|---|---|---|---|---|---|`);
console.log(
  `| ${changes.toLocaleString('en')} changes, ${(plan.bytes / GIB).toFixed(2)} GiB | ${received.toLocaleString('en')} | ${measured.seconds.toFixed(1)} s | ${mbPerSecond.toFixed(0)} MiB/s | **${peakMb.toFixed(1)} MB** | ≤ ${TARGET_MB} MB: ${peakMb <= TARGET_MB ? 'met' : '**NOT MET**'} |`,
);
console.log(
  `\nThe body is streamed from the file (undici \`body: Readable\`), never held: memory stays flat as the plan grows. Plan generation (cached in bench/out/): ${genSeconds.toFixed(1)} s.\n`,
);
if (received !== plan.bytes) {
  console.error(`upload-memory: the server received ${received} bytes of ${plan.bytes}`);
  process.exit(1);
}
if (measured.decision !== 'pass') process.exit(1);

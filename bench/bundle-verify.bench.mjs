// Refusing hostile bundles (issue 8): `tfgate bundle verify` on the worst bundles we can build within and past
// the limits, each in a fresh process under /usr/bin/time (wall time and peak RSS, Node start-up included),
// side by side with `opa build --verification-key` on the same file. Target: every refusal within 2 s and
// 300 MB. Usage: npm run build && node bench/bundle-verify.bench.mjs [--runs 3] [--no-opa] [--opa-timeout 60]

import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGzip, gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const dist = join(root, 'dist');
const OUT = join(here, 'out', 'hostile-bundles');
const args = process.argv.slice(2);
const option = (name, fallback) =>
  args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback;
const RUNS = Number(option('runs', '3'));
const OPA_TIMEOUT_S = Number(option('opa-timeout', '60'));
const TARGET_MS = 2000;
const TARGET_MB = 300;
const MiB = 1024 * 1024;

const bundleModule = await import(pathToFileURL(join(dist, 'policy', 'bundle', 'index.js')).href);
const { readTarGz } = await import(pathToFileURL(join(dist, 'policy', 'bundle', 'tar.js')).href);
const { writeTarGz } = await import(pathToFileURL(join(dist, 'policy', 'bundle', 'tar-write.js')).href);

mkdirSync(OUT, { recursive: true });
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKeyPath = join(OUT, 'public.pem');
writeFileSync(publicKeyPath, publicKey.export({ type: 'spki', format: 'pem' }));
const data = {
  package_id: 'payments',
  sanctioned_kinds: ['queue'],
  capabilities: [],
  catalog: { aws_sqs_queue: 'queue' },
  dependency_pattern: '',
};
const genuine = bundleModule.assembleBundle(
  { packageId: 'payments', data, policy: await bundleModule.loadPolicySources() },
  { signingKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) },
);
const genuineEntries = readTarGz(genuine);

/** The genuine bundle, its .signatures.json kept, with one file's content replaced (or files added). */
const swap = (name, content, extra = []) =>
  writeTarGz([...genuineEntries.map((e) => (e.name === name ? { name, data: content } : e)), ...extra]);

/** JSON text of about `bytes` bytes: `{"tfgate":[<unit>,<unit>,…]}`. */
function filled(bytes, unit) {
  const count = Math.floor((bytes - 14) / (unit.length + 1));
  return Buffer.from(`{"tfgate":[${Array(count).fill(unit).join(',')}]}`);
}

/** One raw ustar header (for archives tfgate's writer would never produce). */
function header(name, type, size) {
  const h = Buffer.alloc(512);
  h.write(name, 0);
  h.write('0000644\0', 100);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write(type, 156);
  h.write('ustar\u000000', 257, 'latin1');
  h.write('        ', 148);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

function streamedZeros(bytes) {
  return new Promise((resolve) => {
    const gzip = createGzip({ level: 9 });
    const out = [];
    gzip.on('data', (c) => out.push(c)).on('end', () => resolve(Buffer.concat(out)));
    const chunk = Buffer.alloc(MiB);
    for (let i = 0; i < bytes / MiB; i++) gzip.write(chunk);
    gzip.end();
  });
}

/** Objects of the most members allowed (100,000), keys in no order, so each is sorted whole. */
const keys = (objects) => {
  const parts = [];
  for (let o = 0; o < objects; o++) {
    const members = [];
    for (let i = 0; i < 100_000; i++) members.push(`"k${String((i * 7919) % 1000003).padStart(7, '0')}":0`);
    parts.push(`{${members.join(',')}}`);
  }
  return Buffer.from(`{"tfgate":[${parts.join(',')}]}`);
};
const record = ' size=-1536\n';
const pax = `${record.length + 2}${record}`;
const paxLoop = gzipSync(
  Buffer.concat([
    header('x', 'x', pax.length),
    Buffer.from(pax.padEnd(512, '\0')),
    header('d/', '5', 0),
    Buffer.alloc(1024),
  ]),
);

const CASES = [
  ['genuine (accepted, for reference)', () => genuine],
  ['pax header with size -1536 (the loop of defect 2)', () => paxLoop],
  ['data.json: 120 MiB of [0,0,…] (defect 3)', () => swap('data.json', filled(120 * MiB, '0'))],
  [
    'data.json: 8 MiB of [0,0,…] (largest JSON file allowed)',
    () => swap('data.json', filled(8 * MiB - 64, '0')),
  ],
  ['data.json: 6 objects of 100k keys in no order (sorting)', () => swap('data.json', keys(6))],
  [
    'data.json: one object of 100,001 keys (past the limit)',
    () =>
      swap('data.json', Buffer.from(`{${Array.from({ length: 100_001 }, (_, i) => `"${i}":0`).join(',')}}`)),
  ],
  ['data.json: 8 MiB of small objects', () => swap('data.json', filled(8 * MiB - 64, '{"b":1,"a":"x"}'))],
  [
    'data.json: 8 MiB of U+2028 in one string (escaped on output)',
    () =>
      swap(
        'data.json',
        Buffer.from(JSON.stringify({ tfgate: '\u2028'.repeat(Math.floor((8 * MiB - 64) / 3)) })),
      ),
  ],
  [
    'data.json: 8 MiB string of \\u00e9 escapes (decoded)',
    () => swap('data.json', Buffer.from(`{"tfgate":"${'\\u00e9'.repeat(Math.floor((8 * MiB - 64) / 6))}"}`)),
  ],
  [
    'data.json: 8 MiB of 511-deep nesting',
    () => swap('data.json', filled(8 * MiB - 64, `${'['.repeat(510)}0${']'.repeat(510)}`)),
  ],
  [
    'data.json: 1M-deep nesting (past the depth limit)',
    () => swap('data.json', Buffer.from(`${'['.repeat(MiB)}${']'.repeat(MiB)}`)),
  ],
  [
    'policy.wasm: 16 MiB of other bytes (largest file allowed)',
    () => swap('policy.wasm', Buffer.alloc(16 * MiB - 4096, 7)),
  ],
  ['gzip bomb: 1 GiB of zeros (1 MB packed)', () => streamedZeros(1024 * MiB)],
  [
    '1,000 tiny files (the most allowed)',
    () =>
      swap(
        '',
        Buffer.alloc(0),
        Array.from({ length: 995 }, (_, i) => ({ name: `tfgate/f${i}.rego`, data: Buffer.alloc(0) })),
      ),
  ],
  [
    '60,000 tiny files (past the limit)',
    () =>
      swap(
        '',
        Buffer.alloc(0),
        Array.from({ length: 60_000 }, (_, i) => ({ name: `f${i}`, data: Buffer.alloc(0) })),
      ),
  ],
];

function timed(command) {
  const out = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', ...command], {
    encoding: 'utf8',
    timeout: OPA_TIMEOUT_S * 1000,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * MiB,
  });
  if (out.signal) return { error: `killed after ${OPA_TIMEOUT_S} s` };
  const lines = out.stderr.trim().split('\n');
  const [seconds, rssKb, user, system] = (lines.pop() ?? '').split(' ').map(Number);
  const said = `${out.stdout}\n${lines.join('\n')}`;
  return { ms: seconds * 1000, cpuMs: (user + system) * 1000, rssMb: rssKb / 1024, status: out.status, said };
}

function median(samples) {
  if (samples.some((s) => s.error)) return samples.find((s) => s.error);
  const sorted = [...samples].sort((a, b) => a.ms - b.ms);
  return { ...sorted[Math.floor(sorted.length / 2)], rssMb: Math.max(...samples.map((s) => s.rssMb)) };
}

const opa = existsSync(join(root, '.tools', 'bin', 'opa')) ? join(root, '.tools', 'bin', 'opa') : 'opa';
const withOpa = !args.includes('--no-opa');
const fmt = (r) =>
  r.error
    ? r.error
    : `${(r.ms / 1000).toFixed(2)} s (CPU ${(r.cpuMs / 1000).toFixed(2)} s), ${r.rssMb.toFixed(0)} MB`;
const reason = (r) =>
  r.error
    ? 'n/a'
    : r.status === 0
      ? 'accepted'
      : ((r.said ?? '').split('\n').find((l) => l.trim()) ?? '').slice(0, 100);

console.log(
  '## Refusing hostile bundles (`tfgate bundle verify`, fresh process each, Node start-up included)\n',
);
console.log(
  `Limits: ${JSON.stringify(bundleModule.DEFAULT_BUNDLE_LIMITS)}; ${RUNS} runs each, median wall, max peak RSS.\n`,
);
console.log(
  `| bundle | packed | tfgate | tfgate says | ${withOpa ? '`opa build --verification-key` |' : ''}`,
);
console.log(`|---|---:|---|---|${withOpa ? '---|' : ''}`);
let worst = { ms: 0, cpuMs: 0, rssMb: 0 };
for (const [name, make] of CASES) {
  const bytes = await make();
  const file = join(OUT, `${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.tar.gz`);
  writeFileSync(file, bytes);
  const tfgate = median(
    Array.from({ length: RUNS }, () =>
      timed([
        process.execPath,
        join(dist, 'cli', 'main.js'),
        'bundle',
        'verify',
        file,
        '--public-key',
        publicKeyPath,
      ]),
    ),
  );
  if (!name.startsWith('genuine') && !tfgate.error) {
    worst = {
      ms: Math.max(worst.ms, tfgate.ms),
      cpuMs: Math.max(worst.cpuMs, tfgate.cpuMs),
      rssMb: Math.max(worst.rssMb, tfgate.rssMb),
    };
  }
  const theirs = withOpa
    ? timed([
        opa,
        'build',
        '-b',
        file,
        '--verification-key',
        publicKeyPath,
        '--scope',
        'payments',
        '-o',
        join(OUT, 'opa-out.tar.gz'),
      ])
    : undefined;
  const packed =
    bytes.length >= MiB
      ? `${(bytes.length / MiB).toFixed(1)} MiB`
      : `${(bytes.length / 1024).toFixed(1)} KiB`;
  console.log(
    `| ${name} | ${packed} | ${fmt(tfgate)} | ${reason(tfgate).replaceAll('|', '\\|')} | ${theirs ? `${fmt(theirs)} (${theirs.error ? 'killed' : theirs.status === 0 ? 'accepted' : 'refused'}) |` : ''}`,
  );
}
const met = worst.ms <= TARGET_MS && worst.rssMb <= TARGET_MB;
console.log(
  `\nLoad average at the end: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(
      ', ',
    )}. Worst refusal: ${(worst.ms / 1000).toFixed(2)} s wall (CPU ${(worst.cpuMs / 1000).toFixed(2)} s), ${worst.rssMb.toFixed(0)} MB peak RSS; target ≤ ${TARGET_MS / 1000} s and ≤ ${TARGET_MB} MB: **${met ? 'met' : 'missed'}**.`,
);

// The genuine bundle verified in process on a cold process (the per-run cost of `check --bundle`), each phase
// timed once in a fresh process after the imports, then verifyBundle whole in another; CPU medians.
const PHASES = `
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
const [dist, file, pem, whole] = process.argv.slice(1);
const { readTarGz } = await import(dist + '/policy/bundle/tar.js');
const jws = await import(dist + '/policy/bundle/jws.js');
const { verifyBundle } = await import(dist + '/policy/bundle/verify.js');
const { parseUntrustedJson } = await import(dist + '/json/untrusted.js');
const bytes = readFileSync(file), key = readFileSync(pem), out = {};
let at = process.cpuUsage();
const lap = (name) => { const d = process.cpuUsage(at); out[name] = (d.user + d.system) / 1000; at = process.cpuUsage(); };
if (whole === 'whole') { await verifyBundle(bytes, { publicKeyPem: key }); lap('verifyBundle, whole'); }
else {
  const entries = readTarGz(bytes); lap('gunzip + tar');
  const token = parseUntrustedJson(entries.find((e) => e.name === '.signatures.json').data).signatures[0];
  await jws.verifyCompactJws(token, jws.loadVerificationKey(key)); lap('JWS (key, parse, RS256)');
  for (const e of entries) createHash('sha256').update(e.data).digest(); lap('SHA-256 of every file');
}
console.log(JSON.stringify(out));`;
const phaseRuns = { whole: [], phases: [] };
for (let i = 0; i < RUNS * 3; i++) {
  for (const kind of ['phases', 'whole']) {
    const run = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        PHASES,
        dist,
        join(OUT, 'genuine-accepted-for-reference-.tar.gz'),
        publicKeyPath,
        kind,
      ],
      { encoding: 'utf8' },
    );
    if (run.status === 0) phaseRuns[kind].push(JSON.parse(run.stdout));
  }
}
console.log('\n## Verifying the genuine bundle in process, cold (CPU ms, medians of fresh processes)\n');
console.log('| phase | CPU ms |\n|---|---:|');
for (const sample of [phaseRuns.phases, phaseRuns.whole]) {
  for (const phase of Object.keys(sample[0] ?? {})) {
    const values = sample.map((s) => s[phase]).sort((a, b) => a - b);
    console.log(`| ${phase} | ${values[values.length >> 1].toFixed(1)} |`);
  }
}

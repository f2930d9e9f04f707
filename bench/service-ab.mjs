#!/usr/bin/env node
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Pool, request } from 'undici';
import { startServe } from './serve.mjs';

const KEY = 'tfg_bench_bootstrap_key_0123456789abcdef';
const BASE = '/v1/analysis/conformance';
const DESIGN = {
  package_id: 'bench',
  name: 'Benchmark',
  sanctioned_kinds: ['relational_database', 'object_storage', 'generic_data'],
  capabilities: [{ name: 'ledger', depends_on: ['aws_db_instance.ledger'] }],
  catalog: { terraform_data: 'generic_data', aws_db_instance: 'relational_database', aws_sqs_queue: 'queue' },
};
const res = (type, name) => ({ address: `${type}.${name}`, mode: 'managed', type, name });
const STATE = JSON.stringify({
  format_version: '1.0',
  terraform_version: '1.11.4',
  values: {
    root_module: {
      resources: [
        res('aws_db_instance', 'ledger'),
        ...Array.from({ length: 20 }, (_, i) => res('terraform_data', `d${i}`)),
        ...['q1', 'q2', 'q3'].map((n) => res('aws_sqs_queue', n)),
      ],
    },
  },
});
const env = process.env.CPU_DB ? { TFGATE_DATABASE_URL: process.env.CPU_DB } : {};
async function start(root) {
  const { url, child, dataDir } = await startServe({
    cli: join(root, 'dist/cli/main.js'),
    cwd: root,
    key: KEY,
    env,
    prefix: 'as-cpu-',
    echoStderr: true,
  });
  const call = async (m, p, body) => {
    const r = await request(url + p, {
      method: m,
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body,
    });
    const t = await r.body.text();
    if (r.statusCode >= 300) throw new Error(t);
  };
  await call('PUT', `${BASE}/packages/bench`, JSON.stringify(DESIGN));
  await call('POST', `${BASE}/packages/bench/approve`);
  await call('PUT', `${BASE}/packages/bench/observed-state`, STATE);
  await call('POST', `${BASE}/packages/bench/gate?min_severity=high`);
  return { url, child, dataDir };
}
const cpu = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}; // ms
async function round(s, n, conc) {
  const pool = new Pool(s.url, { connections: conc });
  let left = n;
  const c0 = cpu(s.child.pid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (left-- > 0) {
        const r = await pool.request({
          method: 'POST',
          path: `${BASE}/packages/bench/gate?min_severity=high`,
          headers: { 'x-api-key': KEY },
        });
        await r.body.text();
        if (r.statusCode !== 200) throw new Error(String(r.statusCode));
      }
    }),
  );
  const wall = performance.now() - t0;
  const used = cpu(s.child.pid) - c0;
  await pool.close();
  return { usPerReq: (used * 1000) / n, rps: n / (wall / 1000) };
}
const [baseRoot, newRoot] = process.argv.slice(2);
if (!baseRoot || !newRoot) throw new Error('usage: node bench/service-ab.mjs <base checkout> <new checkout>');
const sides = { base: await start(baseRoot), new: await start(newRoot) };
const N = Number(process.env.CPU_N ?? 6000),
  CONC = Number(process.env.CPU_CONC ?? 50);
for (const s of Object.values(sides)) await round(s, 1000, CONC); // warm-up
const out = { base: [], new: [] };
for (let i = 0; i < Number(process.env.CPU_ROUNDS ?? 6); i++)
  for (const name of i % 2 ? ['new', 'base'] : ['base', 'new']) {
    const r = await round(sides[name], N, CONC);
    out[name].push(r);
    console.log(
      i,
      name,
      `${r.usPerReq.toFixed(1)} µs CPU/req`,
      `${Math.round(r.rps)} req/s`,
      readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 1)[0],
    );
  }
const med = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
for (const name of ['base', 'new'])
  console.log(
    name,
    'median',
    med(out[name].map((r) => r.usPerReq)).toFixed(1),
    'µs CPU/req;',
    Math.round(med(out[name].map((r) => r.rps))),
    'req/s',
  );
for (const s of Object.values(sides)) {
  s.child.kill('SIGTERM');
}
await new Promise((r) => setTimeout(r, 1000));
for (const s of Object.values(sides)) rmSync(s.dataDir, { recursive: true, force: true });
process.exit(0);

// A custom CA (--ca-file, NODE_EXTRA_CA_CERTS) and HTTP(S)_PROXY / NO_PROXY, with a real TLS server and a
// real CONNECT proxy on loopback.
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/client/index.js';
import { failure } from '../helpers/errors.js';
import { gate } from '../report/fixtures.js';
import { sendJson, testEnv } from './loopback.js';

const passBody = gate({ decision: 'pass', blocking: [] });
const dir = mkdtempSync(join(tmpdir(), 'tfgate-tls-'));
const caPath = join(dir, 'ca.pem');
let https: Server;
let httpsUrl = '';
let plain: Server;
let plainUrl = '';
let proxy: Server;
let proxyUrl = '';
const tunnelled: string[] = [];

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  // A private CA and a server certificate for 127.0.0.1, made with the real openssl.
  const run = (args: string[]) => execa('openssl', args, { cwd: dir });
  await run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=tfgate test CA',
  ]);
  await run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=127.0.0.1',
  ]);
  await writeFile(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  await run([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  ]);
  const { readFile } = await import('node:fs/promises');
  https = createHttpsServer(
    { key: await readFile(join(dir, 'server.key')), cert: await readFile(join(dir, 'server.pem')) },
    (_req, res) => sendJson(res, 200, passBody),
  );
  httpsUrl = `https://127.0.0.1:${await listen(https)}`;
  plain = createHttpServer((_req, res) => sendJson(res, 200, passBody));
  plainUrl = `http://127.0.0.1:${await listen(plain)}`;
  // A CONNECT proxy that records each tunnel's target.
  proxy = createHttpServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  proxy.on('connect', (req, socket, head) => {
    tunnelled.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;
});

afterAll(async () => {
  for (const s of [https, plain, proxy]) {
    s?.closeAllConnections();
    await new Promise((r) => s?.close(r));
  }
});

async function gateWith(flags: { caFile?: string }, env: NodeJS.ProcessEnv) {
  const client = await ServiceClient.fromOptions({ retries: 2, ...flags }, env);
  try {
    return await client.gate('payments', { minSeverity: 'high' });
  } finally {
    await client.close();
  }
}

describe('custom CA', () => {
  it('fails closed on an untrusted certificate, without retrying, and points at --ca-file', async () => {
    const error = await failure(gateWith({}, testEnv(httpsUrl)));
    expect(error.code).toBe('service_tls_error');
    expect(error.exitCode).toBe(4);
    expect(error.message).not.toMatch(/attempts/);
    expect(error.hint).toMatch(/--ca-file/);
  });

  it('trusts a CA given with --ca-file', async () => {
    expect((await gateWith({ caFile: caPath }, testEnv(httpsUrl))).decision).toBe('pass');
  });

  it('trusts a CA given with NODE_EXTRA_CA_CERTS', async () => {
    expect((await gateWith({}, testEnv(httpsUrl, { NODE_EXTRA_CA_CERTS: caPath }))).decision).toBe('pass');
  });
});

describe('proxies', () => {
  it('goes through HTTP_PROXY', async () => {
    tunnelled.length = 0;
    const port = new URL(plainUrl).port;
    expect((await gateWith({}, testEnv(plainUrl, { HTTP_PROXY: proxyUrl }))).decision).toBe('pass');
    expect(tunnelled).toEqual([`127.0.0.1:${port}`]);
  });

  it('tunnels HTTPS through HTTPS_PROXY, still checking the server against the custom CA', async () => {
    tunnelled.length = 0;
    const port = new URL(httpsUrl).port;
    const outcome = await gateWith({ caFile: caPath }, testEnv(httpsUrl, { HTTPS_PROXY: proxyUrl }));
    expect(outcome.decision).toBe('pass');
    expect(tunnelled).toEqual([`127.0.0.1:${port}`]);
  });

  it('bypasses the proxy for hosts in NO_PROXY', async () => {
    tunnelled.length = 0;
    const outcome = await gateWith({}, testEnv(plainUrl, { HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' }));
    expect(outcome.decision).toBe('pass');
    expect(tunnelled).toEqual([]);
  });
});

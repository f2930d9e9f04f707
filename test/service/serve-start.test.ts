// `tfgate serve` telling the operator what it is doing: the first start says it prepares the store, a store
// with no API key says at once how to create the first one, a bad bootstrap key is a plain usage error, and
// --help has one line per setting. Real child processes on a fresh embedded store.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServeConfig, SERVE_SETTINGS } from '../../src/service/config.js';
import { startService } from '../../src/service/index.js';
import { buildCli, CLI_MAIN } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', join(ROOT, 'test/helpers/ts-register.mjs'), join(ROOT, 'src/cli/main.ts')];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tfgate-serve-start-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Start serve, collect stderr until it logs "listening" on stdout, then stop it. */
async function startAndStop(dataDir: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, TFGATE_BOOTSTRAP_API_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  // What stderr held when the first stdout line came: notices must come before (or without) the service.
  let stderrBeforeListening: string | undefined;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not listen in 90 s\n${stderr}`)), 90_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('"listening"')) {
        stderrBeforeListening ??= stderr;
        clearTimeout(timer);
        done();
      }
    });
    void exited.then((code) => fail(new Error(`serve exited ${code}\n${stderr}`)));
  });
  child.kill('SIGTERM');
  await exited;
  return { stderr, stdout, stderrBeforeListening: stderrBeforeListening ?? '' };
}

describe('tfgate serve start-up notices', () => {
  it('a first start with no bootstrap key says it prepares the store and how to create the first key, on stderr; a second start still warns', async () => {
    const dataDir = join(dir, 'no-key');
    const first = await startAndStop(dataDir);
    expect(first.stderrBeforeListening).toContain(`preparing a new store in ${dataDir}`);
    expect(first.stderrBeforeListening).toContain('the store has no API key yet');
    expect(first.stderrBeforeListening).toContain('TFGATE_BOOTSTRAP_API_KEY');
    // Said once, not once per check.
    expect(first.stderr.split('no API key yet').length - 1).toBe(1);
    // Node 22 prints an ExperimentalWarning when node:sqlite loads; it must not reach the operator's log.
    expect(first.stderr).not.toMatch(/ExperimentalWarning|experimental feature/);
    const second = await startAndStop(dataDir);
    expect(second.stderr).not.toContain('preparing a new store');
    expect(second.stderrBeforeListening).toContain('the store has no API key yet');
  }, 240_000);

  it('a bootstrap key creates the first key: no warning, then or afterwards', async () => {
    const dataDir = join(dir, 'with-key');
    const first = await startAndStop(dataDir, {
      TFGATE_BOOTSTRAP_API_KEY: 'a-bootstrap-key-of-32-characters',
    });
    expect(first.stderr).toContain('preparing a new store');
    expect(first.stderr).not.toContain('no API key');
    const second = await startAndStop(dataDir);
    expect(second.stderr).not.toContain('no API key');
    // The same key again is silent; another one is said not to be used (it would be called with in vain).
    const same = await startAndStop(dataDir, {
      TFGATE_BOOTSTRAP_API_KEY: 'a-bootstrap-key-of-32-characters',
    });
    expect(same.stdout).not.toContain('was not used');
    const other = await startAndStop(dataDir, {
      TFGATE_BOOTSTRAP_API_KEY: 'another-bootstrap-key-of-32-chars',
    });
    expect(other.stdout).toContain('bootstrap: TFGATE_BOOTSTRAP_API_KEY was not used');
    expect(other.stdout + other.stderr).not.toContain('another-bootstrap-key-of-32-chars');
  }, 240_000);

  it('a too-short bootstrap key is a plain usage error (exit 1), never "internal error" with the schema JSON', async () => {
    const res = await execa(
      process.execPath,
      [...CLI, 'serve', '--port', '0', '--data-dir', join(dir, 'short')],
      {
        cwd: ROOT,
        env: { TFGATE_BOOTSTRAP_API_KEY: 'short' },
        reject: false,
      },
    );
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain('TFGATE_BOOTSTRAP_API_KEY: must be at least 16 characters');
    expect(res.stderr).not.toMatch(/internal error|"code"|too_small/);
    // The library's resolver says the same, as a usage error.
    expect(() => resolveServeConfig({}, { TFGATE_BOOTSTRAP_API_KEY: 'short' })).toThrow(
      /^TFGATE_BOOTSTRAP_API_KEY: must be at least 16 characters/,
    );
  });

  it('--help has one line per setting naming its flag and its environment variable', async () => {
    const res = await execa(process.execPath, [...CLI, 'serve', '--help'], { cwd: ROOT, reject: false });
    expect(res.exitCode).toBe(0);
    const lines = res.stdout.split('\n');
    for (const setting of SERVE_SETTINGS) {
      const line = lines.find((l) => l.trimStart().startsWith(setting.flag) && l.includes(setting.env));
      expect(line, setting.flag).toBeDefined();
    }
  });
});

/** Run serve to its exit (it must not start), with a fresh TFGATE_* environment. */
function serveFails(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('TFGATE_') && name !== 'DATABASE_URL'),
  );
  return execa(process.execPath, [...CLI, 'serve', ...args], {
    cwd: ROOT,
    env: { ...clean, ...env },
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
}

/** A plain refusal: exit 1, one error and its hint, no "internal error", no notice printed before it. */
function expectPlainRefusal(res: { exitCode?: number; stderr: string }, message: RegExp, hint: RegExp) {
  expect(res.exitCode, res.stderr).toBe(1);
  const [error, hintLine, ...rest] = res.stderr.split('\n');
  expect(error).toMatch(message);
  expect(hintLine).toMatch(hint);
  expect(rest).toEqual([]);
  expect(res.stderr).not.toMatch(/internal error|bug in tfgate|preparing a new store|no API key yet/);
}

describe('tfgate serve start-up failures of the environment: plain words, exit 1, never "internal error"', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((done) => taken?.close(done));
  });

  it('a port in use is said before any store is created or any notice printed', async () => {
    const dataDir = join(dir, 'port-in-use');
    const res = await serveFails(['--port', String(port), '--data-dir', dataDir]);
    expectPlainRefusal(
      res,
      new RegExp(
        `^error: tfgate serve cannot listen on 127\\.0\\.0\\.1:${port}: another process already listens on port ${port}$`,
      ),
      /^hint: stop that process .*pick a free port with --port \(env TFGATE_PORT\)/,
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it("a --host that does not resolve, or is not this machine's, is said before any store is created", async () => {
    const dataDir = join(dir, 'bad-host');
    const unresolved = await serveFails([
      '--port',
      '0',
      '--host',
      'no-such-host.invalid',
      '--data-dir',
      dataDir,
    ]);
    expectPlainRefusal(
      unresolved,
      /^error: tfgate serve cannot listen on no-such-host\.invalid:0: the name no-such-host\.invalid (does not resolve to an address|could not be looked up)/,
      /^hint: (give an address or name of this machine with --host \(env TFGATE_HOST\)|try again)/,
    );
    // TEST-NET-1 (RFC 5737): never an address of this machine.
    const foreign = await serveFails(['--port', '0', '--host', '192.0.2.1', '--data-dir', dataDir]);
    expectPlainRefusal(
      foreign,
      /^error: tfgate serve cannot listen on 192\.0\.2\.1:0: 192\.0\.2\.1 is not an address of this machine$/,
      /^hint: give an address or name of this machine with --host/,
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it('a --data-dir that is a file, or under one, names it and says what to give instead', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a directory');
    expectPlainRefusal(
      await serveFails(['--port', '0', '--data-dir', file]),
      new RegExp(
        `^error: tfgate serve cannot use the data dir ${file}: ${file} is a file, not a directory \\(EEXIST\\)$`,
      ),
      /^hint: give a directory with --data-dir \(env TFGATE_DATA_DIR\)/,
    );
    expectPlainRefusal(
      await serveFails(['--port', '0', '--data-dir', join(file, 'data')]),
      /: a part of its path is a file, not a directory \(ENOTDIR\)$/,
      /^hint: give a path whose parents are directories/,
    );
  });

  it('a --database-url that is not a PostgreSQL URL is a usage error naming the setting, never echoing the URL', async () => {
    for (const [url, said] of [
      ['not a url', 'is not a URL'],
      [
        'mysql://tfgate:a-db-password-canary@db.example/tfgate',
        'is a mysql: URL, and tfgate serve stores in PostgreSQL only',
      ],
    ] as const) {
      // As the flag, and as DATABASE_URL.
      for (const [args, env] of [
        [['--database-url', url], {}],
        [[], { DATABASE_URL: url }],
      ] as Array<[string[], Record<string, string>]>) {
        const res = await serveFails(['--port', '0', ...args], env);
        expectPlainRefusal(
          res,
          new RegExp(
            `^error: --database-url \\(env TFGATE_DATABASE_URL or DATABASE_URL\\): ${said}: give postgres://user@host:5432/database`,
          ),
          /^hint: run tfgate serve --help/,
        );
        expect(res.stderr).not.toContain('canary');
      }
    }
  });

  it('a database that refuses the connection is said with its host and port, the password hidden', async () => {
    // The port just taken and released: nothing listens there.
    const free = createServer();
    await new Promise<void>((done) => free.listen(0, '127.0.0.1', done));
    const closed = (free.address() as { port: number }).port;
    await new Promise((done) => free.close(done));
    const res = await serveFails([
      '--port',
      '0',
      '--database-url',
      `postgres://tfgate:a-db-password-canary@127.0.0.1:${closed}/tfgate`,
    ]);
    expectPlainRefusal(
      res,
      new RegExp(
        `^error: tfgate serve cannot connect to PostgreSQL at postgres://tfgate:\\*\\*\\*@127\\.0\\.0\\.1:${closed}/tfgate: nothing accepts connections at 127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\)$`,
      ),
      /^hint: start PostgreSQL there, or correct the host and port: check --database-url/,
    );
    expect(res.stderr).not.toContain('canary');
  });

  it('a database address that takes the connection and never answers gives up after --database-connect-timeout, naming host and port', async () => {
    // A firewall that drops packets never answers; a loopback socket that is accepted and never spoken to
    // keeps pg waiting the same way (its handshake is never answered), without depending on the network.
    const accepted = new Set<Socket>();
    const silent = createServer((socket) => {
      accepted.add(socket);
    });
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const silentPort = (silent.address() as { port: number }).port;
    try {
      const url = `postgres://tfgate:a-db-password-canary@127.0.0.1:${silentPort}/tfgate`;
      const started = Date.now();
      const res = await serveFails([
        '--port',
        '0',
        '--database-url',
        url,
        '--database-connect-timeout',
        '1s',
      ]);
      expectPlainRefusal(
        res,
        new RegExp(
          `^error: tfgate serve cannot connect to PostgreSQL at postgres://tfgate:\\*\\*\\*@127\\.0\\.0\\.1:${silentPort}/tfgate: no answer from 127\\.0\\.0\\.1:${silentPort} within 1s \\(connect timeout\\)$`,
        ),
        /^hint: check that PostgreSQL listens at that host and port and that no firewall .* drops the connection, .*--database-connect-timeout \(env TFGATE_DATABASE_CONNECT_TIMEOUT\)$/,
      );
      expect(res.stderr).not.toContain('canary');
      // It returned on its own, well before serveFails' 60 s limit would have killed it.
      expect(res.timedOut).toBe(false);
      expect(Date.now() - started).toBeLessThan(30_000);
      // The same limit from the environment, in milliseconds.
      const fromEnv = await serveFails(['--port', '0', '--database-url', url], {
        TFGATE_DATABASE_CONNECT_TIMEOUT: '500ms',
      });
      expect(fromEnv.exitCode, fromEnv.stderr).toBe(1);
      expect(fromEnv.stderr).toContain(
        `no answer from 127.0.0.1:${silentPort} within 500ms (connect timeout)`,
      );
    } finally {
      // Sockets never read do not see the other end close: destroyed, or close() would wait for them.
      for (const socket of accepted) socket.destroy();
      await new Promise((done) => silent.close(done));
    }
  }, 90_000);

  it('the connect timeout is 10 s unless set, and a limit of 0 (waiting for ever) is refused', async () => {
    expect(resolveServeConfig({}, {}).databaseConnectTimeout).toBe(10_000);
    expect(resolveServeConfig({ databaseConnectTimeout: '2m' }, {}).databaseConnectTimeout).toBe(120_000);
    for (const value of ['0', '0s', '0ms']) {
      expect(() => resolveServeConfig({}, { TFGATE_DATABASE_CONNECT_TIMEOUT: value })).toThrow(
        /^--database-connect-timeout \(env TFGATE_DATABASE_CONNECT_TIMEOUT\): must be more than 0 \(a limit of 0 would wait for ever\)/,
      );
    }
    const res = await serveFails(['--port', '0', '--database-connect-timeout', '0']);
    expectPlainRefusal(
      res,
      /^error: --database-connect-timeout \(env TFGATE_DATABASE_CONNECT_TIMEOUT\): must be more than 0/,
      /^hint: run tfgate serve --help/,
    );
  });
});

/** The system's Node 20 (no node:sqlite), where the machine has one: /usr/bin/node on the test images. */
const NODE_20 = '/usr/bin/node';
const hasNode20 =
  existsSync(NODE_20) && execFileSync(NODE_20, ['--version'], { encoding: 'utf8' }).trim().startsWith('v20.');

describe.skipIf(!hasNode20)(
  'tfgate serve on Node 20, which has no node:sqlite (the built CLI, run by /usr/bin/node)',
  () => {
    it('the embedded store says it needs Node 22.16 or later, naming the running version: never a damaged store', async () => {
      await buildCli();
      const dataDir = join(dir, 'node-20');
      const clean = Object.fromEntries(
        Object.entries(process.env).filter(
          ([name]) => !name.startsWith('TFGATE_') && name !== 'DATABASE_URL',
        ),
      );
      const res = await execa(NODE_20, [CLI_MAIN, 'serve', '--port', '0', '--data-dir', dataDir], {
        cwd: ROOT,
        env: clean,
        extendEnv: false,
        reject: false,
        timeout: 60_000,
      });
      const version = execFileSync(NODE_20, ['--version'], { encoding: 'utf8' }).trim();
      // Every command first warns that this Node is not supported; then the refusal, as plain as ever.
      const [warning, ...after] = res.stderr.split('\n');
      expect(warning).toMatch(
        new RegExp(`^warning: Node\\.js ${version.replaceAll('.', '\\.')} is not supported by tfgate`),
      );
      expectPlainRefusal(
        { ...res, stderr: after.join('\n') },
        new RegExp(
          `^error: the embedded store needs Node's built-in node:sqlite, which Node ${version.replaceAll('.', '\\.')} does not have, so tfgate serve cannot start: it needs Node 22\\.16 or later$`,
        ),
        /^hint: run tfgate on Node 22\.16 or later .*, or store in PostgreSQL with --database-url \(env TFGATE_DATABASE_URL or DATABASE_URL\)/,
      );
      expect(res.stderr).not.toMatch(/damaged|mv /);
      // Said before anything was made: no data dir, no lock, no half-created store.
      expect(existsSync(dataDir)).toBe(false);
    }, 240_000);
  },
);

describe('startService binds the port before it opens the store', () => {
  it('a request that arrives while the store is being created waits, then is answered', async () => {
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
    const port = (probe.address() as { port: number }).port;
    await new Promise((done) => probe.close(done));
    const config = resolveServeConfig(
      { port: String(port), dataDir: join(dir, 'held-request'), logLevel: 'silent', driftInterval: '0' },
      {},
    );
    let early: Promise<Response> | undefined;
    const service = await startService(config, undefined, {
      // The port is bound by now: this request reaches tfgate before the service exists.
      creatingStore: () => {
        early = fetch(`http://127.0.0.1:${port}/readyz`);
      },
    });
    try {
      expect(early).toBeDefined();
      const answer = await early!;
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ status: 'ready' });
    } finally {
      await service.close();
    }
  });
});

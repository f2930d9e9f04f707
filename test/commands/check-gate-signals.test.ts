// A signal during `tfgate check` or `tfgate gate` (no terraform step of their own): no decision, every report
// file saying so, then tfgate ends by the signal. Before, the signal killed tfgate and left the previous run's
// report, which a CI step could publish as this run's pass.
// Fake: a loopback service that takes the request and never answers, a fault the real service does not
// produce; it holds the command in flight while the signal comes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, CLI_MAIN } from '../helpers/cli.js';

const PLAN = join(import.meta.dirname, '..', 'fixtures', 'plans', 'destroy.json');
let server: Server;
let baseUrl = '';
let arrived: () => void = () => {};
let dir = '';

beforeAll(async () => {
  await buildCli();
  dir = mkdtempSync(join(tmpdir(), 'tfgate-interrupt-'));
  server = createServer((req) => {
    req.resume(); // take the whole request, then never respond
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** tfgate from dist against the hanging service: a key and PATH in its environment, nothing else. */
function tfgate(args: readonly string[]) {
  return execa('node', [CLI_MAIN, ...args], {
    env: { TFGATE_API_KEY: 'tfg_hang', NO_COLOR: '1', PATH: process.env.PATH ?? '' },
    extendEnv: false,
    reject: false,
  });
}

/** The next request's arrival at the hanging service. Call before starting the command that sends it. */
function nextRequest(): Promise<void> {
  return new Promise<void>((resolve) => {
    arrived = resolve;
  });
}

/** Waits until the service has the request; a command that ends first fails the test with its stderr. */
async function whenAsked(child: ReturnType<typeof tfgate>, requested: Promise<void>): Promise<void> {
  await Promise.race([
    requested,
    child.then((early) => {
      throw new Error(`ended before the service was asked:\n${early.stderr}`);
    }),
  ]);
}

describe.each([
  ['check', ['check', '--package', 'payments', '--plan-json', PLAN], 'the evaluation'],
  ['gate', ['gate', '--package', 'payments'], 'the gate call'],
] as const)('tfgate %s interrupted while the service is waited on', (name, args, during) => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: the reports say no decision, and tfgate ends by the signal',
    async (signal) => {
      const report = join(dir, `${name}-${signal}.json`);
      const junit = join(dir, `${name}-${signal}.xml`);
      // An earlier run's result, which must not survive this run.
      writeFileSync(report, JSON.stringify({ package_id: 'payments', decision: 'pass' }));
      writeFileSync(junit, '<testsuites tests="1" failures="0"/>');
      const requested = nextRequest();
      const child = tfgate([
        ...args,
        '--base-url',
        baseUrl,
        '--report',
        `json=${report}`,
        '--report',
        `junit=${junit}`,
      ]);
      await whenAsked(child, requested);
      child.kill(signal);
      const result = await child;
      expect(result.signal, result.stderr).toBe(signal);
      expect(result.stderr).toContain(`error: interrupted by ${signal} during ${during}: no decision`);
      expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({
        decision: 'no_decision',
        error: { code: 'interrupted' },
      });
      expect(readFileSync(junit, 'utf8')).toContain('interrupted');
    },
  );
});

describe('tfgate state push --state-json interrupted', () => {
  // Before, with --state-json no signal handler was installed: the signal killed tfgate without a word.
  const STATE = JSON.stringify({ format_version: '1.0', values: { root_module: { resources: [] } } });

  it.each([
    ['a file, sent whole: the service is waited on', 'file', 'while pushing the state to the service'],
    ['stdin, still open: the state is still being read', 'stdin', 'while reading --state-json'],
  ] as const)('%s', async (_, input, says) => {
    const stateFile = join(dir, 'state.json');
    writeFileSync(stateFile, STATE);
    const requested = nextRequest();
    // stdin: a pipe that stays open (execa's default input is a pipe we never end).
    const child = tfgate([
      'state',
      'push',
      '--package',
      'payments',
      '--state-json',
      input === 'file' ? stateFile : '-',
      '--base-url',
      baseUrl,
    ]);
    // Enough of a state (whitespace is JSON) that the client starts its request before stdin ends.
    if (input === 'stdin') child.stdin?.write(`{"format_version":"1.0",${' '.repeat(1024 * 1024)}`);
    // The hanging server resolves `arrived` once the request's headers are in (req.resume reads the body).
    await whenAsked(child, requested);
    child.kill('SIGTERM');
    const result = await child;
    expect(result.signal, result.stderr).toBe('SIGTERM');
    expect(result.stderr).toContain(`error: interrupted by SIGTERM ${says}`);
  });
});

describe("check, plan and apply take the service route's --timeout and --retries (gate and bundle pull did)", () => {
  it('check gives up after --timeout with --retries 0: no decision, saying how long it waited', async () => {
    const child = await tfgate([
      'check',
      '--package',
      'payments',
      '--plan-json',
      PLAN,
      '--base-url',
      baseUrl,
      '--timeout',
      '0.5',
      '--retries',
      '0',
    ]);
    expect(child.exitCode, child.stderr).toBe(4);
    expect(child.stderr).toContain('did not answer within 500 ms for the evaluation');
  });

  it.each([
    [['--timeout', '0'], '--timeout: must be at least 0.001'],
    [['--retries', '11'], '--retries'],
  ])('check refuses %j before any call, naming the flag', async (flags, says) => {
    const child = await tfgate([
      'check',
      '--package',
      'payments',
      '--plan-json',
      PLAN,
      '--base-url',
      baseUrl,
      ...flags,
    ]);
    expect(child.exitCode, child.stderr).toBe(1);
    expect(child.stderr).toContain(says);
  });

  it('refuses them with --bundle: nothing is waited for there', async () => {
    const child = await tfgate([
      'check',
      '--bundle',
      'b.tar.gz',
      '--public-key',
      'k.pem',
      '--plan-json',
      PLAN,
      '--timeout',
      '5',
    ]);
    expect(child.exitCode, child.stderr).toBe(1);
    expect(child.stderr).toContain('--timeout applies to the service route (--package) only');
  });
});

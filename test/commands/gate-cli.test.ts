// `tfgate gate` and `tfgate bundle pull` as a user runs them (the built CLI): exit codes and messages.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli } from '../helpers/cli.js';
import { startService, type TestService } from '../helpers/service.js';
import { driftedPackage } from './gate-fixtures.js';

let svc: TestService;
let designs = true;
beforeAll(async () => {
  await buildCli();
  svc = await startService();
  designs = await driftedPackage(svc, 'cli-drift').then(
    () => true,
    () => false,
  );
}, 180_000);
afterAll(async () => {
  await svc?.stop();
});

const env = (extra: Record<string, string> = {}) => ({
  TFGATE_BASE_URL: svc.baseUrl,
  TFGATE_API_KEY: svc.apiKey,
  ...extra,
});

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => probe.once('listening', r));
  const { port } = probe.address() as { port: number };
  await new Promise((r) => probe.close(r));
  return port;
}

describe('tfgate gate exit codes', () => {
  it('exit 3 with the blocking findings when blocked; exit 0 and a loud warning with --advisory', async () => {
    if (!designs) return expect.fail('the service could not create a package (design parsing)');
    const blocked = await runCli(['gate', '--package', 'cli-drift', '--min-severity', 'high'], {
      env: env(),
    });
    expect(blocked.exitCode).toBe(3);
    expect(blocked.stdout).toMatch(/^FAIL: 2 failures/);
    expect(blocked.stdout).toContain('terraform_data.extra');
    const advisory = await runCli(['gate', '--package', 'cli-drift', '--advisory'], { env: env() });
    expect(advisory.exitCode).toBe(0);
    expect(advisory.stderr).toContain('WOULD HAVE BLOCKED');
    expect(advisory.stderr).toContain('; exiting 0 because --advisory was given');
    const fromEnv = await runCli(['gate', '--package', 'cli-drift'], {
      env: env({ TFGATE_ADVISORY: 'yes' }),
    });
    expect(fromEnv.exitCode).toBe(0);
    expect(fromEnv.stdout).toMatch(
      /^ADVISORY: would block .*; not enforced because TFGATE_ADVISORY=yes is set$/m,
    );
    expect(fromEnv.stderr).toMatch(/WOULD HAVE BLOCKED .*; exiting 0 because TFGATE_ADVISORY=yes is set$/m);
  });

  it('exit 1 without TFGATE_API_KEY, and there is no flag to pass one', async () => {
    const result = await runCli(['gate', '--package', 'cli-drift'], {
      env: { TFGATE_BASE_URL: svc.baseUrl },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('TFGATE_API_KEY is not set');
    const flag = await runCli(['gate', '--package', 'cli-drift', '--api-key', 'x'], { env: env() });
    expect(flag.exitCode).toBe(1);
    expect(flag.stderr).toMatch(/unknown option '--api-key'/);
  });

  it('exit 1 for an unknown package, with a hint', async () => {
    const result = await runCli(['gate', '--package', 'does-not-exist'], { env: env() });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('package "does-not-exist" was not found');
    expect(result.stderr).toMatch(/^hint: /m);
  });

  it('exit 1 for a wrong key, which is never printed', async () => {
    const key = 'tfg_this_wrong_key_must_never_be_printed';
    const result = await runCli(['gate', '--package', 'cli-drift'], { env: env({ TFGATE_API_KEY: key }) });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('HTTP 401');
    expect(result.stdout + result.stderr).not.toContain(key);
  });

  it('exit 4 (fail closed) when the service cannot be reached', async () => {
    const port = await freePort();
    const result = await runCli(['gate', '--package', 'p', '--retries', '1'], {
      env: env({ TFGATE_BASE_URL: `http://127.0.0.1:${port}`, TFGATE_RETRY_BASE_DELAY_MS: '1' }),
    });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toMatch(
      /could not reach the tfgate service at http:\/\/127\.0\.0\.1:\d+ for the gate after 2 attempts/,
    );
    // The wait is never silent: each retry is said, with why and when.
    expect(result.stderr).toMatch(
      /^gate: the service refused the connection; trying again in \d ms \(attempt 2 of 2\)$/m,
    );
  });

  it('a state backend the service cannot read: exit 4 at once, said as the backend, not the service', async () => {
    if (!designs) return expect.fail('the service could not create a package (design parsing)');
    await driftedPackage(svc, 'cli-backend');
    const port = await freePort();
    const set = await runCli(
      [
        'state-source',
        'set',
        '--package',
        'cli-backend',
        '--type',
        'http',
        '--config',
        `address=http://127.0.0.1:${port}/state`,
        '--config',
        'retry_max=0',
      ],
      { env: env() },
    );
    expect(set.exitCode, set.stderr).toBe(0);
    const result = await runCli(['gate', '--package', 'cli-backend', '--refresh'], {
      env: env({ TFGATE_RETRY_BASE_DELAY_MS: '1' }),
    });
    expect(result.exitCode, result.stderr).toBe(4);
    // The service answered for the backend (its terraform already tried): not retried, not blamed.
    expect(result.stderr).not.toMatch(/trying again|attempts/);
    expect(result.stderr).toMatch(
      /^error: the state backend of package "cli-backend" could not be read \(HTTP 502 drift_check_failed\): .*http backend/m,
    );
    expect(result.stderr).toMatch(
      /^hint: the service is up; .*tfgate state-source show --package cli-backend/m,
    );
    expect(result.stderr).not.toContain("service's health");
  }, 60_000);

  it('says so on stderr before each retry when the service does not answer in time', async () => {
    const silent = createServer((socket) => socket.on('data', () => {})).listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    const { port } = silent.address() as { port: number };
    try {
      const result = await runCli(['gate', '--package', 'p', '--retries', '2', '--timeout', '0.3'], {
        env: env({ TFGATE_BASE_URL: `http://127.0.0.1:${port}`, TFGATE_RETRY_BASE_DELAY_MS: '1' }),
      });
      expect(result.exitCode).toBe(4);
      const notices = result.stderr.split('\n').filter((line) => line.startsWith('gate: the service'));
      expect(notices).toEqual([
        expect.stringMatching(
          /^gate: the service did not answer within 300 ms; trying again in \d ms \(attempt 2 of 3\)$/,
        ),
        expect.stringMatching(
          /^gate: the service did not answer within 300 ms; trying again in \d ms \(attempt 3 of 3\)$/,
        ),
      ]);
    } finally {
      await new Promise((r) => silent.close(r));
    }
  });

  it("exit 4 writes each report file as no decision: an earlier gate's pass never stays", async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-gate-reports-'));
    try {
      const [junit, json] = [join(dir, 'gate.xml'), join(dir, 'gate.json')];
      for (const file of [junit, json]) writeFileSync(file, 'PASS (an earlier gate)\n');
      const result = await runCli(
        [
          'gate',
          '--package',
          'payments',
          '--retries',
          '1',
          '--report',
          `junit=${junit}`,
          '--report',
          `json=${json}`,
        ],
        { env: env({ TFGATE_BASE_URL: `http://127.0.0.1:${port}`, TFGATE_RETRY_BASE_DELAY_MS: '1' }) },
      );
      expect(result.exitCode).toBe(4);
      expect(result.stdout).toBe('');
      expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({
        package_id: 'payments',
        decision: 'no_decision',
        error: { message: expect.stringMatching(/could not reach the tfgate service/) },
      });
      expect(readFileSync(junit, 'utf8')).toMatch(
        /<testsuite name="tfgate gate payments" tests="1" failures="0" errors="1"[\s\S]*<error message="no decision: could not reach/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exit 1 for a report file that cannot be written, before the service is asked', async () => {
    // No service listens here: a path checked only after the gate would say "could not reach" (exit 4).
    const port = await freePort();
    const result = await runCli(['gate', '--package', 'p', '--report', 'sarif=/nonexistent/gate.sarif'], {
      env: env({ TFGATE_BASE_URL: `http://127.0.0.1:${port}`, TFGATE_RETRY_BASE_DELAY_MS: '1' }),
    });
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      'cannot write the sarif report to /nonexistent/gate.sarif: the directory /nonexistent does not exist',
    );
  });

  it('exit 1 for a bad flag value, naming the flag', async () => {
    const result = await runCli(['gate', '--package', 'p', '--min-severity', 'severe'], { env: env() });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('--min-severity');
  });

  it("exit 1 without --package, saying what is missing and how to give it (not the schema library's words)", async () => {
    const result = await runCli(['gate'], { env: env({ TFGATE_PACKAGE: '' }) });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('tfgate gate needs the package to gate: --package <id>');
    expect(result.stderr).toContain('TFGATE_PACKAGE');
    expect(result.stderr).not.toMatch(/Invalid input|expected string|is required/);
  });
});

describe('tfgate bundle pull exit codes', () => {
  it('prints the paths of a pulled bundle', async () => {
    if (!designs) return expect.fail('the service could not create a package (design parsing)');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'tfgate-pull-cli-'));
    const result = await runCli(['bundle', 'pull', '--package', 'cli-drift', '--dir', dir], { env: env() });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`bundle:     ${join(dir, 'cli-drift', 'bundle.tar.gz')}`);
    expect(result.stdout).toContain(`public key: ${join(dir, 'cli-drift', 'public-key.pem')}`);
  });

  it('exit 1 for an unknown package', async () => {
    const result = await runCli(['bundle', 'pull', '--package', 'does-not-exist', '--dir', '/tmp/x'], {
      env: env(),
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('was not found');
  });
});

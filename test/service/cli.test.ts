// The service's CLI: `tfgate keys create` (admin API, key printed once to stdout) and `tfgate state push`
// (a file, or terraform show -json run by tfgate on a real terraform_data state). Real child processes.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  CONFORMANCE,
  createApprovedPackage,
  startService,
  type TestService,
} from '../helpers/service.js';
import { design, STATE_WITH_QUEUE } from './fixtures.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
let svc: TestService;
let dir: string;

beforeAll(async () => {
  svc = await startService();
  dir = await mkdtemp(join(tmpdir(), 'tfgate-svc-cli-'));
});
afterAll(async () => {
  await svc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function tfgate(args: string[], env: Record<string, string> = {}, cwd = ROOT) {
  return execa(
    process.execPath,
    ['--import', join(ROOT, 'test/helpers/ts-register.mjs'), join(ROOT, 'src/cli/main.ts'), ...args],
    {
      cwd,
      env: { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: svc.apiKey, ...env },
      reject: false,
    },
  );
}

describe('tfgate keys create', () => {
  it('prints the new key once, on stdout only, and the key works', async () => {
    await api(svc, 'POST', '/v1/admin/accounts', { body: { name: 'pipelines', plan: 'large' } });
    const res = await tfgate([
      'keys',
      'create',
      '--account',
      'pipelines',
      '--name',
      'release-job',
      '--scopes',
      'compliance:read,compliance:write',
    ]);
    expect(res.exitCode, res.stderr).toBe(0);
    const key = res.stdout.trim();
    expect(key).toMatch(/^tfg_[\w-]{40,}$/);
    expect(res.stderr).toContain('release-job');
    expect(res.stderr).not.toContain(key);
    expect((await api(svc, 'GET', `${CONFORMANCE}/public-key`, { key })).status).toBe(200);
  });

  it('fails with the service error when the key lacks the admin scope, never printing a key', async () => {
    const created = await api<{ key: string }>(svc, 'POST', '/v1/admin/accounts/default/api-keys', {
      body: { name: 'no-admin', scopes: ['compliance:read'] },
    });
    const res = await tfgate(['keys', 'create', '--account', 'default', '--name', 'x', '--scopes', 'admin'], {
      TFGATE_API_KEY: created.body.key,
    });
    expect(res.exitCode).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('"admin" scope');
    expect(res.stderr).not.toContain(created.body.key);
  });
});

describe('tfgate state push', () => {
  it('pushes a state file', async () => {
    const id = await createApprovedPackage(svc, design('push-file'));
    const file = join(dir, 'state.json');
    await writeFile(file, STATE_WITH_QUEUE);
    const res = await tfgate(['state', 'push', '--package', id, '--state-json', file]);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toContain('3 resources');
    const gate = await api<{ decision: string }>(svc, 'POST', `${CONFORMANCE}/packages/${id}/gate`);
    expect(gate.body.decision).toBe('block');
  });

  it('takes the package from TFGATE_PACKAGE and prints one JSON document on stdout with --format json', async () => {
    const id = await createApprovedPackage(svc, design('push-json'));
    const file = join(dir, 'state-json.json');
    await writeFile(file, STATE_WITH_QUEUE);
    const res = await tfgate(['state', 'push', '--state-json', file, '--format', 'json'], {
      TFGATE_PACKAGE: id,
    });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    const pushed = JSON.parse(res.stdout) as Record<string, unknown>;
    expect(pushed).toEqual({
      package_id: id,
      resources: 3,
      pushed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      source: file,
    });
    // The package named by TFGATE_PACKAGE got the state: its queue is drift.
    const gate = await api<{ decision: string }>(svc, 'POST', `${CONFORMANCE}/packages/${id}/gate`);
    expect(gate.body.decision).toBe('block');
  });

  it('reads the state from stdin with --state-json - (as documented)', async () => {
    const id = await createApprovedPackage(svc, design('push-stdin'));
    const res = await execa(
      process.execPath,
      [
        '--import',
        join(ROOT, 'test/helpers/ts-register.mjs'),
        join(ROOT, 'src/cli/main.ts'),
        ...['state', 'push', '--package', id, '--state-json', '-'],
      ],
      {
        cwd: ROOT,
        env: { TFGATE_BASE_URL: svc.baseUrl, TFGATE_API_KEY: svc.apiKey },
        input: STATE_WITH_QUEUE,
        reject: false,
      },
    );
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toContain('3 resources from stdin');
  });

  it('runs terraform show -json itself on a real state', async () => {
    const config = join(dir, 'tf');
    await execa('mkdir', ['-p', config]);
    await writeFile(
      join(config, 'main.tf'),
      'resource "terraform_data" "config" {\n  input = "v1"\n}\nresource "terraform_data" "extra" {\n  input = "v2"\n}\n',
    );
    const rc = join(dir, 'terraformrc');
    await writeFile(rc, '');
    const env = { TF_CLI_CONFIG_FILE: rc, TF_IN_AUTOMATION: '1' };
    await execa('terraform', ['init', '-input=false'], { cwd: config, env });
    await execa('terraform', ['apply', '-auto-approve', '-input=false'], { cwd: config, env });
    const id = await createApprovedPackage(svc, design('push-terraform'));
    const res = await tfgate(['state', 'push', '--package', id, '--chdir', config], env);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toContain('2 resources from terraform show -json');
    // The database capability dependency is missing from this state: critical drift.
    const gate = await api<{ blocking: Array<{ rule: string }> }>(
      svc,
      'POST',
      `${CONFORMANCE}/packages/${id}/gate?min_severity=critical`,
    );
    expect(gate.body.blocking.map((f) => f.rule)).toEqual(['capability_dependency_missing']);
  });

  /** A terraform_data configuration, initialised (and applied, then destroyed, when asked). */
  async function configuration(name: string, steps: Array<'apply' | 'destroy'>) {
    const config = join(dir, name);
    await mkdir(config, { recursive: true });
    await writeFile(join(config, 'main.tf'), 'resource "terraform_data" "config" {\n  input = "v1"\n}\n');
    const rc = join(dir, 'terraformrc');
    await writeFile(rc, '');
    const env = { TF_CLI_CONFIG_FILE: rc, TF_IN_AUTOMATION: '1' };
    await execa('terraform', ['init', '-input=false'], { cwd: config, env });
    for (const step of steps)
      await execa('terraform', [step, '-auto-approve', '-input=false'], { cwd: config, env });
    // The premise: show -json prints the same document where there is no state and after a destroy.
    const shown = await execa('terraform', ['show', '-json'], { cwd: config, env });
    expect(shown.stdout.trim()).toBe('{"format_version":"1.0"}');
    return { config, env };
  }

  const queueStillJudged = async (id: string) => {
    const gate = await api<{ blocking: Array<{ rule: string; address: string }> }>(
      svc,
      'POST',
      `${CONFORMANCE}/packages/${id}/gate?refresh=true`,
    );
    return gate.body.blocking.some((f) => f.address === 'aws_sqs_queue.extra');
  };

  it('refuses to push where there is no state (show -json prints {"format_version":"1.0"}): exit 4, the pushed state stays', async () => {
    const { config, env } = await configuration('tf-no-state', []);
    const id = await createApprovedPackage(svc, design('push-no-state'), { observedState: STATE_WITH_QUEUE });
    const res = await tfgate(['state', 'push', '--package', id, '--chdir', config], env);
    expect(res.exitCode, res.stderr).toBe(4);
    expect(res.stderr).toContain(
      `error: there is no Terraform state in ${config}: \`terraform show -json\` printed no values and \`terraform state pull\` printed no state, so nothing was pushed`,
    );
    expect(res.stderr).toContain("hint: run tfgate state push in the configuration's directory");
    expect(res.stderr).not.toContain('pushed observed state');
    // Nothing was pushed: the refreshed gate still judges the earlier state, queue and all.
    expect(await queueStillJudged(id)).toBe(true);
  }, 60_000);

  it('pushes a state whose every resource was destroyed as no resources: state pull shows the state exists', async () => {
    const { config, env } = await configuration('tf-destroyed', ['apply', 'destroy']);
    const id = await createApprovedPackage(svc, design('push-destroyed'), {
      observedState: STATE_WITH_QUEUE,
    });
    const res = await tfgate(['state', 'push', '--package', id, '--chdir', config], env);
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stderr).toMatch(
      /pushed observed state of package push-destroyed: 0 resources from terraform state pull \(the state exists, lineage [0-9a-f-]{36}, and holds no resources\)/,
    );
    // The empty state was judged: the queue is gone, and so is the ledger's database.
    expect(await queueStillJudged(id)).toBe(false);
    const gate = await api<{ blocking: Array<{ rule: string }> }>(
      svc,
      'POST',
      `${CONFORMANCE}/packages/${id}/gate`,
    );
    expect(gate.body.blocking.map((f) => f.rule)).toEqual(['capability_dependency_missing']);
  }, 60_000);

  it('--state-json: a document that holds no state is refused before it is sent whole (exit 4)', async () => {
    const id = await createApprovedPackage(svc, design('push-file-no-state'), {
      observedState: STATE_WITH_QUEUE,
    });
    const file = join(dir, 'no-state.json');
    await writeFile(file, '{"format_version":"1.0"}\n');
    const res = await tfgate(['state', 'push', '--package', id, '--state-json', file]);
    expect(res.exitCode, res.stderr).toBe(4);
    expect(res.stderr).toContain(`error: ${file} holds no state: it has no "values".`);
    expect(res.stderr).toContain('hint: run `terraform show -json` where the state is');
    expect(await queueStillJudged(id)).toBe(true);
  });

  it('fails without TFGATE_API_KEY, and on an unknown package with 404', async () => {
    const file = join(dir, 'state2.json');
    await writeFile(file, STATE_WITH_QUEUE);
    const noKey = await tfgate(['state', 'push', '--package', 'x', '--state-json', file], {
      TFGATE_API_KEY: '',
    });
    expect(noKey.exitCode).toBe(1);
    expect(noKey.stderr).toContain('TFGATE_API_KEY');
    const missing = await tfgate(['state', 'push', '--package', 'does-not-exist', '--state-json', file]);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toContain('404');
  });
});

describe('tfgate serve --help', () => {
  it('documents every setting with its environment variable', async () => {
    const res = await tfgate(['serve', '--help']);
    expect(res.exitCode).toBe(0);
    const { SERVE_SETTINGS } = await import('../../src/service/config.js');
    for (const setting of SERVE_SETTINGS) {
      expect(res.stdout).toContain(setting.flag.split(' ')[0]!);
      expect(res.stdout.replace(/\s+/g, ' ')).toContain(setting.env);
    }
    expect(res.stdout).toContain('TFGATE_BOOTSTRAP_API_KEY');
    expect(res.stdout).toContain('rotate');
  });
});

describe('tfgate state push interrupted (a stand-in terraform whose `show` never ends: a fault real terraform is too quick to show)', () => {
  it('SIGINT while terraform show -json runs: forwarded to it, nothing pushed, exit 2 "interrupted"', async () => {
    const fake = join(dir, 'slow-terraform.sh');
    const marker = join(dir, 'slow-terraform.got-sigint');
    const started = join(dir, 'slow-terraform.started');
    await writeFile(
      fake,
      `#!/bin/sh\nif [ "$1" = version ]; then echo "Terraform v1.11.4"; exit 0; fi\ntrap 'touch "${marker}"; exit 130' INT\ntouch "${started}"\nwhile :; do sleep 0.1; done\n`,
      { mode: 0o755 },
    );
    const id = await createApprovedPackage(svc, design('push-interrupted'));
    const child = tfgate(['state', 'push', '--package', id, '--terraform-bin', fake]);
    // The signal goes once `show -json` runs (its trap is set), however long start-up takes under load.
    for (let waited = 0; !existsSync(started) && waited < 20_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    const res = await child;
    expect(res.exitCode, res.stderr).toBe(2);
    expect(res.stderr).toContain('interrupted by SIGINT during terraform show -json');
    expect(existsSync(marker)).toBe(true);
    const gate = await api<{ error?: { code: string } }>(svc, 'POST', `${CONFORMANCE}/packages/${id}/gate`);
    // Nothing was pushed: the package has no observed state to gate on.
    expect(gate.status).not.toBe(200);
  }, 30_000);
});

describe('tfgate state push interrupted while the service is waited on (a loopback service that takes the push and never answers: a fault the real service does not produce)', () => {
  let config: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    config = join(dir, 'tf-push-hung');
    await mkdir(config, { recursive: true });
    await writeFile(join(config, 'main.tf'), 'resource "terraform_data" "config" {\n  input = "v1"\n}\n');
    const rc = join(dir, 'terraformrc');
    await writeFile(rc, '');
    env = { TF_CLI_CONFIG_FILE: rc, TF_IN_AUTOMATION: '1' };
    await execa('terraform', ['init', '-input=false'], { cwd: config, env });
    await execa('terraform', ['apply', '-auto-approve', '-input=false'], { cwd: config, env });
  }, 120_000);

  // terraform show -json has exited by then: no terraform step was interrupted, so tfgate ends as the
  // signal ends `check` (killed by it: the shell's 130 for SIGINT, 143 for SIGTERM), naming what it did.
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s once the whole state was sent: "while pushing the state to the service", ended by the signal, never "during terraform show -json"',
    async (signal) => {
      let received = '';
      let arrived: () => void = () => {};
      const whole = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const server = createServer((req) => {
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => {
          received += chunk;
        });
        req.on('end', () => arrived()); // the whole state, then no answer at all
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const child = tfgate(['state', 'push', '--package', 'payments', '--chdir', config], {
          ...env,
          TFGATE_BASE_URL: baseUrl,
        });
        await Promise.race([
          whole,
          child.then((res) => {
            throw new Error(`state push ended before the state arrived:\n${res.stderr}`);
          }),
        ]);
        // What arrived is terraform show -json's whole output: terraform had finished.
        expect(JSON.parse(received)).toMatchObject({ format_version: '1.0', values: {} });
        const signalled = Date.now();
        child.kill(signal);
        const res = await child;
        expect(res.signal, res.stderr).toBe(signal);
        expect(res.exitCode).toBeUndefined();
        expect(res.stderr).toContain(
          `error: interrupted by ${signal} while pushing the state to the service: terraform had finished, and the service may or may not have recorded the state`,
        );
        expect(res.stderr).toContain(
          "hint: run tfgate state push again once the service answers: a push replaces the package's observed state",
        );
        expect(res.stderr).not.toMatch(/during terraform show -json|terraform stopped/);
        // Well before the client's 300 s response timeout.
        expect(Date.now() - signalled).toBeLessThan(10_000);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
    60_000,
  );
});

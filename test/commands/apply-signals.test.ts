// SIGINT during `tfgate apply`, through the built CLI as a user would hit Ctrl-C: tfgate forwards one
// interrupt to terraform, waits for it to stop cleanly (lock released), cleans up and exits non-zero.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, CLI_MAIN } from '../helpers/cli.js';
import { printed, TerraformWorkspace } from '../helpers/terraform.js';
import { EXAMPLE_DIR, type Keys, makeKeys, type SignedBundle, signedBundle } from './wrapper-fixtures.js';

const SLOW_CONFIG = `resource "terraform_data" "slow" {
  input = "slow"
  provisioner "local-exec" {
    command = "sleep 30"
  }
}
`;

let keys: Keys;
let bundle: SignedBundle;

beforeAll(async () => {
  await buildCli();
  keys = makeKeys();
  bundle = await signedBundle(keys, join(EXAMPLE_DIR, 'design.yaml'), 'sanctioned');
});

afterAll(() => rmSync(keys.dir, { recursive: true, force: true }));

describe('signals', () => {
  it.each([
    ['SIGINT', 'a Ctrl-C'],
    ['SIGHUP', 'the terminal or SSH session closing: terraform is sent SIGTERM, which it winds down from'],
  ] as const)(
    '%s during terraform apply (%s): forwarded once, terraform stops and releases the lock, exit 2',
    async (signal, _why) => {
      const source = mkdtempSync(join(tmpdir(), 'tfgate-slow-'));
      writeFileSync(join(source, 'main.tf'), SLOW_CONFIG);
      const ws = TerraformWorkspace.create(source);
      const privateTmp = mkdtempSync(join(tmpdir(), 'tfgate-signal-tmp-'));
      try {
        const started = Date.now();
        const child = execa(
          'node',
          [CLI_MAIN, 'apply', '--bundle', bundle.bundle, '--public-key', bundle.publicKey, '--chdir', ws.dir],
          { env: { ...ws.env, TMPDIR: privateTmp, NO_COLOR: '1', CI: 'true' }, reject: false, all: true },
        );
        await printed(child, "Provisioning with 'local-exec'");
        expect(existsSync(join(ws.dir, '.terraform.tfstate.lock.info'))).toBe(true);
        child.kill(signal);
        const result = await child;
        const all = String(result.all);

        expect(result.exitCode).not.toBe(0);
        expect(result.exitCode).toBe(2);
        expect(all).toContain('Interrupt received');
        expect(all).not.toContain('Two interrupts received');
        expect(all).toContain(`error: interrupted by ${signal} during terraform apply`);
        // Terraform cut the 30 s provisioner short instead of tfgate waiting it out or leaving it behind.
        expect(Date.now() - started).toBeLessThan(30_000);
        expect(existsSync(join(ws.dir, '.terraform.tfstate.lock.info'))).toBe(false);
        // The lock is free: a plan that refuses to wait for a lock succeeds.
        await ws.run(['plan', '-lock-timeout=0s', '-input=false', '-no-color']);
        expect(readdirSync(privateTmp)).toEqual([]);
      } finally {
        ws.cleanup();
        rmSync(source, { recursive: true, force: true });
        rmSync(privateTmp, { recursive: true, force: true });
      }
    },
  );

  it('SIGTERM while terraform plan waits for a state lock: forwarded, nothing applied, plan directory removed', async () => {
    const source = mkdtempSync(join(tmpdir(), 'tfgate-locked-'));
    writeFileSync(join(source, 'main.tf'), SLOW_CONFIG);
    const ws = TerraformWorkspace.create(source);
    const privateTmp = mkdtempSync(join(tmpdir(), 'tfgate-signal-tmp-'));
    // Another run holds the state lock while its provisioner sleeps.
    const holder = execa('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], {
      cwd: ws.dir,
      env: ws.env,
      reject: false,
      all: true,
    });
    try {
      await printed(holder, "Provisioning with 'local-exec'");
      const started = Date.now();
      const child = execa(
        'node',
        [
          CLI_MAIN,
          'apply',
          '--bundle',
          bundle.bundle,
          '--public-key',
          bundle.publicKey,
          '--chdir',
          ws.dir,
          '--',
          '-lock-timeout=60s',
        ],
        { env: { ...ws.env, TMPDIR: privateTmp, NO_COLOR: '1', CI: 'true' }, reject: false, all: true },
      );
      await printed(child, 'Acquiring state lock');
      child.kill('SIGTERM');
      const result = await child;
      expect(result.exitCode).toBe(2);
      expect(String(result.all)).toMatch(/error: interrupted by SIGTERM during terraform plan/);
      expect(String(result.all)).toContain('nothing was applied');
      // It stopped waiting for the lock at once, instead of for the 60 s lock timeout.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(readdirSync(privateTmp)).toEqual([]);
    } finally {
      holder.kill('SIGINT');
      await holder;
      ws.cleanup();
      rmSync(source, { recursive: true, force: true });
      rmSync(privateTmp, { recursive: true, force: true });
    }
  });
});

describe('signals during evaluation (fake: a service that takes the upload and never answers)', () => {
  // terraform has exited by then: no terraform step was interrupted, so tfgate ends as the signal ends
  // `check` and `gate` (killed by it: the shell's 130 or 143), saying only what is true.
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s while the service hangs: tfgate stops waiting and ends by the signal at once, nothing applied',
    async (signal) => {
      const server = createServer((req) => {
        req.resume(); // take the whole plan, then never respond
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const ws = TerraformWorkspace.create(EXAMPLE_DIR);
      try {
        const child = execa(
          'node',
          [CLI_MAIN, 'apply', '--package', 'example-terraform', '--base-url', baseUrl, '--chdir', ws.dir],
          {
            env: { ...ws.env, TFGATE_API_KEY: 'tfg_hang', NO_COLOR: '1', CI: 'true' },
            reject: false,
            all: true,
          },
        );
        await printed(child, '▶ Evaluate plan');
        await new Promise((resolve) => setTimeout(resolve, 500));
        const signalled = Date.now();
        child.kill(signal);
        const result = await child;
        const all = String(result.all);
        expect(result.signal, all).toBe(signal);
        expect(result.exitCode).toBeUndefined();
        expect(all).toContain(`error: interrupted by ${signal} during evaluation: nothing was applied`);
        // Not a terraform failure, and no claim that terraform stopped or released a lock.
        expect(all).not.toMatch(/terraform stopped|releas(ed|ing) the state lock/);
        // Well before the client's 300 s response timeout.
        expect(Date.now() - signalled).toBeLessThan(10_000);
        expect(ws.stateAddresses()).toEqual([]);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        ws.cleanup();
      }
    },
  );
});

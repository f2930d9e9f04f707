// tfgate apply on the service route: real terraform, the real service on loopback (findings decided by the
// service), and a fault server (a fake, because no real service dies mid-upload on cue).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { ExitCode, type TfgateError } from '../../src/errors/index.js';
import { runApply, runBundlePull } from '../helpers/commands.js';
import { createApprovedPackage, startService, type TestService } from '../helpers/service.js';
import { TerraformWorkspace } from '../helpers/terraform.js';
import { capture, EXAMPLE_DIR } from './wrapper-fixtures.js';

const design = (packageId: string, file: string) =>
  readFileSync(join(EXAMPLE_DIR, file), 'utf8').replace(/^package_id: .*$/m, `package_id: ${packageId}`);

let svc: TestService;
const workspaces: TerraformWorkspace[] = [];

afterEach(() => {
  for (const ws of workspaces.splice(0)) ws.cleanup();
});

function workspace(): TerraformWorkspace {
  const ws = TerraformWorkspace.create(EXAMPLE_DIR);
  workspaces.push(ws);
  return ws;
}

describe('tfgate apply (service route, real service on loopback)', () => {
  beforeAll(async () => {
    svc = await startService();
    await createApprovedPackage(svc, design('remote-ok', 'design.yaml'));
    await createApprovedPackage(svc, design('remote-strict', 'design-strict.yaml'));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('blocked by the service: exit 3, the service findings printed, state unchanged', async () => {
    const ws = workspace();
    const run = capture({ ...ws.env, TFGATE_API_KEY: svc.apiKey });
    const result = await runApply(
      { route: { kind: 'remote', packageId: 'remote-strict', baseUrl: svc.baseUrl }, chdir: ws.dir },
      run.context,
    );
    expect(result.exitCode).toBe(ExitCode.blocked);
    expect(result.evaluation?.package_id).toBe('remote-strict');
    expect(result.evaluation?.findings.map((f) => f.rule)).toEqual([
      'unsanctioned_creation',
      'unsanctioned_creation',
    ]);
    expect(run.stdout()).toContain('terraform_data.queue');
    expect(ws.stateAddresses()).toEqual([]);
  });

  it('passed by the service: applied; TFGATE_BASE_URL stands in for --base-url', async () => {
    const ws = workspace();
    const run = capture({ ...ws.env, TFGATE_API_KEY: svc.apiKey, TFGATE_BASE_URL: svc.baseUrl });
    const result = await runApply(
      { route: { kind: 'remote', packageId: 'remote-ok' }, chdir: ws.dir },
      run.context,
    );
    expect(result.status).toBe('applied');
    expect(ws.stateAddresses()).toEqual(['terraform_data.ledger[0]', 'terraform_data.queue']);
  });

  it('a bundle pulled from the service (tfgate bundle pull) decides offline: same decision, no service call', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'tfgate-pulled-'));
    try {
      const pulled = await runBundlePull(
        { packageId: 'remote-strict', dir: cache, client: { baseUrl: svc.baseUrl } },
        { env: { TFGATE_API_KEY: svc.apiKey } },
      );
      const ws = workspace();
      // No TFGATE_API_KEY and no base URL: the decision cannot come from the service.
      const run = capture(ws.env);
      const result = await runApply(
        {
          route: {
            kind: 'bundle',
            bundle: pulled.bundlePath,
            publicKey: pulled.publicKeyPath,
            packageId: 'remote-strict',
          },
          chdir: ws.dir,
        },
        run.context,
      );
      expect(result.exitCode).toBe(ExitCode.blocked);
      expect(result.evaluation?.package_id).toBe('remote-strict');
      expect(result.evaluation?.findings.map((f) => f.address).sort()).toEqual([
        'terraform_data.ledger[0]',
        'terraform_data.queue',
      ]);
      expect(ws.stateAddresses()).toEqual([]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('a key the service refuses is no decision (exit 4): nothing applied, the key never printed, the fix named', async () => {
    const ws = workspace();
    const run = capture({ ...ws.env, TFGATE_API_KEY: 'tfg_wrong' });
    const error = (await runApply(
      { route: { kind: 'remote', packageId: 'remote-ok', baseUrl: svc.baseUrl }, chdir: ws.dir },
      run.context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.exitCode).toBe(ExitCode.noDecision);
    expect(error.message).toMatch(/401/);
    expect(error.hint).toMatch(/Nothing was applied/);
    expect(`${error.message} ${error.hint}`).not.toContain('tfg_wrong');
    expect(run.progress()).not.toContain('> terraform apply');
    expect(ws.stateAddresses()).toEqual([]);
  });
});

describe('fault server (fake: accepts the upload, then destroys the socket midway)', () => {
  let server: Server;
  let baseUrl: string;
  const attempts: number[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let received = 0;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        // Midway through the upload the service "dies": the connection is cut without a response.
        if (received > 0 && !res.destroyed) {
          attempts.push(received);
          req.socket.destroy();
        }
      });
      req.on('end', () => res.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('the service killed mid-upload: no decision (exit 4), nothing applied', async () => {
    const ws = workspace();
    const run = capture({
      ...ws.env,
      TFGATE_API_KEY: 'tfg_fault',
      TFGATE_RETRIES: '2',
      TFGATE_RETRY_BASE_DELAY_MS: '10',
      TFGATE_RETRY_MAX_DELAY_MS: '50',
    });
    const error = (await runApply(
      { route: { kind: 'remote', packageId: 'remote-ok', baseUrl }, chdir: ws.dir },
      run.context,
    ).catch((e: unknown) => e)) as TfgateError;
    expect(error.exitCode).toBe(ExitCode.noDecision);
    // The upload had started every time: the plan was re-streamed (terraform show -json run again) and
    // retried with backoff, 1 + TFGATE_RETRIES attempts, before failing closed.
    expect(attempts).toHaveLength(3);
    expect(attempts.every((received) => received > 0)).toBe(true);
    expect(error.code).toBe('service_unreachable');
    expect(error.details).toMatchObject({ attempts: 3 });
    expect(run.progress()).not.toContain('> terraform apply');
    expect(ws.stateAddresses()).toEqual([]);
  });
});

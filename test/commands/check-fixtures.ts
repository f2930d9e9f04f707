// A corpus scenario's design built into a signed bundle (a fresh key pair, `tfgate bundle build` through the
// built CLI), and `tfgate check` of the scenario's plan with that bundle: the set-up of the check tests.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { scenario } from '../fixtures/corpus.js';
import { buildCli, runCli } from '../helpers/cli.js';
import { generateTestKeys } from '../policy/bundle-fixtures.js';

export interface ScenarioBundle {
  /** A temporary directory for the test's files (removed by cleanup). */
  dir: string;
  bundlePath: string;
  publicKeyPath: string;
  /** `tfgate check --plan-json <the scenario's plan> --bundle … --public-key …` plus args. */
  check(...args: string[]): ReturnType<typeof runCli>;
  cleanup(): Promise<void>;
}

export async function scenarioBundle(name: string): Promise<ScenarioBundle> {
  const fixture = scenario(name);
  const dir = await mkdtemp(join(tmpdir(), 'tfgate-check-'));
  const keys = generateTestKeys();
  const privateKeyPath = join(dir, 'signing.pem');
  const publicKeyPath = join(dir, 'public.pem');
  await Promise.all([
    writeFile(privateKeyPath, keys.privatePem, { mode: 0o600 }),
    writeFile(publicKeyPath, keys.publicPem),
    buildCli(),
  ]);
  const bundlePath = join(dir, 'bundle.tar.gz');
  const built = await runCli([
    'bundle',
    'build',
    '--design',
    fixture.designPath,
    '--signing-key',
    privateKeyPath,
    '--output',
    bundlePath,
  ]);
  expect(built.stderr).toBe('');
  expect(built.exitCode).toBe(0);
  return {
    dir,
    bundlePath,
    publicKeyPath,
    check: (...args) =>
      runCli([
        'check',
        '--plan-json',
        fixture.planPath,
        '--bundle',
        bundlePath,
        '--public-key',
        publicKeyPath,
        ...args,
      ]),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** scenarioBundle set up before the file's tests and removed after them; its fields are filled in beforeAll. */
export function useScenarioBundle(name: string): ScenarioBundle {
  const fixture = {} as ScenarioBundle;
  beforeAll(async () => {
    Object.assign(fixture, await scenarioBundle(name));
  });
  afterAll(async () => {
    await fixture.cleanup?.();
  });
  return fixture;
}

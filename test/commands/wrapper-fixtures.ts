// Shared set-up for the tfgate plan/apply tests: signed bundles built from designs, and a context that
// captures what the wrapper prints.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { WrapperContext } from '../../src/commands/plan.js';
import { designSchema } from '../../src/design/index.js';
import { buildBundle } from '../../src/policy/bundle/index.js';
import { TerraformWorkspace, type WorkspaceOptions } from '../helpers/terraform.js';

export const EXAMPLE_DIR = resolve(import.meta.dirname, '..', '..', 'examples', 'terraform');

export interface SignedBundle {
  bundle: string;
  publicKey: string;
}

export interface Keys {
  dir: string;
  privatePem: string;
  publicKey: string;
}

export function makeKeys(): Keys {
  const dir = mkdtempSync(join(tmpdir(), 'tfgate-wrapper-keys-'));
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPath = join(dir, 'platform.pem');
  writeFileSync(publicPath, publicKey.export({ type: 'spki', format: 'pem' }));
  return {
    dir,
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicPath,
  };
}

/** Build and sign a bundle from a design file (YAML), as the service would serve it. */
export async function signedBundle(keys: Keys, designPath: string, name: string): Promise<SignedBundle> {
  const design = designSchema.parse(parseYaml(readFileSync(designPath, 'utf8')));
  const bytes = await buildBundle({ design, signingKeyPem: keys.privatePem });
  const bundle = join(keys.dir, `${name}.tar.gz`);
  writeFileSync(bundle, bytes);
  return { bundle, publicKey: keys.publicKey };
}

export interface Captured {
  context: WrapperContext;
  stdout: () => string;
  /** Progress lines, banners included. */
  progress: () => string;
}

export function capture(env: NodeJS.ProcessEnv): Captured {
  let out = '';
  let progress = '';
  const line = (s: string) => {
    progress += `${s}\n`;
  };
  return {
    context: {
      env,
      color: false,
      stdout: { write: (s: string) => (out += s) },
      progress: {
        async step(label, run) {
          line(`> ${label}`);
          return run();
        },
        info: line,
        warn: (m) => line(`warning: ${m}`),
        banner: (m) => line(`BANNER ${m}`),
      },
    },
    stdout: () => out,
    progress: () => progress,
  };
}

export interface WrapperSuite {
  keys: Keys;
  /** Signed from examples/terraform/design.yaml: the example's changes pass. */
  sanctioned: SignedBundle;
  /** Signed from design-strict.yaml: every creation is a finding. */
  strict: SignedBundle;
  /** A fresh copy of a configuration (default: the example), removed after the test. */
  workspace(source?: string, options?: WorkspaceOptions): TerraformWorkspace;
}

/**
 * The hooks a plan/apply test file needs: keys and the example's two signed bundles; tfgate's private plan
 * directories redirected to a TMPDIR of our own, which must hold none of them after each test; and
 * workspaces cleaned up. Fields are filled in by beforeAll, so read them inside tests.
 */
export function useWrapperSuite(): WrapperSuite {
  const workspaces: TerraformWorkspace[] = [];
  const previousTmp = process.env.TMPDIR;
  let privateTmp: string | undefined;
  const suite: WrapperSuite = {
    keys: undefined as unknown as Keys,
    sanctioned: undefined as unknown as SignedBundle,
    strict: undefined as unknown as SignedBundle,
    workspace(source = EXAMPLE_DIR, options = {}) {
      const ws = TerraformWorkspace.create(source, options);
      workspaces.push(ws);
      return ws;
    },
  };
  beforeAll(async () => {
    suite.keys = makeKeys();
    suite.sanctioned = await signedBundle(suite.keys, join(EXAMPLE_DIR, 'design.yaml'), 'sanctioned');
    suite.strict = await signedBundle(suite.keys, join(EXAMPLE_DIR, 'design-strict.yaml'), 'strict');
    privateTmp = mkdtempSync(join(tmpdir(), 'tfgate-wrapper-tmp-'));
    process.env.TMPDIR = privateTmp;
  });
  afterAll(() => {
    process.env.TMPDIR = previousTmp;
    if (suite.keys) rmSync(suite.keys.dir, { recursive: true, force: true });
    if (privateTmp) rmSync(privateTmp, { recursive: true, force: true });
  });
  afterEach(() => {
    // tfgate's private plan directories are removed whatever happened.
    if (privateTmp) expect(readdirSync(privateTmp).filter((n) => n.startsWith('tfgate-plan-'))).toEqual([]);
    for (const ws of workspaces.splice(0)) ws.cleanup();
  });
  return suite;
}

/** The bundle route of a signed bundle, as the wrapper's options take it. */
export function bundleRoute(bundle: SignedBundle) {
  return { kind: 'bundle' as const, bundle: bundle.bundle, publicKey: bundle.publicKey };
}

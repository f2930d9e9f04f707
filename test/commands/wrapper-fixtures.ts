// Shared set-up for the tfgate plan/apply tests: signed bundles built from designs, and a context that
// captures what the wrapper prints.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { WrapperContext } from '../../src/commands/plan.js';
import { designSchema } from '../../src/design/index.js';
import { buildBundle } from '../../src/policy/bundle/index.js';

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

// The platform signing key: RSA 2048, generated on first start. Embedded store: a file with mode 0600 in
// the data dir. PostgreSQL: the settings table, so every instance signs with the same key. An operator
// key (--signing-key-file) overrides both; rotating is replacing that file (or the stored key) and restarting.
import { generateKeyPairSync } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../errors/index.js';
import { shownPath } from '../../errors/shown.js';
import { keyIdFor, loadSigningKey, publicKeyPem } from '../../policy/bundle/index.js';
import type { Store } from '../store/index.js';

export interface PlatformKey {
  keyId: string;
  privateKeyPem: string;
  publicKeyPem: string;
}

export const SIGNING_KEY_FILE = 'signing-key.pem';
const SIGNING_KEY_SETTING = 'signing_key_pem';

function generatePem(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function describe(privateKeyPem: string, source: string): PlatformKey {
  const key = loadSigningKey(privateKeyPem, source);
  return { keyId: keyIdFor(key), privateKeyPem, publicKeyPem: publicKeyPem(key) };
}

export async function loadPlatformKey(options: {
  store: Store;
  dataDir: string;
  signingKeyFile?: string | undefined;
}): Promise<PlatformKey> {
  if (options.signingKeyFile) {
    const file = options.signingKeyFile;
    const pem = await readFile(file, 'utf8').catch((error: unknown) => {
      throw new UsageError('signing_key_unreadable', `cannot read the signing key file ${shownPath(file)}`, {
        hint: 'give --signing-key-file (TFGATE_SIGNING_KEY_FILE) the path of a PEM file tfgate can read',
        cause: error,
      });
    });
    return describe(pem, file);
  }
  if (options.store.kind === 'postgres') {
    const stored = await options.store.settings.get(SIGNING_KEY_SETTING);
    if (stored) return describe(stored, 'the stored signing key');
    // Two instances starting together: the first insert wins and both use it.
    return describe(
      await options.store.settings.putIfAbsent(SIGNING_KEY_SETTING, generatePem()),
      'the stored signing key',
    );
  }
  const path = join(options.dataDir, SIGNING_KEY_FILE);
  try {
    return describe(await readFile(path, 'utf8'), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const pem = generatePem();
  // Write a temporary file then rename: never a half-written key.
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, pem, { mode: 0o600, flag: 'wx' });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return describe(pem, path);
}

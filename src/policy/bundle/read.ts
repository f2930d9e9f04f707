// The one way a bundle is read and verified (tfgate check --bundle, apply, bundle verify, bundle pull and
// the CDKTF aspect): read at most its limit, verify, and warn about an unsigned one where the caller asks.
import { BundleVerificationError } from '../../errors/index.js';
import { readFileWithin } from '../../fs/read-within.js';
import { DEFAULT_TAR_LIMITS } from './tar.js';
import {
  UNSIGNED_BUNDLE_WARNING,
  type VerifiedBundle,
  type VerifyBundleOptions,
  verifyBundle,
} from './verify.js';

/** The platform public key: a PEM file's path, or the PEM itself (e.g. as fetched from the service). */
export type PublicKeySource = { path: string } | { pem: string | Uint8Array };

export interface ReadBundleOptions extends Omit<VerifyBundleOptions, 'publicKeyPem'> {
  publicKey?: PublicKeySource;
  /** Where the unsigned-bundle warning goes, every time an unsigned bundle is accepted; none when absent. */
  warn?: (message: string) => void;
}

/**
 * Read (a path, bounded) and verify a bundle; nothing in it is used before verification passes. Anything
 * that stops verification (an unreadable file, a bad key, a bad bundle) is a BundleVerificationError:
 * no decision, exit 4.
 */
export async function readVerifiedBundle(
  bundle: string | Uint8Array,
  options: ReadBundleOptions = {},
): Promise<VerifiedBundle> {
  const { publicKey, warn, ...verifyOptions } = options;
  const [bytes, publicKeyPem] = await Promise.all([
    typeof bundle === 'string'
      ? readInput(bundle, 'bundle', verifyOptions.limits?.maxCompressedBytes)
      : bundle,
    publicKey === undefined
      ? undefined
      : 'path' in publicKey
        ? readInput(publicKey.path, 'public key')
        : Buffer.from(publicKey.pem),
  ]);
  const verified = await verifyBundle(bytes, { ...verifyOptions, publicKeyPem }).catch((error: unknown) => {
    throw namingTheFile(error, bundle, publicKey);
  });
  if (!verified.signed) warn?.(UNSIGNED_BUNDLE_WARNING);
  return verified;
}

/**
 * A refusal names the file it is about when the caller gave a path ("../key.pem: bundle is not a gzip
 * tarball"): with a bundle and a key both given, "bundle is not…" alone does not say which was swapped.
 */
function namingTheFile(error: unknown, bundle: string | Uint8Array, publicKey?: PublicKeySource): unknown {
  if (!(error instanceof BundleVerificationError)) return error;
  const aboutTheKey = error.code === 'invalid_public_key' || error.code.startsWith('public_key_');
  const path = aboutTheKey
    ? publicKey !== undefined && 'path' in publicKey
      ? publicKey.path
      : undefined
    : typeof bundle === 'string'
      ? bundle
      : undefined;
  if (path === undefined) return error;
  return new BundleVerificationError(error.code, `${path}: ${error.message}`, {
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    ...(error.details === undefined ? {} : { details: error.details }),
    ...(error.cause === undefined ? {} : { cause: error.cause }),
  });
}

/** A PEM public key is under 1 KB even for RSA-4096; a megabyte is not a key. */
const MAX_PUBLIC_KEY_BYTES = 1024 * 1024;

/**
 * Read the bundle or key, at most its limit (the bundle's packed limit), so that a huge file, a device or a
 * pipe cannot exhaust memory before verification starts. One that cannot be read cannot be verified, so
 * there is no decision (exit 4).
 */
export async function readInput(
  path: string,
  what: 'bundle' | 'public key',
  maxBytes = what === 'bundle' ? DEFAULT_TAR_LIMITS.maxCompressedBytes : MAX_PUBLIC_KEY_BYTES,
): Promise<Buffer> {
  const code = what === 'bundle' ? 'bundle_unreadable' : 'public_key_unreadable';
  let bytes: Buffer | undefined;
  try {
    bytes = await readFileWithin(path, maxBytes);
  } catch (error) {
    throw new BundleVerificationError(code, `cannot read the ${what} ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (bytes === undefined) {
    throw new BundleVerificationError(
      what === 'bundle' ? 'bundle_too_large' : 'public_key_too_large',
      `the ${what} ${path} is larger than ${maxBytes} bytes, the most tfgate reads`,
      { hint: `pass the ${what === 'bundle' ? 'bundle.tar.gz' : 'PEM public key'} itself` },
    );
  }
  return bytes;
}

// Compact JWS with RS256 (RFC 7515), the one form OPA's bundle signatures take, signed and verified with
// node:crypto (OpenSSL's RSASSA-PKCS1-v1_5 with SHA-256), the algorithm pinned to RS256 and any critical
// header refused. Not jose: measured on a cold process, its compactVerify cost 3.3 ms CPU against 0.6 ms
// for crypto.verify, plus its modules; a JWS here is one compact token whose parts are checked below.
// The header and payload are read with the untrusted-JSON reader, as everything from a bundle is; what
// tfgate signs is verified by the real opa in test/interop.
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { BundleVerificationError, type TfgateError, UsageError } from '../../errors/index.js';
import { parseUntrustedJson } from '../../json/untrusted.js';

export const JWS_ALGORITHM = 'RS256';

/** The largest JWS header or payload read: a payload lists a handful of files. */
const MAX_JWS_PART_BYTES = 1024 * 1024;
const MIN_RSA_BITS = 2048;

type KeyError = new (
  code: string,
  message: string,
  options?: { hint?: string; cause?: unknown },
) => TfgateError;

/**
 * A PEM key as a KeyObject, RSA or refused with `error`. A bad signing key is a usage error (exit 1); a bad
 * public key means the bundle cannot be verified, so no decision (exit 4): BundleVerificationError.
 */
function loadRsaKey(
  pem: string | Buffer,
  source: string,
  kind: 'private' | 'public',
  ErrorClass: KeyError,
  hint: string,
): KeyObject {
  const code = kind === 'private' ? 'invalid_signing_key' : 'invalid_public_key';
  let key: KeyObject;
  try {
    key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
  } catch (cause) {
    throw new ErrorClass(code, `${source} is not a PEM ${kind} key`, { hint, cause });
  }
  if (key.asymmetricKeyType !== 'rsa')
    throw new ErrorClass(code, `${source} is a ${key.asymmetricKeyType} key; ${JWS_ALGORITHM} needs RSA`, {
      hint,
    });
  // RFC 7518 3.3: RS256 keys have at least 2048 bits; shorter ones are refused for signing and verifying.
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS)
    throw new ErrorClass(
      code,
      `${source} is a ${bits}-bit RSA key; ${JWS_ALGORITHM} needs at least ${MIN_RSA_BITS} bits`,
      {
        hint,
      },
    );
  return key;
}

/** Parse a PEM private key (PKCS#8 or PKCS#1) used to sign bundles. A bad key is a usage error: exit 1. */
export function loadSigningKey(pem: string | Buffer, source = 'the signing key'): KeyObject {
  return loadRsaKey(
    pem,
    source,
    'private',
    UsageError,
    'generate one with: openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out signing.pem',
  );
}

/** Parse a PEM public key (SPKI, PKCS#1 or a certificate). A bad key means no verification: exit 4. */
export function loadVerificationKey(pem: string | Buffer, source = 'the public key'): KeyObject {
  const text = pem.toString();
  if (/-----BEGIN (RSA |EC |ENCRYPTED )?PRIVATE KEY-----/.test(text)) {
    throw new BundleVerificationError(
      'invalid_public_key',
      `${source} is a private key; pass the public key`,
      {
        hint: 'derive it with: openssl pkey -in signing.pem -pubout -out public.pem',
      },
    );
  }
  return loadRsaKey(
    text,
    source,
    'public',
    BundleVerificationError,
    'pass the platform RSA public key (GET /v1/analysis/conformance/public-key with Accept: application/x-pem-file)',
  );
}

/** A stable key id: the first 16 hex digits of the SHA-256 of the public key's SPKI DER. */
export function keyIdFor(key: KeyObject): string {
  const der = publicOf(key).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

/** The public key as SPKI PEM, the form `opa build --verification-key` reads. */
export function publicKeyPem(key: KeyObject): string {
  return publicOf(key).export({ type: 'spki', format: 'pem' }).toString();
}

function publicOf(key: KeyObject): KeyObject {
  return key.type === 'private' ? createPublicKey(key) : key;
}

export function signCompactJws(header: Record<string, unknown>, payload: unknown, key: KeyObject): string {
  const signingInput = `${b64(JSON.stringify({ ...header, alg: JWS_ALGORITHM }))}.${b64(JSON.stringify(payload))}`;
  const signature = sign('sha256', Buffer.from(signingInput, 'ascii'), key);
  return `${signingInput}.${signature.toString('base64url')}`;
}

export interface DecodedJws {
  header: Record<string, unknown>;
  payload: unknown;
}

/** Decode without verifying (to read the kid and the claims); the caller must still verify. */
export function decodeCompactJws(token: string): DecodedJws {
  const parts = token.split('.');
  // A length of 4n+1 is no base64url (Go's decoder, so OPA, refuses it); Buffer would drop the stray character.
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p) || p.length % 4 === 1)) {
    throw new BundleVerificationError(
      'signature_malformed',
      '.signatures.json: the signature is not a compact JWS',
    );
  }
  try {
    const header = parseUntrustedJson(Buffer.from(parts[0]!, 'base64url'), MAX_JWS_PART_BYTES);
    if (typeof header !== 'object' || header === null || Array.isArray(header))
      throw new Error('the JWS header is not a JSON object');
    return {
      header: header as Record<string, unknown>,
      payload: parseUntrustedJson(Buffer.from(parts[1]!, 'base64url'), MAX_JWS_PART_BYTES),
    };
  } catch (error) {
    throw new BundleVerificationError(
      'signature_malformed',
      '.signatures.json: the JWS header or payload is not base64url JSON',
      { cause: error },
    );
  }
}

/** Verify an RS256 compact JWS; refuses any other algorithm (in particular "none") and critical headers. */
export async function verifyCompactJws(token: string, key: KeyObject): Promise<DecodedJws> {
  const decoded = decodeCompactJws(token);
  if (decoded.header.alg !== JWS_ALGORITHM) {
    throw new BundleVerificationError(
      'signature_algorithm',
      `.signatures.json: the JWS algorithm is ${JSON.stringify(decoded.header.alg)}; only ${JWS_ALGORITHM} is accepted`,
    );
  }
  // RFC 7515 4.1.11: a verifier refuses critical header parameters it does not understand, and it knows
  // none (b64, RFC 7797, would change what is signed): never trusted.
  if ('crit' in decoded.header || 'b64' in decoded.header) {
    throw new BundleVerificationError(
      'signature_malformed',
      '.signatures.json: the JWS is not acceptable: it has a critical header parameter ("crit" or "b64") tfgate does not understand',
    );
  }
  const [header, payload, signature] = token.split('.') as [string, string, string];
  if (
    !verify('sha256', Buffer.from(`${header}.${payload}`, 'ascii'), key, Buffer.from(signature, 'base64url'))
  ) {
    throw new BundleVerificationError(
      'signature_invalid',
      '.signatures.json: the signature does not verify with the given public key (wrong key, or the signature was altered)',
      {
        hint: "check that the public key given (--public-key, TFGATE_PUBLIC_KEY, or the CDKTF aspect's publicKey) is the platform key that signed this bundle",
      },
    );
  }
  return decoded;
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

// Compact JWS with RS256 (RFC 7515), the one form OPA's bundle signatures take.
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { BundleVerificationError, UsageError } from '../../errors/index.js';

export const JWS_ALGORITHM = 'RS256';

/** Parse a PEM private key (PKCS#8 or PKCS#1) used to sign bundles. */
export function loadSigningKey(pem: string | Buffer, source = 'the signing key'): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new UsageError('invalid_signing_key', `${source} is not a PEM private key`, {
      hint: 'generate one with: openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out signing.pem',
      cause: error,
    });
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new UsageError(
      'invalid_signing_key',
      `${source} is a ${key.asymmetricKeyType} key; RS256 needs RSA`,
    );
  }
  return key;
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
  let key: KeyObject;
  try {
    key = createPublicKey(text);
  } catch (error) {
    throw new BundleVerificationError('invalid_public_key', `${source} is not a PEM public key`, {
      hint: 'pass the platform public key (GET /v1/analysis/conformance/public-key with Accept: application/x-pem-file)',
      cause: error,
    });
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new UsageError(
      'invalid_public_key',
      `${source} is a ${key.asymmetricKeyType} key; RS256 needs RSA`,
    );
  }
  return key;
}

/** A stable key id: the first 16 hex digits of the SHA-256 of the public key's SPKI DER. */
export function keyIdFor(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

/** The public key as SPKI PEM, the form `opa build --verification-key` reads. */
export function publicKeyPem(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return publicKey.export({ type: 'spki', format: 'pem' }).toString();
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
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) {
    throw new BundleVerificationError(
      'signature_malformed',
      '.signatures.json: the signature is not a compact JWS',
    );
  }
  try {
    return {
      header: JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as Record<string, unknown>,
      payload: JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown,
    };
  } catch (error) {
    throw new BundleVerificationError(
      'signature_malformed',
      '.signatures.json: the JWS header or payload is not base64url JSON',
      { cause: error },
    );
  }
}

/** Verify an RS256 compact JWS; refuses any other algorithm (in particular "none"). */
export function verifyCompactJws(token: string, key: KeyObject): DecodedJws {
  const decoded = decodeCompactJws(token);
  if (decoded.header.alg !== JWS_ALGORITHM) {
    throw new BundleVerificationError(
      'signature_algorithm',
      `.signatures.json: the JWS algorithm is ${JSON.stringify(decoded.header.alg)}; only ${JWS_ALGORITHM} is accepted`,
    );
  }
  const [h, p, s] = token.split('.') as [string, string, string];
  const ok = verify('sha256', Buffer.from(`${h}.${p}`, 'ascii'), key, Buffer.from(s, 'base64url'));
  if (!ok) {
    throw new BundleVerificationError(
      'signature_invalid',
      '.signatures.json: the signature does not verify with the given public key (wrong key, or the signature was altered)',
      { hint: 'check that --public-key is the platform key that signed this bundle' },
    );
  }
  return decoded;
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

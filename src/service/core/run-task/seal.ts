// Secrets a run task needs again in clear (the HMAC key, to check each request's signature; HCP Terraform's
// access token, to fetch the plan and call back after a restart) are sealed at rest with AES-256-GCM from
// node:crypto (a standard AEAD; no library adds anything for one seal/open pair). The sealing key is derived
// by HKDF-SHA256 from the platform signing key (generated on first start, or --signing-key-file), which every
// instance sharing a database already holds; so a copy of the database alone opens nothing. Rotating the
// signing key makes sealed keys unreadable: configure each run task again (src/service/README.md).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export interface Sealer {
  seal(plain: string, context: string): string;
  /** The plain text, or null when it was sealed with another key (rotated) or altered. */
  open(sealed: string, context: string): string | null;
}

export function createSealer(platformPrivateKeyPem: string): Sealer {
  const key = Buffer.from(
    hkdfSync('sha256', Buffer.from(platformPrivateKeyPem), Buffer.alloc(0), 'tfgate run-task sealing v1', 32),
  );
  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      // The context (what the secret is and whose) binds it to its row: a sealed value moved elsewhere won't open.
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed, context) {
      const [version, data] = sealed.split('.');
      if (version !== VERSION || data === undefined) return null;
      const bytes = Buffer.from(data, 'base64url');
      if (bytes.length < 28) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(bytes.subarray(12, 28));
        return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}

// The run task's sealing (AES-256-GCM under a key derived from the platform signing key): what was sealed
// opens only with the same signing key and the same context; altered or rotated, it does not open.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSealer } from '../../../src/service/core/run-task/seal.js';

const pem = () =>
  generateKeyPairSync('rsa', { modulusLength: 1024 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();

describe('run task sealing', () => {
  const platform = pem();
  const sealer = createSealer(platform);

  it('opens what it sealed, with the same context; the sealed text holds nothing of the secret', () => {
    const sealed = sealer.seal('the-hmac-key-0123456789abcdef0123', 'run-task-hmac-key:1');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('hmac-key');
    expect(createSealer(platform).open(sealed, 'run-task-hmac-key:1')).toBe(
      'the-hmac-key-0123456789abcdef0123',
    );
    // a fresh nonce each time
    expect(sealer.seal('same', 'c')).not.toBe(sealer.seal('same', 'c'));
  });

  it('does not open with another context (moved to another row), altered, or after the signing key changed', () => {
    const sealed = sealer.seal('secret', 'run-task-hmac-key:1');
    expect(sealer.open(sealed, 'run-task-hmac-key:2')).toBeNull();
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    expect(sealer.open(`v1.${bytes.toString('base64url')}`, 'run-task-hmac-key:1')).toBeNull();
    expect(createSealer(pem()).open(sealed, 'run-task-hmac-key:1')).toBeNull();
    expect(sealer.open('v2.abc', 'run-task-hmac-key:1')).toBeNull();
    expect(sealer.open('v1.', 'run-task-hmac-key:1')).toBeNull();
  });
});

// The platform signing key: generated on first start with owner-only permissions, kept across restarts,
// replaceable by an operator key (--signing-key-file), which is how it is rotated. And one data dir, one
// process: a second `tfgate serve` on it is refused.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyIdFor, loadSigningKey } from '../../src/policy/bundle/index.js';
import { api, CONFORMANCE, createApprovedPackage, startService } from '../helpers/service.js';
import { design } from './fixtures.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tfgate-signing-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const publicKey = async (svc: { baseUrl: string; apiKey: string }) =>
  (await api<{ key_id: string }>(svc, 'GET', `${CONFORMANCE}/public-key`)).body.key_id;

describe('platform signing key', () => {
  it('is generated on first start as a 0600 file, and rotated by starting with another key', async () => {
    const apiKey = 'tfg_signing_bootstrap_key_0123456789';
    const first = await startService({ dataDir, apiKey });
    const generated = await publicKey(first);
    const id = await createApprovedPackage(first, design('rotate'));
    const before = await fetch(`${first.baseUrl}${CONFORMANCE}/packages/${id}/bundle`, {
      headers: { 'X-Api-Key': apiKey },
    });
    const etag = before.headers.get('etag')!;
    await first.stop();
    expect(statSync(join(dataDir, 'signing-key.pem')).mode & 0o777).toBe(0o600);

    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const keyFile = join(dataDir, 'rotated.pem');
    writeFileSync(keyFile, pem, { mode: 0o600 });
    const rotated = await startService({ dataDir, apiKey, env: { TFGATE_SIGNING_KEY_FILE: keyFile } });
    try {
      const rotatedId = await publicKey(rotated);
      expect(rotatedId).toBe(keyIdFor(loadSigningKey(pem)));
      expect(rotatedId).not.toBe(generated);
      // A new key is a new bundle revision: a client holding the old bundle fetches again.
      const after = await fetch(`${rotated.baseUrl}${CONFORMANCE}/packages/${id}/bundle`, {
        headers: { 'X-Api-Key': apiKey, 'If-None-Match': etag },
      });
      expect(after.status).toBe(200);
      expect(after.headers.get('etag')).not.toBe(etag);
    } finally {
      await rotated.stop();
    }
  });

  it('refuses a second tfgate serve on a data dir in use', async () => {
    const running = await startService({ dataDir, process: true });
    try {
      // Its pid and its start time (Linux's /proc): a pid given to another program later is not it.
      expect(readFileSync(join(dataDir, 'serve.lock'), 'utf8')).toMatch(/^\d+ \d+$/);
      await expect(startService({ dataDir })).rejects.toMatchObject({ code: 'data_dir_in_use' });
    } finally {
      await running.stop();
    }
    // Once it stopped, the data dir is free again.
    const next = await startService({ dataDir });
    await next.stop();
  });

  it.each([
    ['names a process that has died', (file: string) => writeFileSync(file, '999999999 1')],
    ['is gone', (file: string) => rmSync(file)],
  ])('refuses a second serve while the first runs, even when serve.lock %s', async (_, alter) => {
    // What two serves racing over a stale serve.lock left before: each took the file over, the second
    // replacing the first's record, and both ran on one store. The store file's own lock still says no.
    // The first test's key: this data dir's store has it.
    const running = await startService({
      dataDir,
      process: true,
      apiKey: 'tfg_signing_bootstrap_key_0123456789',
    });
    try {
      alter(join(dataDir, 'serve.lock'));
      await expect(startService({ dataDir })).rejects.toMatchObject({
        code: 'data_dir_in_use',
        message: `the data dir ${dataDir} is in use by another tfgate serve`,
      });
      // The refused start leaves the running serve's store and the data dir as they were.
      expect((await api(running, 'GET', `${CONFORMANCE}/public-key`)).status).toBe(200);
    } finally {
      await running.stop();
    }
    const next = await startService({ dataDir });
    await next.stop();
  });

  it('removes the aside records of serves killed with -9 before they published theirs, and leaves a live one', async () => {
    // A serve writes serve.lock.<pid>.tmp, opens the store, then renames it: killed in between, it was left.
    const starting = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const dead = join(dataDir, 'serve.lock.999999999.tmp');
      const live = join(dataDir, `serve.lock.${starting.pid}.tmp`);
      writeFileSync(dead, '999999999 1');
      writeFileSync(live, `${starting.pid} 1`);
      const next = await startService({ dataDir });
      try {
        expect(existsSync(dead)).toBe(false);
        expect(existsSync(live)).toBe(true);
      } finally {
        await next.stop();
      }
      rmSync(live);
    } finally {
      starting.kill();
    }
  });

  it('takes over a lock left by a serve killed with -9 whose pid now belongs to another program', async () => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      // As a serve writes it: its pid and its start time, here one the sleep started with the pid does not have.
      writeFileSync(join(dataDir, 'serve.lock'), `${other.pid} 1`);
      const next = await startService({ dataDir });
      await next.stop();
    } finally {
      other.kill();
    }
  });
});

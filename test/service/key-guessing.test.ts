// Wrong API keys are counted by client address, as the dashboard's sign-ins are: after API_KEY_FAILURES.burst
// of them an address waits (429, Retry-After), its right keys too, so guessing a key is slow. Before, 2,000
// guesses took 1.25 s with no limit. `--address-limits off` (behind a proxy that hides addresses) turns it off.
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY_FAILURES } from '../../src/service/http/server.js';
import { api, CONFORMANCE, startService, type TestService } from '../helpers/service.js';

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.stop();
  svc = undefined;
});

const guess = (service: TestService, i: number) =>
  api(service, 'GET', `${CONFORMANCE}/public-key`, { key: `tfg_guess_${i}_0123456789abcdef` });

describe('guessing API keys', () => {
  it(`an address is locked out after ${API_KEY_FAILURES.burst} wrong keys, the right key too`, async () => {
    svc = await startService();
    for (let i = 0; i < API_KEY_FAILURES.burst; i++) expect((await guess(svc, i)).status).toBe(401);
    const locked = await guess(svc, API_KEY_FAILURES.burst);
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ error: { code: 'rate_limited' } });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // A right key from the locked-out address waits too: the answer says nothing about the key.
    expect((await api(svc, 'GET', `${CONFORMANCE}/public-key`)).status).toBe(429);
  });

  it('with --address-limits off nothing is counted', async () => {
    svc = await startService({ env: { TFGATE_ADDRESS_LIMITS: 'off' } });
    for (let i = 0; i <= API_KEY_FAILURES.burst; i++) expect((await guess(svc, i)).status).toBe(401);
    expect((await api(svc, 'GET', `${CONFORMANCE}/public-key`)).status).toBe(200);
  });
});

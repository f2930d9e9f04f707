// The dashboard's failed sign-ins are throttled per client address, on both stores: after the burst a 429
// sign-in page with Retry-After (a valid key from that address too, with no store work), one audit row per
// lockout however many attempts follow, and other addresses unaffected.
import { describe, expect, it } from 'vitest';
import { SIGN_IN_THROTTLE } from '../../src/service/http/ui/sign-in.js';
import { STORES, useBothStores } from '../helpers/both-stores.js';
import { signInFrom } from '../helpers/from-address.js';
import { startService } from '../helpers/service.js';

const services = useBothStores('tfgate_sign_in_throttle');

async function lockoutRows(store: NonNullable<(typeof services)['embedded']['store']>) {
  const { rows } = await store.db.query<{ details: unknown }>(
    "SELECT details FROM audit WHERE event = 'dashboard_sign_in_locked_out'",
  );
  return rows;
}

describe.each(STORES)('failed sign-ins (%s store)', (kind) => {
  it('locks an address out after the burst, audits the lockout once, and leaves other addresses alone', async () => {
    const svc = services[kind];
    const store = svc.store!;
    const attacker = kind === 'embedded' ? '127.0.0.2' : '127.0.0.3';
    for (let i = 0; i < SIGN_IN_THROTTLE.burst; i++) {
      const answer = await signInFrom(svc.baseUrl, attacker, `tfg_guess_${i}_0123456789abcdef`);
      expect(answer.status).toBe(401);
    }
    expect(await lockoutRows(store)).toHaveLength(1);
    for (let i = 0; i < 5; i++) {
      const refused = await signInFrom(svc.baseUrl, attacker, `tfg_more_${i}_0123456789abcdef`);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60 / SIGN_IN_THROTTLE.perMinute);
      // The dashboard's own page: the sign-in form with the reason, and the dashboard's headers.
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(refused.headers['content-security-policy']).toContain("default-src 'none'");
      expect(refused.text).toContain('Too many failed sign-ins from your address');
      expect(refused.text).toContain('<label for="api_key">API key</label>');
    }
    // Locked out means locked out: the right key from that address is refused too (no key lookup at all).
    expect((await signInFrom(svc.baseUrl, attacker, svc.apiKey)).status).toBe(429);
    // Once per lockout, not per attempt.
    const rows = await lockoutRows(store);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0]!.details)).toContain(attacker);
    // Another address signs in at once.
    const other = await signInFrom(svc.baseUrl, '127.0.0.1', svc.apiKey);
    expect(other.status).toBe(303);
    expect(String(other.headers['set-cookie'])).toContain('tfgate_session=');
  });
});

describe('--address-limits off', () => {
  it('throttles no sign-in (for a service behind a proxy that does it)', async () => {
    const svc = await startService({ env: { TFGATE_ADDRESS_LIMITS: 'off' } });
    try {
      for (let i = 0; i <= SIGN_IN_THROTTLE.burst + 2; i++) {
        expect((await signInFrom(svc.baseUrl, '127.0.0.2', `tfg_guess_${i}_0123456789abcdef`)).status).toBe(
          401,
        );
      }
      expect((await signInFrom(svc.baseUrl, '127.0.0.2', svc.apiKey)).status).toBe(303);
    } finally {
      await svc.stop();
    }
  });
});

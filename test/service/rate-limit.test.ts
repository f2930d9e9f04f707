// The per-address failure throttle on an injected clock: a fixed-size table, one report per lockout, the
// refill, and the address a client is counted by.
import { describe, expect, it } from 'vitest';
import { clientAddress, FailureThrottle, RateLimiter } from '../../src/service/http/rate-limit.js';

describe('FailureThrottle', () => {
  it('allows the burst, then refuses with the seconds to wait, reporting the lockout once', () => {
    let now = 0;
    const throttle = new FailureThrottle({ burst: 3, perMinute: 6, maxAddresses: 10 }, () => now);
    expect(throttle.retryAfter('a')).toBe(0);
    expect([throttle.fail('a'), throttle.fail('a'), throttle.fail('a')]).toEqual([false, false, true]);
    expect(throttle.retryAfter('a')).toBe(10);
    expect(throttle.fail('a')).toBe(false);
    now += 10_000;
    expect(throttle.retryAfter('a')).toBe(0);
    // One more try after the wait, failed: still the same lockout (the bucket has not refilled since).
    expect(throttle.fail('a')).toBe(false);
    expect(throttle.retryAfter('a')).toBeGreaterThan(0);
    // Refilled completely: a new lockout is a new report.
    now += 60_000;
    expect(throttle.retryAfter('a')).toBe(0);
    expect([throttle.fail('a'), throttle.fail('a'), throttle.fail('a')]).toEqual([false, false, true]);
    expect(throttle.retryAfter('b')).toBe(0);
  });

  it('lets everything through and keeps nothing when off (--address-limits off)', () => {
    const throttle = new FailureThrottle({ burst: 1, perMinute: 1, maxAddresses: 10, on: false });
    for (let i = 0; i < 100; i++) expect(throttle.fail('a')).toBe(false);
    expect(throttle.retryAfter('a')).toBe(0);
    expect(throttle.size).toBe(0);
  });

  it('keeps at most maxAddresses, forgetting the least recently seen', () => {
    const now = 0;
    const throttle = new FailureThrottle({ burst: 1, perMinute: 1, maxAddresses: 100 }, () => now);
    throttle.fail('first');
    for (let i = 0; i < 10_000; i++) throttle.fail(`10.0.${i >> 8}.${i & 255}`);
    expect(throttle.size).toBe(100);
    expect(throttle.retryAfter('10.0.39.15')).toBeGreaterThan(0);
    expect(throttle.retryAfter('first')).toBe(0);
    // Looking an address up never adds it.
    expect(throttle.retryAfter('never-seen')).toBe(0);
    expect(throttle.size).toBe(100);
  });
});

describe('RateLimiter', () => {
  it('is unbounded by default and unchanged per key: rate a second, burst at once', () => {
    let now = 0;
    const limiter = new RateLimiter(2, 2, () => now);
    expect([limiter.take('k'), limiter.take('k'), limiter.take('k')]).toEqual([0, 0, 1]);
    now += 500;
    expect(limiter.take('k')).toBe(0);
    for (let i = 0; i < 1000; i++) limiter.take(`key-${i}`);
    expect(limiter.size).toBe(1001);
  });
});

describe('clientAddress', () => {
  it('counts IPv4 as is and IPv6 by its /64', () => {
    expect(clientAddress('127.0.0.2')).toBe('127.0.0.2');
    expect(clientAddress('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientAddress('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientAddress('::1')).toBe('0:0:0:0::/64');
    expect(clientAddress(undefined)).toBe('unknown');
  });
});

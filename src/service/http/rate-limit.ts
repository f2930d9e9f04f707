// Token buckets, per instance: `rate` tokens a second, bursts up to `burst`; per API key (`--rate-limit`), and
// per client address for failed sign-ins and refused run task requests (`FailureThrottle`).
//
// Hand-written, not a library: the per-key limiter is a dozen lines on the hot path, and for addresses the
// table must have a fixed size. rate-limiter-flexible's memory store keeps every key until it expires (an
// attacker with many addresses grows it without bound) and lru-cache would be a runtime dependency for the
// one eviction rule below (a Map kept in last-use order).

interface Bucket {
  tokens: number;
  at: number;
  /** A throttle's lockout began and the bucket has not refilled since (so it is reported once). */
  lockedOut: boolean;
}

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    readonly rate: number,
    readonly burst: number,
    readonly now: () => number = () => performance.now(),
    /** At most this many keys are kept; past it the least recently used is forgotten (a full bucket again). */
    readonly maxKeys = Number.POSITIVE_INFINITY,
  ) {}

  /** How many keys the table holds now (never more than `maxKeys`). */
  get size(): number {
    return this.#buckets.size;
  }

  #refill(key: string): Bucket {
    const now = this.now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.burst, at: now, lockedOut: false };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.rate);
    bucket.at = now;
    if (bucket.tokens >= this.burst) bucket.lockedOut = false;
    if (Number.isFinite(this.maxKeys)) {
      // Re-inserted, so the Map's order is the order of last use and its first key the least recently used.
      this.#buckets.delete(key);
      this.#buckets.set(key, bucket);
      if (this.#buckets.size > this.maxKeys) this.#buckets.delete(this.#buckets.keys().next().value!);
    } else {
      this.#buckets.set(key, bucket);
    }
    return bucket;
  }

  #wait(bucket: Bucket): number {
    return bucket.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate));
  }

  /** 0 when the request may go ahead; otherwise the seconds to wait (for Retry-After). */
  take(key: string): number {
    if (this.rate <= 0) return 0;
    const bucket = this.#refill(key);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return this.#wait(bucket);
  }

  /** Like `take`, without taking: 0 when a token is there. */
  peek(key: string): number {
    if (this.rate <= 0 || !this.#buckets.has(key)) return 0;
    return this.#wait(this.#refill(key));
  }

  /** Takes a token (or none, when none is left); true when this emptied the bucket since it was last full. */
  takeAndLock(key: string): boolean {
    if (this.rate <= 0) return false;
    const bucket = this.#refill(key);
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    if (bucket.tokens >= 1 || bucket.lockedOut) return false;
    bucket.lockedOut = true;
    return true;
  }
}

/**
 * Failures per client address (failed sign-ins, refused run task requests): `burst` of them at once, then one
 * every `1 / rate` seconds. Only failures count, so a client that gets in is never slowed down by it.
 */
export class FailureThrottle {
  readonly #limiter: RateLimiter;

  /** `on: false` (--address-limits off) lets every address through and keeps nothing. */
  constructor(
    settings: { burst: number; perMinute: number; maxAddresses: number; on?: boolean },
    now?: () => number,
  ) {
    const rate = settings.on === false ? 0 : settings.perMinute / 60;
    this.#limiter = new RateLimiter(rate, settings.burst, now, settings.maxAddresses);
  }

  /** How many addresses the table holds (at most `maxAddresses`). */
  get size(): number {
    return this.#limiter.size;
  }

  /** 0 when this address may try; otherwise the seconds to wait (for Retry-After). */
  retryAfter(address: string): number {
    return this.#limiter.peek(address);
  }

  /** Counts a failure; true when it begins a lockout (report it once: the next ones are the same lockout). */
  fail(address: string): boolean {
    return this.#limiter.takeAndLock(address);
  }
}

/**
 * The address a client is counted by: IPv4 as is (also when mapped into IPv6), IPv6 by its /64, the smallest
 * block one subscriber is given, so one holder of a /64 is one client, not 2^64 of them.
 */
export function clientAddress(remote: string | undefined): string {
  if (remote === undefined) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remote);
  if (mapped) return mapped[1]!;
  if (!remote.includes(':')) return remote;
  const [head = '', tail] = remote.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

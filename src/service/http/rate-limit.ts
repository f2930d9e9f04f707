// Per-key token buckets, per instance: `rate` requests a second, bursts up to `burst`.

export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly rate: number,
    readonly burst: number,
    readonly now: () => number = () => performance.now(),
  ) {}

  /** 0 when the request may go ahead; otherwise the seconds to wait (for Retry-After). */
  take(key: string): number {
    if (this.rate <= 0) return 0;
    const now = this.now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.rate);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate));
  }
}

/**
 * One token bucket: holds up to `burst` tokens, refills at `ratePerSecond`,
 * and each admitted request takes one. Time comes from `now` (milliseconds on
 * a monotonic clock), so tests can drive it.
 */
export class TokenBucket {
  #tokens: number;
  #updatedAt: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.#tokens = burst;
    this.#updatedAt = now;
  }

  /** Takes a token: 0 when admitted, else the milliseconds until one is available. */
  take(now: number): number {
    this.#refill(now);
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - this.#tokens) * 1000) / this.ratePerSecond));
  }

  /** A full bucket is indistinguishable from a new one, so its owner may forget it. */
  isFull(now: number): boolean {
    this.#refill(now);
    return this.#tokens >= this.burst;
  }

  #refill(now: number): void {
    const elapsed = Math.max(0, now - this.#updatedAt);
    this.#updatedAt = Math.max(this.#updatedAt, now);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.ratePerSecond) / 1000);
  }
}

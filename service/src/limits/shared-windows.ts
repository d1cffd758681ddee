import type { RateLimit } from './workspace-rate-limiter.js';

/** A fixed window of rate-limiter-flexible: `points` calls per `durationS` seconds, counted from the window's first call. */
export interface FixedWindow {
  readonly points: number;
  readonly durationS: number;
}

/** The rate window, and the burst window consulted only when the rate window is spent. */
export interface SharedWindows {
  readonly rate: FixedWindow;
  readonly burst: FixedWindow | undefined;
}

/** The burst allowance adds at most 1/this of the rate over a long run. */
const BURST_SHARE_DIVISOR = 10;

/**
 * How a token bucket (`ratePerSecond`, bursts of `burst`) is approximated
 * with the fixed windows Redis counts atomically (rate-limiter-flexible's
 * BurstyRateLimiter): `ratePerSecond` calls per 1-second window, plus
 * `burst - ratePerSecond` extra calls per burst window once that is spent.
 *
 * The burst window is long enough that its extra calls add at most a tenth
 * of the rate over time (10 s for the default burst of twice the rate), so a
 * workspace far over its limit gets between the rate and 1.1 times it, plus
 * one burst: at 50/s with bursts of 100, 250–350 calls in 5 s (50–70/s).
 * A token bucket would admit 350, and give the burst back after 2 quiet
 * seconds; here it comes back when its window ends.
 *
 * Windows are whole seconds (Redis expiries in seconds), so a burst below
 * the rate is not enforced more finely than `ratePerSecond` per second, and a
 * caller who spends one window at its end and the next at its start gets up
 * to twice the rate within a second, never more over several.
 */
export function sharedWindows(limit: RateLimit): SharedWindows {
  const rate = { points: limit.ratePerSecond, durationS: 1 };
  const extra = limit.burst - limit.ratePerSecond;
  if (extra <= 0) return { rate, burst: undefined };
  return { rate, burst: { points: extra, durationS: Math.ceil((extra * BURST_SHARE_DIVISOR) / limit.ratePerSecond) } };
}

import type { RateLimit } from './workspace-rate-limiter.js';

/** The service's protections against slow and greedy clients, read with the rest of its configuration. */
export interface ServiceLimits {
  /** UPLOAD_IDLE_TIMEOUT_MS: how long an upload stream may go without a message before it is abandoned; 0 waits forever. */
  readonly uploadIdleTimeoutMs: number;
  /** RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST: calls per workspace per service instance. */
  readonly rateLimit: RateLimit;
}

export const LIMIT_DEFAULTS = Object.freeze({
  uploadIdleTimeoutMs: 60_000,
  ratePerSecond: 1000,
});

const DAY_MS = 86_400_000;

/**
 * Reads UPLOAD_IDLE_TIMEOUT_MS, RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST
 * (default: twice the rate, at least 1). Each problem goes to `refuse`, which
 * names the variable and makes the caller refuse the whole configuration; a
 * refused value is replaced by its default here only to keep the result whole.
 */
export function parseServiceLimits(read: (name: string) => string | undefined, refuse: (name: string, value: string, reason: string) => undefined): ServiceLimits {
  const whole = (name: string, fallback: number, min: number, max: number, reason: string): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
    if (value >= min && value <= max) return value;
    refuse(name, raw, reason);
    return fallback;
  };
  const uploadIdleTimeoutMs = whole('UPLOAD_IDLE_TIMEOUT_MS', LIMIT_DEFAULTS.uploadIdleTimeoutMs, 0, DAY_MS, 'is not a number of milliseconds between 0 (no timeout) and 86400000');
  const ratePerSecond = whole('RATE_LIMIT_PER_SECOND', LIMIT_DEFAULTS.ratePerSecond, 0, 1_000_000, 'is not a whole number of calls per second between 0 (no limit) and 1000000');
  const burst = whole('RATE_LIMIT_BURST', Math.max(1, ratePerSecond * 2), 1, 10_000_000, 'is not a whole number of calls between 1 and 10000000');
  return { uploadIdleTimeoutMs, rateLimit: { ratePerSecond, burst } };
}

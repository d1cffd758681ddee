import { rule, wholeNumber, wholeNumberVariable, type EnvValues } from '@switchyard/runtime';
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

/** UPLOAD_IDLE_TIMEOUT_MS, RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST (default: twice the rate, at least 1). */
export const SERVICE_LIMIT_VARIABLES = Object.freeze({
  UPLOAD_IDLE_TIMEOUT_MS: wholeNumberVariable(
    LIMIT_DEFAULTS.uploadIdleTimeoutMs,
    0,
    DAY_MS,
    'is not a number of milliseconds between 0 (no timeout) and 86400000',
  ),
  RATE_LIMIT_PER_SECOND: wholeNumberVariable(
    LIMIT_DEFAULTS.ratePerSecond,
    0,
    1_000_000,
    'is not a whole number of calls per second between 0 (no limit) and 1000000',
  ),
  RATE_LIMIT_BURST: rule((raw) => wholeNumber(raw, 1, 10_000_000), 'is not a whole number of calls between 1 and 10000000').optional(),
});

export function serviceLimitsFrom(env: EnvValues<typeof SERVICE_LIMIT_VARIABLES>): ServiceLimits {
  const ratePerSecond = env.RATE_LIMIT_PER_SECOND;
  return {
    uploadIdleTimeoutMs: env.UPLOAD_IDLE_TIMEOUT_MS,
    rateLimit: { ratePerSecond, burst: env.RATE_LIMIT_BURST ?? Math.max(1, ratePerSecond * 2) },
  };
}

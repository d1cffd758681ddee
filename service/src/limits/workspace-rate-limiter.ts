import { performance } from 'node:perf_hooks';
import { SwitchyardError, type Principal } from '@switchyard/core';
import type { Authenticate } from '../grpc/auth.js';
import { TokenBucket } from './token-bucket.js';

export interface RateLimit {
  /** Sustained calls per second per workspace; 0 turns the limit off. */
  readonly ratePerSecond: number;
  /** Calls a workspace may make at once after being quiet. */
  readonly burst: number;
}

/** Admits a call of a workspace, or rejects with `resource_exhausted` carrying the wait in `retryAfterMs`. */
export interface WorkspaceRateLimiter {
  /** Resolves when admitted. Async because a shared limit asks Redis; the in-memory one answers with settled promises. */
  admit(workspace: string): Promise<void>;
  /** Workspaces currently tracked in this process (those not back at a full bucket). */
  size(): number;
  /** Releases what the limiter holds (a Redis connection); idempotent. */
  close(): Promise<void>;
}

/** The refusal of a call over the limit, the same whichever store counted it. */
export function rateLimitRefusal(limit: RateLimit, waitMs: number): SwitchyardError {
  return new SwitchyardError(
    'resource_exhausted',
    `rate limit of ${limit.ratePerSecond} calls per second for this workspace reached; retry in ${Math.ceil(waitMs / 1000)} s`,
    [{ reason: `at most ${limit.ratePerSecond} calls per second (bursts of ${limit.burst}) per workspace` }],
    { retryAfterMs: waitMs },
  );
}

/**
 * One settled promise for every call admitted at once: the in-memory path
 * allocates nothing per call, and `rateLimited` knows it need not wait.
 */
export const ADMITTED: Promise<void> = Promise.resolve();

/** Below this many tracked workspaces nobody is swept. */
const SWEEP_FLOOR = 1024;

/**
 * One token bucket per workspace, in this process's memory: each service
 * instance limits on its own, so N instances behind a balancer admit up to N
 * times the rate. That keeps the limit free of shared state; it is there to
 * stop one tenant from starving the others on an instance, not to meter
 * usage; RATE_LIMIT_STORE=redis shares the limit instead
 * (shared-rate-limiter.ts, which falls back to this one while Redis is
 * away). Buckets that have refilled are forgotten (swept when the map
 * doubles), so memory follows the workspaces active in the last
 * `burst / rate` seconds.
 */
export function createWorkspaceRateLimiter(limit: RateLimit, now: () => number = () => performance.now()): WorkspaceRateLimiter {
  const buckets = new Map<string, TokenBucket>();
  let sweepAt = SWEEP_FLOOR;
  return {
    admit(workspace) {
      if (limit.ratePerSecond === 0) return ADMITTED;
      const at = now();
      let bucket = buckets.get(workspace);
      if (bucket === undefined) {
        if (buckets.size >= sweepAt) {
          for (const [key, candidate] of buckets) if (candidate.isFull(at)) buckets.delete(key);
          sweepAt = Math.max(SWEEP_FLOOR, buckets.size * 2);
        }
        bucket = new TokenBucket(limit.ratePerSecond, limit.burst, at);
        buckets.set(workspace, bucket);
      }
      const waitMs = bucket.take(at);
      return waitMs > 0 ? Promise.reject(rateLimitRefusal(limit, waitMs)) : ADMITTED;
    },
    size: () => buckets.size,
    close: () => ADMITTED,
  };
}

/** Verifies the caller first (only a verified token names a workspace), then charges its workspace one call. */
export function rateLimited(authenticate: Authenticate, limiter: WorkspaceRateLimiter, onRefused: () => void = () => {}): Authenticate {
  const refused = (error: unknown): never => {
    onRefused();
    throw error;
  };
  const admitted = (principal: Principal): Principal | Promise<Principal> => {
    const decided = limiter.admit(principal.workspace);
    // Admitted at once (the in-memory limit, nearly every call): no promise chained per call.
    return decided === ADMITTED ? principal : decided.then(() => principal, refused);
  };
  return (metadata) => authenticate(metadata).then(admitted);
}

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

/** Admits a call of a workspace, or throws `resource_exhausted` carrying the wait in `retryAfterMs`. */
export interface WorkspaceRateLimiter {
  admit(workspace: string): void;
  /** Workspaces currently tracked (those not back at a full bucket). */
  size(): number;
}

/** Below this many tracked workspaces nobody is swept. */
const SWEEP_FLOOR = 1024;

/**
 * One token bucket per workspace, in this process's memory: each service
 * instance limits on its own, so N instances behind a balancer admit up to N
 * times the rate. That keeps the limit free of shared state; it is there to
 * stop one tenant from starving the others on an instance, not to meter
 * usage. Buckets that have refilled are forgotten (swept when the map doubles),
 * so memory follows the workspaces active in the last `burst / rate` seconds.
 */
export function createWorkspaceRateLimiter(limit: RateLimit, now: () => number = () => performance.now()): WorkspaceRateLimiter {
  const buckets = new Map<string, TokenBucket>();
  let sweepAt = SWEEP_FLOOR;
  return {
    admit(workspace) {
      if (limit.ratePerSecond === 0) return;
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
      if (waitMs > 0) {
        throw new SwitchyardError(
          'resource_exhausted',
          `rate limit of ${limit.ratePerSecond} calls per second for this workspace reached; retry in ${Math.ceil(waitMs / 1000)} s`,
          [{ reason: `at most ${limit.ratePerSecond} calls per second (bursts of ${limit.burst}) per workspace` }],
          { retryAfterMs: waitMs },
        );
      }
    },
    size: () => buckets.size,
  };
}

/** Verifies the caller first (only a verified token names a workspace), then charges its workspace one call. */
export function rateLimited(authenticate: Authenticate, limiter: WorkspaceRateLimiter, onRefused: () => void = () => {}): Authenticate {
  const admitted = (principal: Principal): Principal => {
    try {
      limiter.admit(principal.workspace);
    } catch (error) {
      onRefused();
      throw error;
    }
    return principal;
  };
  return (metadata) => authenticate(metadata).then(admitted);
}

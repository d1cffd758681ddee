import type { Redis } from 'ioredis';
import { BurstyRateLimiter, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '@switchyard/runtime';
import { systemTime, type Timers, type TimeSource } from '@switchyard/core';
import { sharedWindows, type FixedWindow } from './shared-windows.js';
import { rateLimitRefusal, type RateLimit, type WorkspaceRateLimiter } from './workspace-rate-limiter.js';

export interface SharedRateLimiterOptions {
  /** The connection the counts live in (limits-redis.ts); the limiter closes it. */
  readonly redis: Redis;
  /** The per-instance limiter that judges calls while Redis does not answer. */
  readonly fallback: WorkspaceRateLimiter;
  readonly log: Logger;
  /** Each call judged by the fallback, and whether it let the call through (metrics: how far past the shared limit a Redis outage may have let a workspace go). */
  readonly onFallback?: ((admitted: boolean) => void) | undefined;
  /** Key prefix in Redis, per deployment sharing one Redis (default `switchyard:rl`). */
  readonly keyPrefix?: string | undefined;
  /** How long a call waits for Redis's answer before the fallback judges it (default 500 ms; see `answeredWithin`). */
  readonly answerTimeoutMs?: number | undefined;
  /** After a failure, how long calls go straight to the fallback before one asks Redis again (default 1 s). */
  readonly probeIntervalMs?: number | undefined;
  /** The clock of probe intervals and the timer of the answer timeout (the system's by default). */
  readonly time?: TimeSource | undefined;
}

/**
 * A workspace's calls counted in Redis, so the limit holds across every
 * service instance (RATE_LIMIT_STORE=redis), with rate-limiter-flexible's
 * atomic Lua counters: a 1-second window at the rate and a longer burst
 * window behind it (shared-windows.ts says how close that is to the
 * in-memory token bucket). A workspace over its limit is then refused from
 * this process's memory until its window ends (`inMemoryBlockOnConsumed`),
 * so a flood costs Redis one command per window per instance, not one per
 * call.
 *
 * When Redis does not answer (disconnected: at once; hung: after
 * `answerTimeoutMs`) the call is judged by the per-instance limit instead:
 * fail open to what RATE_LIMIT_STORE=memory does, never an error.
 * rate-limiter-flexible's `insuranceLimiter` does this silently, one
 * insurance limiter per window (with BurstyRateLimiter a refused rate window
 * would charge two); this does it here to count each such call, log the
 * change once each way, and judge with the memory store's own token bucket.
 * While falling back, one call per probe interval asks Redis again.
 */
export function createSharedRateLimiter(limit: RateLimit, options: SharedRateLimiterOptions): WorkspaceRateLimiter {
  const { redis, fallback, log } = options;
  const time = options.time ?? systemTime;
  const now = (): number => time.now().getTime();
  const probeIntervalMs = options.probeIntervalMs ?? 1_000;
  const answerTimeoutMs = options.answerTimeoutMs ?? 500;
  const keyPrefix = options.keyPrefix ?? 'switchyard:rl';
  const windows = sharedWindows(limit);
  const window = (prefix: string, { points, durationS }: FixedWindow): RateLimiterRedis =>
    // rejectIfRedisNotReady: while ioredis is not connected, fail at once rather than wait for the answer timeout.
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: prefix,
      points,
      duration: durationS,
      inMemoryBlockOnConsumed: points,
      rejectIfRedisNotReady: true,
    });
  const rate = window(keyPrefix, windows.rate);
  const limiter = windows.burst === undefined ? rate : new BurstyRateLimiter(rate, window(`${keyPrefix}:burst`, windows.burst));

  let down = false;
  let probeAt = 0;
  let closed: Promise<void> | undefined;

  const fellBack = (workspace: string, error: unknown): Promise<void> => {
    if (!down) {
      down = true;
      log.warn({ err: error }, 'rate limit Redis not answering: per-instance rate limits until it does');
    }
    probeAt = now() + probeIntervalMs;
    return judgedLocally(workspace);
  };
  const judgedLocally = async (workspace: string): Promise<void> => {
    try {
      await fallback.admit(workspace);
    } catch (error) {
      options.onFallback?.(false);
      throw error;
    }
    options.onFallback?.(true);
  };

  return {
    async admit(workspace) {
      if (limit.ratePerSecond === 0) return;
      if (down) {
        // One call per interval asks Redis; the others meanwhile do not wait on a Redis that may hang.
        if (now() < probeAt) return judgedLocally(workspace);
        probeAt = now() + probeIntervalMs;
      }
      try {
        await answeredWithin(limiter.consume(workspace), answerTimeoutMs, time);
      } catch (error) {
        // A RateLimiterRes is Redis's answer (over the limit); anything else is Redis not answering.
        if (error instanceof RateLimiterRes) throw rateLimitRefusal(limit, Math.max(1, error.msBeforeNext));
        return fellBack(workspace, error);
      }
      if (down) {
        down = false;
        log.info('rate limit Redis answering again: rate limits are shared across instances');
      }
    },
    size: () => fallback.size(),
    close: () => (closed ??= closeRedis(redis).then(() => fallback.close())),
  };
}

/**
 * Settles as `work` does, or rejects once `ms` have passed without an answer.
 * The timeout is judged after this process has read its sockets (a timer,
 * then setImmediate: libuv polls for I/O in between), so a stall of this
 * process's own event loop, with Redis's answer already waiting, is not
 * taken for Redis not answering: a false fallback would admit a fresh
 * per-instance burst. (ioredis's `commandTimeout` fires in the timers phase,
 * before pending answers are read; it is only a backstop in limits-redis.ts.)
 */
function answeredWithin<T>(work: Promise<T>, ms: number, timers: Timers): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = timers.setTimeout(() => setImmediate(() => reject(new Error(`Redis did not answer within ${ms} ms`))), ms);
    work.then(
      (value) => {
        timers.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        timers.clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** QUIT when connected (lets a command in flight finish), else stop reconnecting. */
async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await redis.quit();
      return;
    } catch {
      // Lost in between: disconnect below.
    }
  }
  redis.disconnect();
}

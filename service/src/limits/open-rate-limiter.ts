import { CounterFamily, redactUrlPassword, type Logger, type Registry } from '@switchyard/runtime';
import type { TimeSource } from '@switchyard/core';
import type { RateLimitStoreConfig } from '../scale/scale-config.js';
import { connectLimitsRedis } from './limits-redis.js';
import { createSharedRateLimiter } from './shared-rate-limiter.js';
import { createWorkspaceRateLimiter, type RateLimit, type WorkspaceRateLimiter } from './workspace-rate-limiter.js';

/**
 * A call waits this long for Redis's answer, then the per-instance limit
 * judges it. On a LAN an answer takes well under a millisecond; this leaves
 * room for a busy Redis, since each false fallback admits a fresh
 * per-instance burst. While Redis hangs, only one call per probe interval
 * waits this long (shared-rate-limiter.ts).
 */
const ANSWER_TIMEOUT_MS = 500;
/** ioredis drops a command after this long (a backstop against commands piling up on a hung connection). */
const COMMAND_TIMEOUT_MS = 5_000;
/** Start-up waits this long for Redis, then starts on per-instance limits. */
const CONNECT_WAIT_MS = 2_000;

/**
 * The per-workspace rate limiter of RATE_LIMIT_STORE: this process's token
 * buckets, or counts shared in Redis with those buckets as the fallback.
 * `switchyard_rate_limit_fallback_total` counts the calls judged by the
 * fallback (made at zero with a Redis store, so it can be alerted on), and
 * `switchyard_rate_limit_fallback_admitted_total` those of them it let through.
 */
export async function openWorkspaceRateLimiter(
  limit: RateLimit,
  store: RateLimitStoreConfig,
  log: Logger,
  metrics?: Registry,
  time?: TimeSource,
): Promise<WorkspaceRateLimiter> {
  // Buckets refill by the injected clock when there is one (tests move it), else by performance.now().
  const local = createWorkspaceRateLimiter(limit, time && (() => time.now().getTime()));
  if (store.kind === 'memory' || limit.ratePerSecond === 0) return local;
  const redis = await connectLimitsRedis(
    store.url,
    { commandTimeoutMs: COMMAND_TIMEOUT_MS, connectWaitMs: CONNECT_WAIT_MS, timers: time },
    log,
  );
  log.info({ redis: redactUrlPassword(store.url) }, 'rate limits shared across instances through Redis');
  return createSharedRateLimiter(limit, {
    redis,
    fallback: local,
    log,
    answerTimeoutMs: ANSWER_TIMEOUT_MS,
    onFallback: metrics && fallbackCounter(metrics),
    time,
  });
}

/** Counts each call the fallback judged, and apart those it let through: what a workspace may have got past the shared limit is these, not the refused ones. */
function fallbackCounter(metrics: Registry): (admitted: boolean) => void {
  const judged = new CounterFamily(metrics, {
    name: 'switchyard_rate_limit_fallback_total',
    help: 'Calls judged by the per-instance rate limit because the shared one (Redis) did not answer.',
  }).cell({});
  const admitted = new CounterFamily(metrics, {
    name: 'switchyard_rate_limit_fallback_admitted_total',
    help: 'Of the calls judged by the per-instance rate limit (switchyard_rate_limit_fallback_total), those it let through.',
  }).cell({});
  return (through) => {
    judged.value += 1;
    if (through) admitted.value += 1;
  };
}

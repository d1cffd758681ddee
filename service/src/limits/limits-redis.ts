import { Redis } from 'ioredis';
import { redactUrlPassword, type Logger } from '@switchyard/runtime';
import { systemTime, type Timers } from '@switchyard/core';

export interface LimitsRedisOptions {
  /** When ioredis gives up on a command (a backstop: the limiter stops waiting for an answer sooner). */
  readonly commandTimeoutMs: number;
  /** How long start-up waits for the first connection; past it the service starts on per-instance limits. */
  readonly connectWaitMs: number;
  /** Where the start-up wait is timed (the system's timers by default). */
  readonly timers?: Timers | undefined;
}

/**
 * An ioredis connection for rate limits, set to fail fast rather than hold
 * calls: no offline queue (a command while disconnected fails at once), no
 * retries of a command, and a command timeout so a hung connection does not
 * pile them up. ioredis reconnects on its
 * own; its errors are listened to (an 'error' event without a listener
 * would crash the process) and not logged here: the limiter says once when
 * it falls back and once when Redis answers again.
 */
export async function connectLimitsRedis(url: string, options: LimitsRedisOptions, log: Logger): Promise<Redis> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: Math.max(options.connectWaitMs, 1_000),
    // A reconnect attempt at least every second: shared limits come back soon after Redis does.
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  client.on('error', (error: Error) => log.debug({ err: error }, 'rate limit Redis connection error'));
  const timers = options.timers ?? systemTime;
  const ready = await new Promise<boolean>((resolve) => {
    const timer = timers.setTimeout(() => resolve(false), options.connectWaitMs);
    client.once('ready', () => {
      timers.clearTimeout(timer);
      resolve(true);
    });
  });
  if (!ready) log.warn({ redis: redactUrlPassword(url) }, 'rate limit Redis not reachable at start: per-instance rate limits until it is');
  return client;
}

import type { ChangeFeed } from '@switchyard/core';

/**
 * A change feed over a broker, with the service's lifecycle: `start` begins
 * connecting and returns at once (a broker unreachable at start leaves the
 * feed down, and watchers poll, until it answers); `close` ends its
 * connections. Connection errors go to `onError`, not to a log of their own:
 * the feed's up/down changes are what is worth a line.
 */
export interface BrokerFeed extends ChangeFeed {
  start(): void;
  close(): Promise<void>;
}

export type ConnectionErrorSink = (error: Error) => void;

/** Reconnect delays: doubling from 100 ms to at most 2 s, so a feed is back within about 2 s of its broker. */
export function backoffMs(attempt: number): number {
  return Math.min(100 * 2 ** Math.max(0, attempt - 1), 2_000);
}

/** Resolves true once `feed` is up, or false after `waitMs` (the feed keeps trying): start-up waits this long for a broker, no longer. */
export function untilUp(feed: BrokerFeed, waitMs: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const settle = (isUp: boolean): void => {
      clearTimeout(timer);
      stop();
      resolve(isUp);
    };
    const timer = setTimeout(() => settle(false), waitMs);
    const stop = feed.subscribe({ revision: () => undefined, state: (isUp) => isUp && settle(true) });
  });
}

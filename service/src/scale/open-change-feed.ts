import {
  NatsChangeFeed,
  RedisChangeFeed,
  redactUrlPassword,
  untilUp,
  type BrokerFeed,
  type Logger,
  type Registry,
} from '@switchyard/runtime';
import type { DatabaseConfig } from '../stores/storage-config.js';
import { feedChannel } from './feed-channel.js';
import { observedFeed } from './observed-feed.js';
import type { EventsConfig } from './scale-config.js';

/** How long start-up waits for the broker: a reachable one answers in milliseconds; an unreachable one must not hold the service. */
export const CONNECT_WAIT_MS = 2_000;

/**
 * Starts the change feed of EVENTS_URL on the deployment's channel (see
 * feed-channel.ts), or none without one. Resolves once the feed is up or
 * after CONNECT_WAIT_MS: a broker unreachable at start leaves the service in
 * polling mode (logged) until it answers, and the service starts anyway.
 */
export async function openChangeFeed(
  events: EventsConfig | undefined,
  database: DatabaseConfig,
  log: Logger,
  registry: Registry | undefined,
): Promise<BrokerFeed | undefined> {
  if (!events) return undefined;
  const channel = feedChannel(database);
  const describe = { events: redactUrlPassword(events.url), channel };
  const onError = (error: Error): void => log.debug({ ...describe, err: error }, 'events broker connection error');
  const broker =
    events.kind === 'redis' ? new RedisChangeFeed(events.url, channel, onError) : new NatsChangeFeed(events.url, channel, onError);
  const feed = observedFeed(broker, describe, log, registry);
  const up = untilUp(feed, CONNECT_WAIT_MS);
  feed.start();
  if (!(await up))
    log.warn(describe, 'events broker not reachable at start: route watchers poll the database every WATCH_POLL_MS until it is');
  return feed;
}

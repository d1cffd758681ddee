import { NatsChangeFeed, RedisChangeFeed, redactUrlPassword, untilUp, type BrokerFeed, type Logger } from '@switchyard/runtime';
import type { DatabaseConfig } from '../stores/storage-config.js';
import { CONNECT_WAIT_MS } from './open-change-feed.js';
import { feedChannel } from './feed-channel.js';
import type { EventsConfig } from './scale-config.js';

/**
 * The feed API key revocations travel on: the broker of EVENTS_URL, on a
 * channel of its own beside the route changes' (`switchyard.keys.<database>`),
 * or none without one. Its messages only make instances read a workspace's
 * keys again; while it is down each instance's key cache (5 s) bounds how
 * long a revocation elsewhere goes unseen. Resolves once the feed is up, or
 * after the same wait as the route feed's (the service starts anyway).
 */
export async function openKeyFeed(
  events: EventsConfig | undefined,
  database: DatabaseConfig,
  log: Logger,
): Promise<BrokerFeed | undefined> {
  if (!events) return undefined;
  const channel = feedChannel(database, 'keys');
  const describe = { events: redactUrlPassword(events.url), channel };
  const onError = (error: Error): void => log.debug({ ...describe, err: error }, 'events broker connection error (key revocations)');
  const feed =
    events.kind === 'redis' ? new RedisChangeFeed(events.url, channel, onError) : new NatsChangeFeed(events.url, channel, onError);
  let wasUp = false;
  feed.subscribe({
    revision: () => undefined,
    state: (up) => {
      if (!up && wasUp) log.warn(describe, 'key revocation feed down: other instances see a revocation within 5 s until it is back');
      wasUp = up;
    },
  });
  const up = untilUp(feed, CONNECT_WAIT_MS);
  feed.start();
  if (!(await up)) log.warn(describe, 'events broker not reachable at start: other instances see a key revocation within 5 s until it is');
  return feed;
}

import {
  CounterFamily,
  FEED_CHANNEL_PATTERN,
  NatsChangeFeed,
  RedisChangeFeed,
  redactUrlPassword,
  type BrokerFeed,
  type EventsConfig,
  type Logger,
  type Registry,
} from '@switchyard/runtime';
import type { ValidatorCache } from './validator-cache.js';

/**
 * Keeps a split gateway's `cache` exact from the services' asset changes on
 * the broker of EVENTS_URL: each asset revision drops the validators of the
 * assets its message names (all of them when it names none: a batch of more
 * than MAX_FEED_IDS, or a revision sent again). It listens on every
 * deployment's channel (`switchyard.routes.*`): the gateway does not know the
 * services' database, and a change of another deployment on the same broker
 * costs only revalidations asked of the service again. While the broker is
 * away, messages are lost: the cache answers only revalidations, each
 * believed for its TTL, and is emptied when the broker is back; while the
 * subscription holds, it answers GETs, HEADs and ranges too (coverage 'feed').
 * Returns the function that stops.
 */
export function followBrokerAssetChanges(
  events: EventsConfig,
  cache: ValidatorCache,
  log: Logger,
  metrics?: Registry,
): () => Promise<void> {
  const heard =
    metrics &&
    new CounterFamily(metrics, {
      name: 'switchyard_gateway_asset_feed_messages_total',
      help: 'Asset change messages this gateway heard on the EVENTS_URL broker (each drops the file validators it names).',
    }).cell({});
  const describe = { events: redactUrlPassword(events.url), channel: FEED_CHANNEL_PATTERN };
  const onError = (error: Error): void => log.debug({ ...describe, err: error }, 'events broker connection error');
  const feed: BrokerFeed =
    events.kind === 'redis'
      ? new RedisChangeFeed(events.url, FEED_CHANNEL_PATTERN, onError)
      : new NatsChangeFeed(events.url, FEED_CHANNEL_PATTERN, onError);
  let wasUp = false;
  feed.subscribe({
    revision: (_workspace, _revision, changeLog, changed) => {
      if (changeLog !== 'assets') return;
      if (heard) heard.value += 1;
      if (changed === undefined) return cache.clear();
      for (const id of changed) cache.forget(id);
    },
    state: (up) => {
      // Whatever changed before the subscription held (or while it was down) was not heard: the cache starts afresh either way.
      cache.setCoverage(up ? 'feed' : 'partial');
      cache.clear();
      if (up) {
        log.info(describe, "events feed up: file validators follow every instance's asset changes");
      } else if (wasUp)
        log.warn(describe, 'events feed down: file validators of changes made elsewhere expire within their TTL until it is back');
      wasUp = up;
    },
  });
  feed.start();
  return () => feed.close();
}

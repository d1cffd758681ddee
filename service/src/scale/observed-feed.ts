import { CounterFamily, Gauge, type BrokerFeed, type Logger, type Registry } from '@switchyard/runtime';
import type { ChangeFeed, ChangeFeedListener } from '@switchyard/core';

/**
 * The feed as the service runs it: each change of up/down logged (down is a
 * warning: watchers poll the database meanwhile), publishes counted with
 * their failures (logged once per run of failures, not per write), messages
 * received counted once per message. Metrics:
 * `switchyard_events_feed_up` (1/0), `switchyard_events_published_total`,
 * `switchyard_events_publish_failures_total`, `switchyard_events_received_total`.
 */
export function observedFeed(feed: BrokerFeed, describe: Record<string, string>, log: Logger, registry: Registry | undefined): BrokerFeed {
  const counter = (name: string, help: string) => (registry ? new CounterFamily(registry, { name, help }).cell({}) : { value: 0 });
  const published = counter(
    'switchyard_events_published_total',
    'Route and asset change messages handed to the events broker (EVENTS_URL).',
  );
  const failures = counter(
    'switchyard_events_publish_failures_total',
    'Route and asset change messages that could not be published (the broker was unreachable); watchers elsewhere learn of the change by polling.',
  );
  const received = counter(
    'switchyard_events_received_total',
    "Route and asset change messages received from the events broker, by this instance's one subscription.",
  );
  if (registry) {
    new Gauge({
      name: 'switchyard_events_feed_up',
      help: 'Whether the events feed delivers (1) or route watchers poll the database at WATCH_POLL_MS because it is down (0).',
      registers: [registry],
      collect() {
        this.set(feed.up ? 1 : 0);
      },
    });
  }
  let failing = false;
  feed.subscribe({
    revision: () => void (received.value += 1),
    state: (up) => {
      if (up) log.info(describe, 'events feed up: route watchers wake on its messages and poll only as a safety net');
      else log.warn(describe, 'events feed down: route watchers poll the database every WATCH_POLL_MS until it is back');
    },
  });
  const observed: ChangeFeed = {
    // eslint-disable-next-line no-restricted-syntax -- made once per process, not per request
    get up() {
      return feed.up;
    },
    subscribe: (listener: ChangeFeedListener) => feed.subscribe(listener),
    publish: async (workspace, revision, changeLog, changed) => {
      try {
        await feed.publish(workspace, revision, changeLog, changed);
        published.value += 1;
        failing = false;
      } catch (error) {
        failures.value += 1;
        if (!failing)
          log.warn({ ...describe, err: error }, 'publishing a change to the events feed failed: other instances see it at their next poll');
        failing = true;
        throw error;
      }
    },
  };
  return Object.assign(observed, { start: () => feed.start(), close: () => feed.close() });
}

import { Redis } from 'ioredis';
import { ChangeFeedListeners, SwitchyardError, type ChangeFeedListener, type ChangeLogName } from '@switchyard/core';
import { backoffMs, type BrokerFeed, type ConnectionErrorSink } from './broker-feed.js';
import { decodeRevision, encodeRevision } from './feed-message.js';

/** A channel with a `*` is a pattern (a gateway following every deployment's channel): subscribed with PSUBSCRIBE. */
const isPattern = (channel: string): boolean => channel.includes('*');

/**
 * Route and asset changes over Redis pub/sub: one channel for every workspace, two
 * connections (a connection that subscribes can do nothing else). Both
 * reconnect with backoff for as long as the feed is open. The feed is up
 * from the moment Redis confirms the subscription on a ready connection
 * (subscribed again by us on every reconnect, so that moment is known) until
 * that connection closes. Publishing never queues: while Redis is away it
 * fails at once, and the write's other watchers learn of it by polling.
 */
export class RedisChangeFeed implements BrokerFeed {
  readonly #listeners = new ChangeFeedListeners();
  readonly #channel: string;
  readonly #subscriber: Redis;
  readonly #publisher: Redis;

  constructor(url: string, channel: string, onError: ConnectionErrorSink) {
    this.#channel = channel;
    const options = { lazyConnect: true, retryStrategy: backoffMs, connectTimeout: 5_000 } as const;
    this.#subscriber = new Redis(url, { ...options, autoResubscribe: false, maxRetriesPerRequest: null });
    this.#publisher = new Redis(url, { ...options, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 2_000 });
    for (const connection of [this.#subscriber, this.#publisher]) connection.on('error', onError);
    this.#subscriber.on('ready', () => void this.#subscribe());
    for (const event of ['close', 'end'] as const) this.#subscriber.on(event, () => this.#listeners.setUp(false));
    const deliver = (text: string): void => {
      const message = decodeRevision(text);
      if (message) this.#listeners.deliver(message.workspace, message.revision, message.log, message.changed);
    };
    this.#subscriber.on('message', (channel: string, text: string) => channel === this.#channel && deliver(text));
    this.#subscriber.on('pmessage', (pattern: string, _channel: string, text: string) => pattern === this.#channel && deliver(text));
  }

  get up(): boolean {
    return this.#listeners.up;
  }

  start(): void {
    // A refused first connection is retried by ioredis (retryStrategy); the rejection says nothing more.
    for (const connection of [this.#subscriber, this.#publisher]) connection.connect().catch(() => undefined);
  }

  async publish(workspace: string, revision: number, log: ChangeLogName = 'routes', changed?: readonly string[]): Promise<void> {
    try {
      await this.#publisher.publish(this.#channel, encodeRevision(workspace, revision, log, changed));
    } catch (error) {
      throw new SwitchyardError('unavailable', `publishing to Redis failed: ${(error as Error).message}`);
    }
  }

  subscribe(listener: ChangeFeedListener): () => void {
    return this.#listeners.subscribe(listener);
  }

  async close(): Promise<void> {
    this.#listeners.setUp(false);
    this.#subscriber.disconnect();
    this.#publisher.disconnect();
  }

  async #subscribe(): Promise<void> {
    try {
      if (isPattern(this.#channel)) await this.#subscriber.psubscribe(this.#channel);
      else await this.#subscriber.subscribe(this.#channel);
    } catch {
      // The connection dropped meanwhile: 'close' follows, then 'ready' and another try.
      return;
    }
    if (this.#subscriber.status === 'ready') this.#listeners.setUp(true);
  }
}

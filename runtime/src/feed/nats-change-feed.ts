import { setTimeout as sleep } from 'node:timers/promises';
import { connect, Events, type NatsConnection } from 'nats';
import { ChangeFeedListeners, SwitchyardError, type ChangeFeedListener, type ChangeLogName } from '@switchyard/core';
import { backoffMs, type BrokerFeed, type ConnectionErrorSink } from './broker-feed.js';
import { decodeRevision, encodeRevision } from './feed-message.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Route and asset changes over core NATS: one subject for every workspace (a
 * subject with a `*` follows every deployment's, for a gateway: it only listens). Once
 * connected, the client reconnects for ever (`maxReconnectAttempts: -1`) and
 * subscribes again by itself; the feed is down from its `disconnect` status
 * until a `reconnect` and a flush (a round trip: the server has our
 * subscription again); publishing fails while it is down. The first
 * connection is retried here rather than with
 * `waitOnFirstConnect`, whose retry loop nothing can stop: a service closed
 * while NATS is unreachable would never let go of it.
 */
export class NatsChangeFeed implements BrokerFeed {
  readonly #listeners = new ChangeFeedListeners();
  readonly #url: string;
  readonly #subject: string;
  readonly #onError: ConnectionErrorSink;
  readonly #closing = new AbortController();
  #connection: NatsConnection | undefined;

  constructor(url: string, subject: string, onError: ConnectionErrorSink) {
    this.#url = url;
    this.#subject = subject;
    this.#onError = onError;
  }

  get up(): boolean {
    return this.#listeners.up;
  }

  start(): void {
    void this.#connect();
  }

  async publish(workspace: string, revision: number, log: ChangeLogName = 'routes', changed?: readonly string[]): Promise<void> {
    const connection = this.#connection;
    // Not handed to the client's reconnect buffer, which has no bound: what is published while the
    // feed is down is found by the catch-up reads when it is back, so it fails fast, as over Redis.
    if (!connection || connection.isClosed() || !this.up) throw new SwitchyardError('unavailable', 'not connected to NATS');
    connection.publish(this.#subject, encoder.encode(encodeRevision(workspace, revision, log, changed)));
  }

  subscribe(listener: ChangeFeedListener): () => void {
    return this.#listeners.subscribe(listener);
  }

  async close(): Promise<void> {
    this.#closing.abort();
    this.#listeners.setUp(false);
    await this.#connection?.close();
  }

  async #connect(): Promise<void> {
    for (let attempt = 1; !this.#closing.signal.aborted; attempt++) {
      let connection: NatsConnection;
      try {
        connection = await connect({
          servers: this.#url,
          name: 'switchyard-service',
          reconnect: true,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 500,
          timeout: 5_000,
        });
      } catch (error) {
        this.#onError(error as Error);
        await sleep(backoffMs(attempt), undefined, { signal: this.#closing.signal }).catch(() => undefined);
        continue;
      }
      if (this.#closing.signal.aborted) {
        await connection.close();
        return;
      }
      this.#connection = connection;
      void this.#follow(connection);
      connection.subscribe(this.#subject, {
        callback: (error, message) => {
          const decoded = error ? undefined : decodeRevision(decoder.decode(message.data));
          if (decoded) this.#listeners.deliver(decoded.workspace, decoded.revision, decoded.log, decoded.changed);
        },
      });
      await this.#confirm(connection);
      return;
    }
  }

  /** Up once the server has answered a flush sent after our subscription. */
  async #confirm(connection: NatsConnection): Promise<void> {
    try {
      await connection.flush();
      if (!connection.isClosed() && !this.#closing.signal.aborted) this.#listeners.setUp(true);
    } catch (error) {
      this.#onError(error as Error);
    }
  }

  async #follow(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === Events.Disconnect) this.#listeners.setUp(false);
      else if (status.type === Events.Reconnect) void this.#confirm(connection);
      else if (status.type === Events.Error)
        this.#onError(new Error(typeof status.data === 'object' ? JSON.stringify(status.data) : String(status.data)));
    }
    this.#listeners.setUp(false);
  }
}

import type { Transport } from '@connectrpc/connect';
import { systemTime, type TimeSource } from '@switchyard/core';
import type { Logger } from '@switchyard/runtime';
import type { ServiceAddress } from './address-list.js';
import { HealthTracker, HEALTH_TIMINGS, type HealthProbe, type HealthTimings } from './health-tracker.js';
import type { ServiceConnection } from './service-connection.js';

/** One service address the gateway holds a connection to. */
export interface PoolMember {
  /** `http://ip:port` */
  readonly url: string;
  readonly transport: Transport;
}

export interface ServicePoolOptions {
  readonly connect: (address: ServiceAddress) => ServiceConnection;
  /** A grpc.health.v1 Check over a member's transport. */
  readonly probe: (transport: Transport, timeoutMs: number) => ReturnType<HealthProbe>;
  readonly log: Logger;
  /** Hears the number of healthy connections whenever it changes (a gauge). */
  readonly onHealthyCount?: ((count: number) => void) | undefined;
  readonly timings?: HealthTimings | undefined;
  /** How long a connection to an address no longer resolved stays open for the calls still on it. */
  readonly drainMs?: number | undefined;
  /** The clock and timers of health checks and drains (systemTime). */
  readonly time?: TimeSource | undefined;
}

interface Entry extends PoolMember {
  readonly connection: ServiceConnection;
  readonly health: HealthTracker;
}

/**
 * The connections of a balanced gateway, one per service address, each with
 * its health. `pick` goes round-robin over the connections not known to be
 * unhealthy; when every one is, it goes over all of them, so calls fail (or
 * succeed) as they would with one address rather than being refused here.
 */
export class ServicePool {
  readonly #options: ServicePoolOptions;
  readonly #time: TimeSource;
  readonly #entries = new Map<string, Entry>();
  #eligible: Entry[] = [];
  #all: Entry[] = [];
  #next = 0;
  #healthyCount = -1;
  #closed = false;

  constructor(options: ServicePoolOptions) {
    this.#options = options;
    this.#time = options.time ?? systemTime;
  }

  /** The addresses now resolved: new ones are connected, ones gone are closed after `drainMs`. */
  update(addresses: readonly ServiceAddress[]): void {
    if (this.#closed) return;
    const wanted = new Set(addresses.map((address) => address.url));
    for (const [url, entry] of this.#entries) {
      if (wanted.has(url)) continue;
      this.#entries.delete(url);
      entry.health.close();
      this.#time.setTimeout(() => entry.connection.close(), this.#options.drainMs ?? 10_000).unref?.();
      this.#options.log.info({ address: url }, 'service address no longer resolved: its connection closes');
    }
    for (const address of addresses) {
      if (this.#entries.has(address.url)) continue;
      const connection = this.#options.connect(address);
      const health = new HealthTracker(
        (timeoutMs) => this.#options.probe(connection.transport, timeoutMs),
        (state, reason, previous) => this.#changed(address.url, state, reason, previous),
        this.#options.timings ?? HEALTH_TIMINGS,
        this.#time,
      );
      this.#entries.set(address.url, { url: address.url, transport: connection.transport, connection, health });
      health.start();
    }
    this.#refresh();
  }

  /** The next connection to call on, other than `besides` (a retry's first choice); undefined when there is none. */
  pick(besides?: PoolMember): PoolMember | undefined {
    const from = this.#eligible.length > 0 ? this.#eligible : this.#all;
    const count = from.length;
    for (let tries = 0; tries < count; tries++) {
      const entry = from[this.#next++ % count]!;
      if (entry !== besides) return entry;
    }
    return undefined;
  }

  /** A call found `member`'s connection dead: it takes no more calls until a health check passes. */
  fail(member: PoolMember, reason: string): void {
    this.#entries.get(member.url)?.health.fail(reason);
  }

  /** Addresses and their health, for logs and tests. */
  snapshot(): readonly { readonly url: string; readonly state: string }[] {
    return this.#all.map((entry) => ({ url: entry.url, state: entry.health.state }));
  }

  close(): void {
    this.#closed = true;
    for (const entry of this.#entries.values()) {
      entry.health.close();
      entry.connection.close();
    }
    this.#entries.clear();
    this.#refresh();
  }

  #changed(url: string, state: 'healthy' | 'unhealthy', reason: string | undefined, previous: string): void {
    const log = this.#options.log;
    if (state === 'unhealthy') {
      const message = previous === 'healthy' ? 'service taken out of rotation' : 'service does not answer; not in rotation';
      log.warn({ address: url, reason }, message);
    } else if (previous === 'unhealthy') {
      log.info({ address: url }, 'service back in rotation');
    }
    this.#refresh();
  }

  #refresh(): void {
    this.#all = [...this.#entries.values()];
    this.#eligible = this.#all.filter((entry) => entry.health.state !== 'unhealthy');
    const healthy = this.#all.filter((entry) => entry.health.state === 'healthy').length;
    if (healthy !== this.#healthyCount) {
      this.#healthyCount = healthy;
      this.#options.onHealthyCount?.(healthy);
    }
  }
}

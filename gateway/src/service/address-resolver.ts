import { lookup } from 'node:dns/promises';
import { systemTime, type TimerHandle, type TimeSource } from '@switchyard/core';
import { resolveTargets, type LookupAll, type ServiceAddress, type ServiceTarget } from './address-list.js';

export interface AddressResolverOptions {
  readonly targets: readonly ServiceTarget[];
  /** Called with every resolution's addresses (also when unchanged; the pool compares). */
  readonly onAddresses: (addresses: readonly ServiceAddress[]) => void;
  /** A resolution that found nothing at all; the last addresses stay in use. */
  readonly onError: (error: unknown) => void;
  readonly lookup?: LookupAll | undefined;
  /** Re-resolution period (grpc-js's `dns:` resolver: 30 s). */
  readonly intervalMs?: number | undefined;
  /** At most one resolution asked for by `refresh()` per this many ms (grpc-js: 30 s; shorter here, so a new pod is found soon after an old one fails). */
  readonly minIntervalMs?: number | undefined;
  /** The clock and timers of the schedule (systemTime). */
  readonly time?: TimeSource | undefined;
}

/** node:dns `lookup` with `all`, as the operating system resolves (hosts file, search domains), like grpc-js's default. */
export const systemLookup: LookupAll = async (hostname) => (await lookup(hostname, { all: true })).map((entry) => entry.address);

/**
 * Keeps SERVICE_URL's addresses current: resolves at start, every
 * `intervalMs`, and on `refresh()` (a connection failed), rate-limited.
 */
export class AddressResolver {
  readonly #options: AddressResolverOptions;
  readonly #intervalMs: number;
  readonly #minIntervalMs: number;
  readonly #time: TimeSource;
  #timer: TimerHandle | undefined;
  #running: Promise<void> | undefined;
  #lastStarted = -Infinity;
  #closed = false;

  constructor(options: AddressResolverOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? 30_000;
    this.#minIntervalMs = options.minIntervalMs ?? 5_000;
    this.#time = options.time ?? systemTime;
  }

  /** Resolves once now; the returned promise settles after the first answer has been delivered. */
  start(): Promise<void> {
    return this.#resolve();
  }

  /** Resolves again soon (at once if the last resolution is older than `minIntervalMs`). */
  refresh(): void {
    if (this.#closed || this.#running) return;
    const wait = this.#lastStarted + this.#minIntervalMs - this.#now();
    if (wait <= 0) void this.#resolve();
    else this.#schedule(wait);
  }

  close(): void {
    this.#closed = true;
    this.#time.clearTimeout(this.#timer);
  }

  #now(): number {
    return this.#time.now().getTime();
  }

  #schedule(delayMs: number): void {
    if (this.#closed) return;
    this.#time.clearTimeout(this.#timer);
    this.#timer = this.#time.setTimeout(() => void this.#resolve(), delayMs);
    this.#timer.unref?.();
  }

  #resolve(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#lastStarted = this.#now();
    this.#time.clearTimeout(this.#timer);
    this.#running ??= (async () => {
      try {
        const addresses = await resolveTargets(this.#options.targets, this.#options.lookup ?? systemLookup);
        if (!this.#closed) this.#options.onAddresses(addresses);
      } catch (error) {
        if (!this.#closed) this.#options.onError(error);
      } finally {
        this.#running = undefined;
        this.#schedule(this.#intervalMs);
      }
    })();
    return this.#running;
  }
}

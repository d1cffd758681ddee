import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import type { Logger } from '@switchyard/runtime';
import { systemTime, type TimerHandle, type TimeSource } from '@switchyard/core';

/** Fully qualified names of the services whose health is reported (plus "", the server as a whole). */
export const SERVICE_NAMES = [
  'switchyard.v1.RouteService',
  'switchyard.v1.AssetService',
  'switchyard.v1.FileService',
  'switchyard.v1.UploadService',
  'switchyard.v1.KeyService',
  'switchyard.v1.WebhookService',
] as const;

export interface HealthMonitorOptions {
  /** Resolves when the database and the blob store answer. */
  readonly check: () => Promise<void>;
  readonly log: Logger;
  readonly intervalMs: number;
  /** A check that hangs (a stalled database) counts as a failure after this long. */
  readonly timeoutMs: number;
  /** Where the checks and their timeouts are scheduled (the system's timers by default). */
  readonly time?: TimeSource | undefined;
}

/**
 * Serves `grpc.health.v1.Health` from a periodic storage check: SERVING while
 * the check passes, NOT_SERVING while it fails, for "" and every service.
 */
export class HealthMonitor {
  readonly implementation = new HealthImplementation({});
  #timer: TimerHandle | undefined;
  #current: ServingStatus | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  readonly #time: TimeSource;

  constructor(private readonly options: HealthMonitorOptions) {
    this.#time = options.time ?? systemTime;
  }

  /** Runs the first check, then keeps checking until `stop()`. */
  async start(): Promise<void> {
    await this.refresh();
    this.#timer = this.#time.setInterval(() => void this.refresh(), this.options.intervalMs);
    this.#timer.unref?.();
  }

  /** One check now; overlapping calls share the check in progress. */
  refresh(): Promise<void> {
    this.#running ??= this.#checkOnce().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** Reports NOT_SERVING from now on (shutting down) and stops checking. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#time.clearInterval(this.#timer);
    this.#set('NOT_SERVING');
    await this.#running;
  }

  async #checkOnce(): Promise<void> {
    let timeout: TimerHandle | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timeout = this.#time.setTimeout(
        () => reject(new Error(`storage check took longer than ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
    });
    try {
      await Promise.race([this.options.check(), timedOut]);
      this.#set('SERVING');
    } catch (error) {
      if (this.#current !== 'NOT_SERVING') this.options.log.warn({ err: error }, 'storage check failed: NOT_SERVING');
      this.#set('NOT_SERVING');
    } finally {
      this.#time.clearTimeout(timeout);
    }
  }

  #set(status: ServingStatus): void {
    if (this.#stopped && status === 'SERVING') return;
    if (status === this.#current) return;
    if (status === 'SERVING' && this.#current === 'NOT_SERVING') this.options.log.info('storage answers again: SERVING');
    this.#current = status;
    for (const name of ['', ...SERVICE_NAMES]) this.implementation.setStatus(name, status);
  }
}

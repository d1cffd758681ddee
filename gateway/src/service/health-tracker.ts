import { systemTime, type TimerHandle, type TimeSource } from '@switchyard/core';

/** What a probe found: SERVING, or why not. */
export type ProbeResult = { readonly serving: true } | { readonly serving: false; readonly reason: string };

/** One grpc.health.v1 Check on one connection (within `timeoutMs`). */
export type HealthProbe = (timeoutMs: number) => Promise<ProbeResult>;

/** `unknown` until the first probe answers: such a connection takes calls (a gateway must serve from its first request). */
export type HealthState = 'unknown' | 'healthy' | 'unhealthy';

export interface HealthTimings {
  /** Between probes of a healthy connection. */
  readonly intervalMs: number;
  /** Between probes of an unhealthy one (a refused connect costs little; a service coming back is found soon). */
  readonly retryMs: number;
  /** A probe not answered within this counts as a failure: a hung service is taken out. */
  readonly timeoutMs: number;
}

export const HEALTH_TIMINGS: HealthTimings = Object.freeze({ intervalMs: 2_000, retryMs: 1_000, timeoutMs: 1_500 });

/**
 * The health of one service connection: probed on a timer, and marked
 * unhealthy at once when a call finds the connection dead (`fail`), then
 * probed again soon. `onChange` hears every transition, with the reason.
 * Probes are scheduled on `time`.
 */
export class HealthTracker {
  #state: HealthState = 'unknown';
  #timer: TimerHandle | undefined;
  #probing = false;
  #closed = false;

  constructor(
    private readonly probe: HealthProbe,
    private readonly onChange: (state: 'healthy' | 'unhealthy', reason: string | undefined, previous: HealthState) => void,
    private readonly timings: HealthTimings = HEALTH_TIMINGS,
    private readonly time: TimeSource = systemTime,
  ) {}

  get state(): HealthState {
    return this.#state;
  }

  start(): void {
    void this.#run();
  }

  /** A call found the connection dead: out now, probed again after `retryMs`. */
  fail(reason: string): void {
    if (this.#closed) return;
    this.#set('unhealthy', reason);
    if (!this.#probing) this.#schedule(this.timings.retryMs);
  }

  close(): void {
    this.#closed = true;
    this.time.clearTimeout(this.#timer);
  }

  async #run(): Promise<void> {
    if (this.#closed || this.#probing) return;
    this.#probing = true;
    let result: ProbeResult;
    try {
      result = await this.probe(this.timings.timeoutMs);
    } catch (error) {
      result = { serving: false, reason: error instanceof Error ? error.message : String(error) };
    } finally {
      this.#probing = false;
    }
    if (this.#closed) return;
    if (result.serving) this.#set('healthy', undefined);
    else this.#set('unhealthy', result.reason);
    this.#schedule(result.serving ? this.timings.intervalMs : this.timings.retryMs);
  }

  #schedule(delayMs: number): void {
    this.time.clearTimeout(this.#timer);
    this.#timer = this.time.setTimeout(() => void this.#run(), delayMs);
    this.#timer.unref?.();
  }

  #set(state: 'healthy' | 'unhealthy', reason: string | undefined): void {
    const previous = this.#state;
    if (previous === state) return;
    this.#state = state;
    this.onChange(state, reason, previous);
  }
}

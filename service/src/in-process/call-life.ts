import type { Metadata } from '@grpc/grpc-js';

/**
 * One in-process call from start to end: the metadata it came with, the
 * headers the handler sent, and whether (and why) it was cancelled. A plain
 * object with a listener list rather than an AbortController per call: Node's
 * AbortSignal machinery was a fifth of the server's CPU in the rest-get-asset
 * profile (bench/README.md, "Profiling").
 */
export class CallLife {
  readonly responseHeader = new Headers();
  #state: 'running' | 'cancelled' | 'settled' = 'running';
  #listeners: (() => void)[] = [];
  #reason: unknown;

  constructor(readonly metadata: Metadata) {}

  get cancelled(): boolean {
    return this.#state === 'cancelled';
  }

  /** Why it was cancelled (a ConnectError), once it was. */
  get reason(): unknown {
    return this.#reason;
  }

  /** Runs `listener` once if the call is cancelled (at once if it already was). */
  onCancel(listener: () => void): void {
    if (this.#state === 'cancelled') queueMicrotask(listener);
    else if (this.#state === 'running') this.#listeners.push(listener);
  }

  /** Cancels a running call; a settled one stays as it ended. */
  cancel(reason: unknown): void {
    if (this.#state !== 'running') return;
    this.#state = 'cancelled';
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }

  /** The handler is done: later aborts change nothing. */
  settle(): void {
    if (this.#state !== 'running') return;
    this.#state = 'settled';
    this.#listeners = [];
  }
}

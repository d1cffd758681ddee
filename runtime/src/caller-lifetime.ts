import { createContextKey } from '@connectrpc/connect';

/**
 * How long the caller a service call is made for (the gateway's HTTP request)
 * is still there. The gateway hands it to the service's transport in the
 * call's context values (CALLER_LIFETIME) instead of an AbortSignal, so no
 * signal is made and listened to for every request: most requests end
 * without ever aborting. The in-process channel listens here; a transport that takes only
 * signals asks for `signal`, made then.
 * Justified by rest-get-asset (bench/hand-written-parts.md#caller-lifetime).
 */
export interface CallerLifetime {
  /** The caller went away before its answer was complete. */
  readonly ended: boolean;
  /**
   * Runs `listener` once when the caller goes away (not at all when it
   * already has: check `ended` first); a function already listening is not
   * added twice, as with addEventListener. Returns the function that stops
   * listening.
   */
  onEnd(listener: () => void): () => void;
  /** Aborted when the caller goes away: for whatever takes only a signal, made when first asked for. */
  readonly signal: AbortSignal;
}

/** The caller's lifetime in a call's context values; none by default. */
export const CALLER_LIFETIME = createContextKey<CallerLifetime | undefined>(undefined, {
  description: 'the lifetime of the caller a call is made for',
});

/** A call's signal for a transport that takes only signals: aborted by the signal given or by its caller's lifetime's end. */
export function callerSignal(signal: AbortSignal | undefined, lifetime: CallerLifetime | undefined): AbortSignal | undefined {
  if (lifetime === undefined) return signal;
  return signal === undefined ? lifetime.signal : AbortSignal.any([signal, lifetime.signal]);
}

/** A caller's lifetime that `end()` ends: the gateway's, one per request. */
export class EndableLifetime implements CallerLifetime {
  #ended = false;
  #listeners: Set<() => void> | undefined;
  #controller: AbortController | undefined;
  readonly #reportListenerError: (error: unknown) => void;

  /** `reportListenerError` gets what a listener throws; by default it is thrown again in a microtask, as EventTarget reports one. */
  constructor(reportListenerError: (error: unknown) => void = rethrowLater) {
    this.#reportListenerError = reportListenerError;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#ended) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  onEnd(listener: () => void): () => void {
    if (this.#ended) return () => {};
    const listeners = (this.#listeners ??= new Set());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }

  /**
   * The caller went away: every listener runs once, and the signal (if made)
   * aborts. A listener that throws does not keep the others from running;
   * its error is reported (see the constructor).
   */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    this.#controller?.abort();
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        this.#reportListenerError(error);
      }
    }
  }
}

function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}

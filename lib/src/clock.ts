/** Where the library gets the time, so tests can fix it. */
export interface Clock {
  now(): Date;
}

/** A timer `Timers` started: handed back to cancel it; `unref` (Node's, absent in browsers) lets the process exit while it waits. */
export interface TimerHandle {
  unref?(): unknown;
}

/** Where timing logic schedules its callbacks, so tests can run them on fake time. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
  setInterval(callback: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle | undefined): void;
}

/**
 * The time and the timers from one source, so that a deadline read from
 * `now()` and a wait scheduled on the timers agree (in tests, both fake).
 */
export interface TimeSource extends Clock, Timers {}

export const systemClock: Clock = Object.freeze({ now: () => new Date() });

export const systemTime: TimeSource = Object.freeze({
  now: () => new Date(),
  setTimeout: (callback: () => void, ms: number) => setTimeout(callback, ms),
  clearTimeout: (handle: TimerHandle | undefined) => clearTimeout(handle as NodeJS.Timeout | undefined),
  setInterval: (callback: () => void, ms: number) => setInterval(callback, ms),
  clearInterval: (handle: TimerHandle | undefined) => clearInterval(handle as NodeJS.Timeout | undefined),
});

/** Resolves after `ms` on `timers`; with a signal, rejects with its reason once it aborts (the timer cleared). */
export function sleep(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // An abort rejects with the signal's own reason, as node:timers/promises does.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      timers.clearTimeout(handle);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      reject(signal?.reason);
    };
    const handle = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

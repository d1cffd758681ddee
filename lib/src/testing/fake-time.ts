import type { TimeSource, TimerHandle } from '../clock.js';

/**
 * What `timeSourceOf` needs of a `@sinonjs/fake-timers` clock (from its
 * `createClock()`): declared here, so the library does not depend on it.
 */
export interface FakeTimersClock {
  readonly now: number;
  setTimeout(callback: () => void, ms?: number): unknown;
  clearTimeout(id?: unknown): void;
  setInterval(callback: () => void, ms?: number): unknown;
  clearInterval(id?: unknown): void;
}

/** A fake timer's id, with the `unref` a Node timer has (a no-op: fake time never holds the process open). */
class FakeTimer implements TimerHandle {
  constructor(readonly id: unknown) {}
  unref(): this {
    return this;
  }
}

const idOf = (handle: TimerHandle | undefined): unknown => (handle instanceof FakeTimer ? handle.id : undefined);

/** The clock and timers of a fake-timers clock as a `TimeSource`: the code under test runs on it, the test moves it with `tick`. */
export function timeSourceOf(clock: FakeTimersClock): TimeSource {
  return Object.freeze({
    now: () => new Date(clock.now),
    setTimeout: (callback: () => void, ms: number) => new FakeTimer(clock.setTimeout(callback, ms)),
    clearTimeout: (handle: TimerHandle | undefined) => clock.clearTimeout(idOf(handle)),
    setInterval: (callback: () => void, ms: number) => new FakeTimer(clock.setInterval(callback, ms)),
    clearInterval: (handle: TimerHandle | undefined) => clock.clearInterval(idOf(handle)),
  });
}

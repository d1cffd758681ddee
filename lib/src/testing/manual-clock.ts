import type { Clock } from '../clock.js';

/** A clock that moves only when told to: for tests that need exact times. */
export interface ManualClock extends Clock {
  /** Moves the time forward (or back, with a negative value) and returns the new time. */
  advance(milliseconds: number): Date;
  set(time: Date | string | number): void;
}

export function createManualClock(start: Date | string | number = '2024-01-01T00:00:00.000Z'): ManualClock {
  let current = toTime(start);
  return {
    // A fresh Date each time, so no caller can move the clock by mutating what it got.
    now: () => new Date(current),
    advance(milliseconds) {
      current += milliseconds;
      return new Date(current);
    },
    set(time) {
      current = toTime(time);
    },
  };
}

function toTime(value: Date | string | number): number {
  const time = new Date(value).getTime();
  if (Number.isNaN(time)) throw new RangeError(`not a time: ${String(value)}`);
  return time;
}

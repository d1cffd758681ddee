import { setTimeout as sleep } from 'node:timers/promises';

// Waiting in tests for something to happen, in real time: for socket I/O, other processes, a
// server's answer. Timing logic itself runs on fake time (timeSourceOf); this only bounds a hang.

export interface EventuallyOptions {
  /** A generous deadline (10-30 s): it catches a hang, it does not measure speed (that is bench/'s job). */
  readonly timeout: number;
  /** Pause between attempts; 50 ms unless told (0 tries again at the next turn of the event loop's timers). */
  readonly interval?: number;
  /** What was awaited, for the error when it never held. */
  readonly message?: string;
}

/**
 * Runs `check` until it returns a truthy value (which it resolves with) or
 * the deadline passes; a check that throws or returns a falsy value is tried
 * again. On the deadline it throws with `message` and the last error or
 * value, so a failing test says what it did not reach, not only that it
 * waited. The last attempt starts before the deadline and is awaited whole.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  options: EventuallyOptions,
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const deadline = performance.now() + options.timeout;
  const interval = options.interval ?? 50;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
      last = `the check returned ${String(value)}`;
    } catch (error) {
      last = error;
    }
    if (performance.now() + interval > deadline) break;
    await sleep(interval);
  }
  const what = options.message ?? 'the check';
  const reason = last instanceof Error ? last.message : String(last);
  throw new Error(`${what}: not reached within ${options.timeout} ms; last: ${reason}`, { cause: last });
}

/**
 * A pause that shows something did NOT happen (a negative check): it cannot
 * be awaited as an event, so the test waits this long and then asserts the
 * absence. Named so that such sleeps are not taken for "sleep, then assert".
 */
export function quietPeriod(ms: number): Promise<void> {
  return sleep(ms);
}

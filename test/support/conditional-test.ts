// ava decides what is skipped when tests are registered, not while they run
// (it has no runtime `t.skip()`): a file whose tests need something that may
// be missing (MySQL, a program) checks for it once at load, with top-level
// await, and registers those tests through `testWhen`, so that a missing
// dependency is reported as a skip, never as a pass.
import test, { type Implementation } from 'ava';

/** The two ways the files register a test, `test(...)` and `test.serial(...)`. */
export interface ConditionalTest {
  <Args extends unknown[]>(title: string, implementation: Implementation<Args>, ...args: Args): void;
  serial<Args extends unknown[]>(title: string, implementation: Implementation<Args>, ...args: Args): void;
}

/**
 * ava's `test` when `available`; otherwise each test is registered as
 * `test.skip`, its title ending in `(skipped: <reason>)`. With `requiredBy`
 * (an environment variable such as REQUIRE_PROMTOOL), a missing dependency
 * throws instead when that variable is `1`, so the file fails.
 */
export function testWhen(available: boolean, reason: string, requiredBy?: string): ConditionalTest {
  if (available) return test;
  if (requiredBy !== undefined && process.env[requiredBy] === '1') throw new Error(`${requiredBy}=1, but ${reason}`);
  const suffix = ` (skipped: ${reason})`;
  const skipped: ConditionalTest = (title, implementation, ...args) => test.skip(title + suffix, implementation, ...args);
  skipped.serial = (title, implementation, ...args) => test.serial.skip(title + suffix, implementation, ...args);
  return skipped;
}

import assert from 'node:assert/strict';

/**
 * The assertions the conformance suites use, on `node:assert`, so the suites run
 * under any test runner (ava, node:test, vitest, jest) and `@switchyard/core`
 * depends on none of them. Names follow ava's, which the suites were written in.
 */
export interface Check {
  is<T>(actual: unknown, expected: T, message?: string): void;
  deepEqual(actual: unknown, expected: unknown, message?: string): void;
  true(actual: unknown, message?: string): void;
  false(actual: unknown, message?: string): void;
  truthy(actual: unknown, message?: string): void;
  /** Resolves to the rejection reason; fails if `promise` fulfils. */
  throwsAsync(promise: Promise<unknown>, message?: string): Promise<unknown>;
  notThrowsAsync(promise: Promise<unknown>, message?: string): Promise<void>;
}

const NOT_REJECTED = Symbol('not rejected');

export const check: Check = Object.freeze({
  is: (actual: unknown, expected: unknown, message?: string) => assert.strictEqual(actual, expected, message),
  deepEqual: (actual: unknown, expected: unknown, message?: string) => assert.deepStrictEqual(actual, expected, message),
  true: (actual: unknown, message?: string) => assert.strictEqual(actual, true, message),
  false: (actual: unknown, message?: string) => assert.strictEqual(actual, false, message),
  truthy: (actual: unknown, message?: string) => assert.ok(actual, message),
  async throwsAsync(promise: Promise<unknown>, message?: string): Promise<unknown> {
    const reason = await promise.then(
      () => NOT_REJECTED,
      (error: unknown) => error,
    );
    if (reason === NOT_REJECTED) assert.fail(message ?? 'expected a rejection, but the promise fulfilled');
    return reason;
  },
  async notThrowsAsync(promise: Promise<unknown>, message?: string): Promise<void> {
    try {
      await promise;
    } catch (error) {
      assert.fail(`${message ?? 'expected no rejection'}: ${error instanceof Error ? error.message : String(error)}`);
    }
  },
});

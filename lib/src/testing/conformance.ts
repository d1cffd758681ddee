import { randomBytes } from 'node:crypto';
import { isSwitchyardError, type ErrorCode, type SwitchyardError } from '../errors.js';
import { check, type Check } from './assertions.js';

/**
 * What the suites need of a test runner: its `test` function. ava's, node:test's,
 * vitest's and jest's all fit; each case asserts with `node:assert` and so fails
 * by throwing, whatever the runner.
 */
export type RegisterTest = (title: string, implementation: (...context: unknown[]) => Promise<void>) => unknown;

/** A store to test, and how to release it after one test. */
export interface StoreHandle<Store> {
  readonly store: Store;
  close?(): Promise<void>;
}

export interface ConformanceOptions<Store> {
  /** Prefixes every test title, e.g. `memory`, `sqlite`, `s3`. */
  readonly name: string;
  /**
   * Called once per test. May hand out one shared store: every test uses its
   * own fresh workspaces and keys, and tests run concurrently.
   */
  readonly create: () => Promise<StoreHandle<Store>>;
  /**
   * Optional: a store whose backend cannot be reached (closed port, stopped
   * server). Every operation must then reject with `unavailable`.
   */
  readonly createUnavailable?: () => Promise<StoreHandle<Store>>;
}

type Body<Store> = (t: Check, store: Store) => Promise<void>;

/** Registers one test that gets a store from `factory` and always releases it. */
export function defineCase<Store>(
  test: RegisterTest,
  options: ConformanceOptions<Store>,
  title: string,
  body: Body<Store>,
  factory: () => Promise<StoreHandle<Store>> = options.create,
): void {
  // Rest parameters keep the function's length 0, so jest does not take it for a
  // done-callback test; a runner that counts assertions (ava) is told of one.
  test(`${options.name}: ${title}`, async (...context: unknown[]) => {
    const handle = await factory();
    try {
      await body(check, handle.store);
    } finally {
      await handle.close?.();
    }
    countAssertion(context[0]);
  });
}

/** ava fails a test that made no assertion through its context; ours assert through `node:assert`. */
function countAssertion(context: unknown): void {
  if (typeof context === 'object' && context !== null && 'pass' in context && typeof context.pass === 'function')
    (context as { pass(): void }).pass();
}

/** A fresh name that is also a valid workspace and blob key segment. */
export function uniqueName(prefix = 'conf'): string {
  return `${prefix}-${randomBytes(8).toString('hex')}`;
}

/** Asserts that `promise` rejects with a SwitchyardError of `code`, and returns it. */
export async function assertRejectsWithCode(
  t: Check,
  promise: Promise<unknown>,
  code: ErrorCode,
  what: string,
): Promise<SwitchyardError | undefined> {
  const error = await t.throwsAsync(promise, `${what} should reject with ${code}`);
  t.true(isSwitchyardError(error) && error.code === code, `${what}: expected SwitchyardError(${code}), got ${describe(error)}`);
  return isSwitchyardError(error) ? error : undefined;
}

/** Counts settled results: how many fulfilled and the codes of those rejected. */
export function tally<T>(results: readonly PromiseSettledResult<T>[]): { fulfilled: T[]; rejectedCodes: string[] } {
  const fulfilled: T[] = [];
  const rejectedCodes: string[] = [];
  for (const result of results) {
    if (result.status === 'fulfilled') fulfilled.push(result.value);
    else rejectedCodes.push(isSwitchyardError(result.reason) ? result.reason.code : describe(result.reason));
  }
  return { fulfilled, rejectedCodes };
}

export function describe(error: unknown): string {
  if (isSwitchyardError(error)) return `SwitchyardError(${error.code}: ${error.message})`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

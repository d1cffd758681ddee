// One stack and one browser per test file (ava runs each file in its own process, so these bindings are the
// file's own): `useConsoleFixture(test)` starts both before the file's tests and stops them after.
import type { TestFn } from 'ava';
import type { Browser } from 'playwright-core';
import { startStack, type Stack } from '../../rest/support/stack.js';
import { launchChromium } from './console.js';

export let stack: Stack;
export let browser: Browser;

/** `stackOptions`: what `startStack` takes besides its environment (a file whose server runs on a fake clock). */
export function useConsoleFixture(test: TestFn, stackOptions?: Parameters<typeof startStack>[1]): void {
  test.before(async () => {
    [stack, browser] = await Promise.all([startStack({}, stackOptions), launchChromium()]);
  });
  test.after.always(async () => {
    await browser?.close();
    await stack?.stop();
  });
}

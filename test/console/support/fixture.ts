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
  // A browser test that times out says little of why: its failure carries what the servers logged last
  // (the file's tests run side by side, so other tests' lines are among them), and every slow request.
  test.afterEach.always((t) => {
    if (t.passed || !stack) return;
    t.log(`gateway, last lines and requests over 1 s:\n${serverLines(stack.logLines).join('\n')}`);
    t.log(`service, last lines and requests over 1 s:\n${serverLines(stack.serviceLogLines).join('\n')}`);
  });
  test.after.always(async () => {
    await browser?.close();
    await stack?.stop();
  });
}

/** The last 40 lines, after every earlier line of a request that took over a second or did not complete. */
function serverLines(lines: readonly string[]): string[] {
  const last = lines.length - 40;
  const slow = lines.filter((line, i) => {
    if (i >= last) return false;
    const slowness = /"durationMs":(\d+)/.exec(line);
    return Number(slowness?.[1] ?? 0) > 1000 || line.includes('"completed":false');
  });
  return [...slow.slice(-40), ...lines.slice(Math.max(0, last))];
}

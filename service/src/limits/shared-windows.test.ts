import test from 'ava';
import { sharedWindows } from './shared-windows.js';

test('the default burst (twice the rate) is a 1-second window at the rate and the rest over 10 s', (t) => {
  t.deepEqual(sharedWindows({ ratePerSecond: 50, burst: 100 }), {
    rate: { points: 50, durationS: 1 },
    burst: { points: 50, durationS: 10 },
  });
  t.deepEqual(sharedWindows({ ratePerSecond: 1000, burst: 2000 }).burst, { points: 1000, durationS: 10 });
});

test('the burst window adds at most a tenth of the rate over time', (t) => {
  for (const [ratePerSecond, burst] of [
    [2, 6],
    [3, 4],
    [7, 1000],
    [1, 10_000_000],
  ] as const) {
    const { burst: window } = sharedWindows({ ratePerSecond, burst });
    t.is(window!.points, burst - ratePerSecond);
    t.true(
      window!.points / window!.durationS <= ratePerSecond / 10,
      `${ratePerSecond}/${burst}: ${window!.points} per ${window!.durationS} s`,
    );
    t.true(Number.isInteger(window!.durationS));
  }
});

test('a burst no larger than the rate needs no burst window', (t) => {
  t.deepEqual(sharedWindows({ ratePerSecond: 2, burst: 2 }), { rate: { points: 2, durationS: 1 }, burst: undefined });
  t.is(sharedWindows({ ratePerSecond: 20, burst: 10 }).burst, undefined);
});

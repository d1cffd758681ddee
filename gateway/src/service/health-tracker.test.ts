import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { timeSourceOf } from '@switchyard/core/testing';
import { HealthTracker, type ProbeResult } from './health-tracker.js';

const TIMINGS = { intervalMs: 2_000, retryMs: 1_000, timeoutMs: 1_500 };

/** A probe whose answer the test sets, recording when (on the fake clock) each probe ran and with which timeout. */
function fakeProbe(initial: ProbeResult | Error) {
  const fake = createClock(0);
  const state = { answer: initial, probedAt: [] as number[], timeouts: [] as number[] };
  const probe = async (timeoutMs: number): Promise<ProbeResult> => {
    state.probedAt.push(fake.now);
    state.timeouts.push(timeoutMs);
    if (state.answer instanceof Error) throw state.answer;
    return state.answer;
  };
  return { state, probe, fake, time: timeSourceOf(fake) };
}

test('unknown until the first probe; then follows the probes, every intervalMs while healthy and retryMs while not, hearing each transition once', async (t) => {
  const { state, probe, fake, time } = fakeProbe({ serving: true });
  const changes: string[] = [];
  const tracker = new HealthTracker(
    probe,
    (to, reason, from) => changes.push(`${from}→${to}${reason ? ` (${reason})` : ''}`),
    TIMINGS,
    time,
  );
  t.teardown(() => tracker.close());
  t.is(tracker.state, 'unknown');
  tracker.start();
  await fake.tickAsync(0);
  t.is(tracker.state, 'healthy');
  state.answer = { serving: false, reason: 'the service reports NOT_SERVING' };
  await fake.tickAsync(1_999);
  t.is(tracker.state, 'healthy', 'not probed again before intervalMs');
  await fake.tickAsync(1);
  t.is(tracker.state, 'unhealthy');
  state.answer = new Error('connect ECONNREFUSED');
  await fake.tickAsync(1_000);
  t.is(tracker.state, 'unhealthy');
  state.answer = { serving: true };
  await fake.tickAsync(999);
  t.is(tracker.state, 'unhealthy', 'not probed again before retryMs');
  await fake.tickAsync(1);
  t.is(tracker.state, 'healthy');
  t.deepEqual(state.probedAt, [0, 2_000, 3_000, 4_000]);
  t.deepEqual(changes, ['unknown→healthy', 'healthy→unhealthy (the service reports NOT_SERVING)', 'unhealthy→healthy']);
  t.true(state.timeouts.every((ms) => ms === TIMINGS.timeoutMs));
});

test('fail() takes a healthy connection out at once and has it probed again after retryMs, not the long interval', async (t) => {
  const { state, probe, fake, time } = fakeProbe({ serving: true });
  const tracker = new HealthTracker(probe, () => {}, { ...TIMINGS, intervalMs: 60_000 }, time);
  t.teardown(() => tracker.close());
  tracker.start();
  await fake.tickAsync(500);
  t.is(tracker.state, 'healthy');
  tracker.fail('the connection closed');
  t.is(tracker.state, 'unhealthy');
  await fake.tickAsync(999);
  t.deepEqual(state.probedAt, [0]);
  await fake.tickAsync(1);
  t.deepEqual(state.probedAt, [0, 1_500]);
  t.is(tracker.state, 'healthy');
});

test('close() stops probing', async (t) => {
  const { state, probe, fake, time } = fakeProbe({ serving: true });
  const tracker = new HealthTracker(probe, () => {}, TIMINGS, time);
  tracker.start();
  await fake.tickAsync(0);
  t.is(tracker.state, 'healthy');
  tracker.close();
  tracker.fail('late');
  t.is(fake.countTimers(), 0);
  await fake.tickAsync(10 * TIMINGS.intervalMs);
  t.deepEqual(state.probedAt, [0]);
});

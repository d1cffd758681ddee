import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { HealthTracker, type ProbeResult } from './health-tracker.js';

const TIMINGS = { intervalMs: 60, retryMs: 20, timeoutMs: 50 };

/** A probe whose answer the test sets, counting probes and the timeouts they were given. */
function fakeProbe(initial: ProbeResult | Error) {
  const state = { answer: initial, probes: 0, timeouts: [] as number[] };
  const probe = async (timeoutMs: number): Promise<ProbeResult> => {
    state.probes += 1;
    state.timeouts.push(timeoutMs);
    if (state.answer instanceof Error) throw state.answer;
    return state.answer;
  };
  return { state, probe };
}

async function until(check: () => boolean, withinMs = 2_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

test('unknown until the first probe; then follows the probes, hearing each transition once with its reason', async (t) => {
  const { state, probe } = fakeProbe({ serving: true });
  const changes: string[] = [];
  const tracker = new HealthTracker(probe, (to, reason, from) => changes.push(`${from}→${to}${reason ? ` (${reason})` : ''}`), TIMINGS);
  t.teardown(() => tracker.close());
  t.is(tracker.state, 'unknown');
  tracker.start();
  await until(() => tracker.state === 'healthy');
  state.answer = { serving: false, reason: 'the service reports NOT_SERVING' };
  await until(() => tracker.state === 'unhealthy');
  state.answer = new Error('connect ECONNREFUSED');
  await sleep(100);
  state.answer = { serving: true };
  await until(() => tracker.state === 'healthy');
  t.deepEqual(changes, ['unknown→healthy', 'healthy→unhealthy (the service reports NOT_SERVING)', 'unhealthy→healthy']);
  t.true(state.timeouts.every((ms) => ms === TIMINGS.timeoutMs));
});

test('fail() takes a healthy connection out at once and has it probed again soon', async (t) => {
  const { state, probe } = fakeProbe({ serving: true });
  const tracker = new HealthTracker(probe, () => {}, { ...TIMINGS, intervalMs: 60_000 });
  t.teardown(() => tracker.close());
  tracker.start();
  await until(() => tracker.state === 'healthy');
  const probes = state.probes;
  tracker.fail('the connection closed');
  t.is(tracker.state, 'unhealthy');
  await until(() => tracker.state === 'healthy', 1_000);
  t.is(state.probes, probes + 1, 'one probe after retryMs, not after the long interval');
});

test('close() stops probing', async (t) => {
  const { state, probe } = fakeProbe({ serving: true });
  const tracker = new HealthTracker(probe, () => {}, TIMINGS);
  tracker.start();
  await until(() => tracker.state === 'healthy');
  tracker.close();
  const probes = state.probes;
  tracker.fail('late');
  await sleep(200);
  t.is(state.probes, probes);
});

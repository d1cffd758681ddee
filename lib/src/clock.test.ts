import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { sleep, systemTime } from './clock.js';
import { timeSourceOf } from './testing/fake-time.js';

test('sleep resolves after its milliseconds on the given timers, not a ms sooner', async (t) => {
  const fake = createClock(0);
  let woke = false;
  const sleeping = sleep(timeSourceOf(fake), 1_000).then(() => (woke = true));
  await fake.tickAsync(999);
  t.false(woke);
  await fake.tickAsync(1);
  await sleeping;
  t.true(woke);
});

test('an aborted sleep rejects with the reason and leaves no timer behind; one aborted before it starts never schedules', async (t) => {
  const fake = createClock(0);
  const time = timeSourceOf(fake);
  const controller = new AbortController();
  const sleeping = sleep(time, 1_000, controller.signal);
  t.is(fake.countTimers(), 1);
  controller.abort(new Error('stopped'));
  await t.throwsAsync(sleeping, { message: 'stopped' });
  t.is(fake.countTimers(), 0);
  await t.throwsAsync(sleep(time, 1_000, controller.signal), { message: 'stopped' });
  t.is(fake.countTimers(), 0);
});

test('the fake time source reads and schedules on its clock; cleared timers never fire', async (t) => {
  const fake = createClock(Date.parse('2024-05-01T12:00:00.000Z'));
  const time = timeSourceOf(fake);
  const fired: string[] = [];
  const once = time.setTimeout(() => fired.push(`once@${fake.now}`), 100);
  const every = time.setInterval(() => fired.push(`every@${fake.now}`), 40);
  const cleared = time.setTimeout(() => fired.push('cleared'), 50);
  time.clearTimeout(cleared);
  t.notThrows(() => once.unref?.());
  fake.tick(100);
  time.clearInterval(every);
  fake.tick(1_000);
  const start = Date.parse('2024-05-01T12:00:00.000Z');
  t.deepEqual(fired, [`every@${start + 40}`, `every@${start + 80}`, `once@${start + 100}`]);
  t.is(time.now().toISOString(), '2024-05-01T12:00:01.100Z');
});

test('the system time source reads the time of day and hands back Node timers that can be unref-ed and cleared', (t) => {
  const handle = systemTime.setTimeout(() => t.fail('cleared'), 60_000);
  t.notThrows(() => handle.unref?.());
  systemTime.clearTimeout(handle);
  const before = Date.now();
  const read = systemTime.now().getTime();
  t.true(before <= read && read <= Date.now(), 'the time of day, as Date.now reads it');
});

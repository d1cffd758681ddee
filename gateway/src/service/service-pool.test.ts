import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { timeSourceOf } from '@switchyard/core/testing';
import type { Transport } from '@connectrpc/connect';
import { createLogger } from '@switchyard/runtime';
import { ServicePool } from './service-pool.js';

const unused: Transport = { unary: () => Promise.reject(new Error('not called')), stream: () => Promise.reject(new Error('not called')) };
const at = (...urls: string[]) => urls.map((url) => ({ url, servername: undefined }));

function pool(drainMs = 50) {
  const fake = createClock(0);
  const opened: string[] = [];
  const closed: string[] = [];
  const counts: number[] = [];
  const instance = new ServicePool({
    connect: (address) => (opened.push(address.url), { transport: unused, close: () => void closed.push(address.url) }),
    probe: async () => ({ serving: true }),
    log: createLogger('silent'),
    onHealthyCount: (count) => counts.push(count),
    timings: { intervalMs: 60_000, retryMs: 60_000, timeoutMs: 1_000 },
    drainMs,
    time: timeSourceOf(fake),
  });
  return { instance, opened, closed, counts, fake };
}

test('an address keeps its connection across resolutions; a new one is connected; one gone is closed after the drain time', async (t) => {
  const { instance, opened, closed, fake } = pool();
  instance.update(at('http://a:1', 'http://b:1'));
  instance.update(at('http://b:1', 'http://c:1'));
  t.deepEqual(opened, ['http://a:1', 'http://b:1', 'http://c:1']);
  t.deepEqual(
    instance.snapshot().map((entry) => entry.url),
    ['http://b:1', 'http://c:1'],
  );
  t.deepEqual(closed, [], 'calls still on the old connection may finish');
  await fake.tickAsync(49);
  t.deepEqual(closed, [], 'open at 49 ms');
  await fake.tickAsync(1);
  t.deepEqual(closed, ['http://a:1'], 'closed at the drain time, 50 ms');
  instance.close();
  t.deepEqual(closed.sort(), ['http://a:1', 'http://b:1', 'http://c:1']);
});

test('the healthy count follows the checks and the addresses', async (t) => {
  const { instance, counts, fake } = pool();
  instance.update(at('http://a:1', 'http://b:1'));
  t.is(counts.at(-1), 0, 'unknown until checked');
  await fake.tickAsync(0);
  t.is(counts.at(-1), 2);
  const a = instance.pick()!;
  instance.fail(a, 'the connection closed');
  t.is(counts.at(-1), 1);
  t.not(instance.pick(), a);
  t.not(instance.pick(), a);
  instance.update(at('http://b:1'));
  instance.close();
  t.is(counts.at(-1), 0);
});

test('pick(besides) never returns `besides`; with one connection there is no other', (t) => {
  const { instance } = pool();
  instance.update(at('http://a:1'));
  const only = instance.pick()!;
  t.is(instance.pick(only), undefined);
  instance.close();
  t.is(instance.pick(), undefined);
});

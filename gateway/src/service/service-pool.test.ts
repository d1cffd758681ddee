import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Transport } from '@connectrpc/connect';
import { createLogger } from '@switchyard/runtime';
import { ServicePool } from './service-pool.js';

const unused: Transport = { unary: () => Promise.reject(new Error('not called')), stream: () => Promise.reject(new Error('not called')) };
const at = (...urls: string[]) => urls.map((url) => ({ url, servername: undefined }));

function pool(drainMs = 50) {
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
  });
  return { instance, opened, closed, counts };
}

test('an address keeps its connection across resolutions; a new one is connected; one gone is closed after the drain time', async (t) => {
  const { instance, opened, closed } = pool();
  instance.update(at('http://a:1', 'http://b:1'));
  instance.update(at('http://b:1', 'http://c:1'));
  t.deepEqual(opened, ['http://a:1', 'http://b:1', 'http://c:1']);
  t.deepEqual(
    instance.snapshot().map((entry) => entry.url),
    ['http://b:1', 'http://c:1'],
  );
  t.deepEqual(closed, [], 'calls still on the old connection may finish');
  await sleep(150);
  t.deepEqual(closed, ['http://a:1']);
  instance.close();
  t.deepEqual(closed.sort(), ['http://a:1', 'http://b:1', 'http://c:1']);
});

test('the healthy count follows the checks and the addresses', async (t) => {
  const { instance, counts } = pool();
  instance.update(at('http://a:1', 'http://b:1'));
  await sleep(50);
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

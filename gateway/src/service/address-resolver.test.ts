import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { Refusal } from '@switchyard/runtime';
import { parseServiceTargets, type ServiceAddress } from './address-list.js';
import { AddressResolver } from './address-resolver.js';

const targets = (raw: string) => {
  const parsed = parseServiceTargets(raw);
  if (parsed instanceof Refusal) throw new Error(parsed.reason);
  return parsed;
};

/** A DNS whose answer the test changes, counting lookups. */
function fakeDns(initial: string[]) {
  const dns = { answer: initial as string[] | Error, lookups: 0 };
  const lookup = async (): Promise<string[]> => {
    dns.lookups += 1;
    if (dns.answer instanceof Error) throw dns.answer;
    return dns.answer;
  };
  return { dns, lookup };
}

test('resolves at start and again every interval; the pool sees the new answer', async (t) => {
  const { dns, lookup } = fakeDns(['10.0.0.1']);
  const seen: string[][] = [];
  const resolver = new AddressResolver({
    targets: targets('http://svc:1'),
    lookup,
    intervalMs: 100,
    onAddresses: (addresses) => seen.push(addresses.map((a) => a.url)),
    onError: () => t.fail(),
  });
  t.teardown(() => resolver.close());
  await resolver.start();
  t.deepEqual(seen, [['http://10.0.0.1:1']]);
  dns.answer = ['10.0.0.1', '10.0.0.2'];
  const changedAt = Date.now();
  while (seen.at(-1)?.length !== 2) {
    if (Date.now() - changedAt > 3_000) return void t.fail('the new answer was not delivered');
    await sleep(10);
  }
  t.deepEqual(seen.at(-1), ['http://10.0.0.1:1', 'http://10.0.0.2:1']);
  const lookups = dns.lookups;
  await sleep(300);
  t.true(dns.lookups - lookups <= 5, `no more than one lookup per interval (${dns.lookups - lookups} in 300 ms)`);
});

test('refresh() resolves at once, then at most once per minIntervalMs however often it is asked', async (t) => {
  const { dns, lookup } = fakeDns(['10.0.0.1']);
  const resolver = new AddressResolver({
    targets: targets('http://svc:1'),
    lookup,
    intervalMs: 60_000,
    minIntervalMs: 1_500,
    onAddresses: () => {},
    onError: () => t.fail(),
  });
  t.teardown(() => resolver.close());
  await resolver.start();
  t.is(dns.lookups, 1);
  for (let i = 0; i < 20; i++) resolver.refresh();
  await sleep(20);
  t.is(dns.lookups, 1, 'a refresh within minIntervalMs of the last resolution waits');
  const asked = Date.now();
  while (dns.lookups < 2 && Date.now() - asked < 5_000) await sleep(20);
  await sleep(100);
  t.is(dns.lookups, 2, 'one deferred resolution for all those refreshes');
  await sleep(1_600);
  resolver.refresh();
  await sleep(50);
  t.is(dns.lookups, 3, 'a refresh after minIntervalMs resolves at once');
});

test('a failed lookup reports the error and keeps the addresses known (the pool is not emptied)', async (t) => {
  const { dns, lookup } = fakeDns(['10.0.0.1']);
  const seen: (readonly ServiceAddress[])[] = [];
  const errors: unknown[] = [];
  const resolver = new AddressResolver({
    targets: targets('http://svc:1'),
    lookup,
    intervalMs: 50,
    onAddresses: (addresses) => seen.push(addresses),
    onError: (error) => errors.push(error),
  });
  t.teardown(() => resolver.close());
  await resolver.start();
  dns.answer = new Error('getaddrinfo EAI_AGAIN svc');
  const before = seen.length;
  await sleep(200);
  t.true(errors.length >= 1);
  t.is(seen.length, before, 'no empty list was delivered');
});

test('close() stops the timer: no lookup after it', async (t) => {
  const { dns, lookup } = fakeDns(['10.0.0.1']);
  const resolver = new AddressResolver({
    targets: targets('http://svc:1'),
    lookup,
    intervalMs: 30,
    onAddresses: () => {},
    onError: () => {},
  });
  await resolver.start();
  resolver.close();
  const after = dns.lookups;
  resolver.refresh();
  await sleep(150);
  t.is(dns.lookups, after);
});

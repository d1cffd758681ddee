import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { timeSourceOf } from '@switchyard/core/testing';
import { Refusal } from '@switchyard/runtime';
import { parseServiceTargets, type ServiceAddress } from './address-list.js';
import { AddressResolver } from './address-resolver.js';

const targets = (raw: string) => {
  const parsed = parseServiceTargets(raw);
  if (parsed instanceof Refusal) throw new Error(parsed.reason);
  return parsed;
};

/** A DNS whose answer the test changes, recording when (on the fake clock the resolver runs on) each lookup was made. */
function fakeDns(initial: string[]) {
  const fake = createClock(0);
  const dns = { answer: initial as string[] | Error, lookups: 0, lookedUpAt: [] as number[] };
  const lookup = async (): Promise<string[]> => {
    dns.lookups += 1;
    dns.lookedUpAt.push(fake.now);
    if (dns.answer instanceof Error) throw dns.answer;
    return dns.answer;
  };
  return { dns, lookup, fake, time: timeSourceOf(fake) };
}

test('resolves at start and again every interval, not sooner; the pool sees the new answer', async (t) => {
  const { dns, lookup, fake, time } = fakeDns(['10.0.0.1']);
  const seen: string[][] = [];
  const resolver = new AddressResolver({
    targets: targets('http://svc:1'),
    lookup,
    intervalMs: 100,
    time,
    onAddresses: (addresses) => seen.push(addresses.map((a) => a.url)),
    onError: () => t.fail(),
  });
  t.teardown(() => resolver.close());
  await resolver.start();
  t.deepEqual(seen, [['http://10.0.0.1:1']]);
  dns.answer = ['10.0.0.1', '10.0.0.2'];
  await fake.tickAsync(99);
  t.is(seen.length, 1, 'not resolved again before the interval');
  await fake.tickAsync(1);
  t.deepEqual(seen.at(-1), ['http://10.0.0.1:1', 'http://10.0.0.2:1']);
  await fake.tickAsync(300);
  t.deepEqual(dns.lookedUpAt, [0, 100, 200, 300, 400], 'one lookup per interval');
});

test('refresh() resolves at once, then at most once per minIntervalMs however often it is asked', async (t) => {
  const { dns, lookup, fake, time } = fakeDns(['10.0.0.1']);
  const resolver = new AddressResolver({
    targets: targets('http://svc:1'),
    lookup,
    intervalMs: 60_000,
    minIntervalMs: 1_500,
    time,
    onAddresses: () => {},
    onError: () => t.fail(),
  });
  t.teardown(() => resolver.close());
  await resolver.start();
  t.is(dns.lookups, 1);
  for (let i = 0; i < 20; i++) resolver.refresh();
  await fake.tickAsync(1_499);
  t.is(dns.lookups, 1, 'a refresh within minIntervalMs of the last resolution waits');
  await fake.tickAsync(1);
  t.is(dns.lookups, 2, 'one deferred resolution, minIntervalMs after the last, for all those refreshes');
  await fake.tickAsync(1_499);
  resolver.refresh();
  await fake.tickAsync(0);
  t.is(dns.lookups, 2, 'a refresh 1,499 ms after the last resolution waits');
  await fake.tickAsync(1);
  t.is(dns.lookups, 3, '...until 1,500 ms after it');
  await fake.tickAsync(1_500);
  resolver.refresh();
  await fake.tickAsync(0);
  t.deepEqual(dns.lookedUpAt, [0, 1_500, 3_000, 4_500], 'a refresh minIntervalMs after the last resolution resolves at once');
});

test('a failed lookup reports the error and keeps the addresses known (the pool is not emptied)', async (t) => {
  const { dns, lookup, fake, time } = fakeDns(['10.0.0.1']);
  const seen: (readonly ServiceAddress[])[] = [];
  const errors: unknown[] = [];
  const resolver = new AddressResolver({
    targets: targets('http://svc:1'),
    lookup,
    intervalMs: 50,
    time,
    onAddresses: (addresses) => seen.push(addresses),
    onError: (error) => errors.push(error),
  });
  t.teardown(() => resolver.close());
  await resolver.start();
  dns.answer = new Error('getaddrinfo EAI_AGAIN svc');
  const before = seen.length;
  await fake.tickAsync(200);
  t.is(errors.length, 4, 'each failed resolution is reported, and the next one still scheduled');
  t.is(seen.length, before, 'no empty list was delivered');
});

test('close() stops the timer: no lookup after it', async (t) => {
  const { dns, lookup, fake, time } = fakeDns(['10.0.0.1']);
  const resolver = new AddressResolver({
    targets: targets('http://svc:1'),
    lookup,
    intervalMs: 30,
    time,
    onAddresses: () => {},
    onError: () => {},
  });
  await resolver.start();
  resolver.close();
  const after = dns.lookups;
  resolver.refresh();
  t.is(fake.countTimers(), 0);
  await fake.tickAsync(150);
  t.is(dns.lookups, after);
});

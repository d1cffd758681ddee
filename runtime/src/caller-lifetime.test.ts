import test from 'ava';
import { createContextValues } from '@connectrpc/connect';
import { CALLER_LIFETIME, callerSignal, EndableLifetime } from './caller-lifetime.js';

test('ending runs each listener once, in order, and later ends change nothing', (t) => {
  const lifetime = new EndableLifetime();
  const ran: string[] = [];
  lifetime.onEnd(() => ran.push('a'));
  lifetime.onEnd(() => ran.push('b'));
  t.false(lifetime.ended);
  lifetime.end();
  lifetime.end();
  t.true(lifetime.ended);
  t.deepEqual(ran, ['a', 'b']);
});

test('a listener stopped before the end does not run; one added after the end never runs', (t) => {
  const lifetime = new EndableLifetime();
  const ran: string[] = [];
  const stop = lifetime.onEnd(() => ran.push('stopped'));
  lifetime.onEnd(() => ran.push('kept'));
  stop();
  lifetime.end();
  lifetime.onEnd(() => ran.push('late'))();
  t.deepEqual(ran, ['kept']);
});

test('the same function listening twice runs once, as with addEventListener', (t) => {
  const lifetime = new EndableLifetime();
  let runs = 0;
  const listener = (): void => void (runs += 1);
  lifetime.onEnd(listener);
  lifetime.onEnd(listener);
  lifetime.end();
  t.is(runs, 1);
});

test('the signal aborts at the end, whether made before it or after', (t) => {
  const early = new EndableLifetime();
  const signal = early.signal;
  t.is(early.signal, signal, 'one signal per lifetime');
  t.false(signal.aborted);
  early.end();
  t.true(signal.aborted);
  const late = new EndableLifetime();
  late.end();
  t.true(late.signal.aborted);
});

test("a call's signal aborts with the one given or with its lifetime; without a lifetime it is the one given; the key defaults to no lifetime", (t) => {
  const lifetime = new EndableLifetime();
  const given = new AbortController();
  const both = callerSignal(given.signal, lifetime)!;
  t.false(both.aborted);
  lifetime.end();
  t.true(both.aborted, 'the lifetime ended');
  const other = new EndableLifetime();
  const byGiven = new AbortController();
  const either = callerSignal(byGiven.signal, other)!;
  byGiven.abort();
  t.true(either.aborted, 'the given signal aborted');
  t.is(callerSignal(given.signal, undefined), given.signal);
  t.is(callerSignal(undefined, other), other.signal);
  t.is(callerSignal(undefined, undefined), undefined);
  t.is(createContextValues().get(CALLER_LIFETIME), undefined);
  t.is(createContextValues().set(CALLER_LIFETIME, lifetime).get(CALLER_LIFETIME), lifetime);
});

test('a listener that throws does not keep the others from running; its error is reported', (t) => {
  const reported: unknown[] = [];
  const lifetime = new EndableLifetime((error) => reported.push(error));
  const ran: string[] = [];
  lifetime.onEnd(() => {
    throw new Error('listener failed');
  });
  lifetime.onEnd(() => ran.push('after'));
  lifetime.end();
  t.deepEqual(ran, ['after']);
  t.deepEqual(
    reported.map((error) => (error as Error).message),
    ['listener failed'],
  );
});

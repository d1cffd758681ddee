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

test('a call\'s signal is the one given, else its lifetime\'s, else none; the key defaults to no lifetime', (t) => {
  const lifetime = new EndableLifetime();
  const given = new AbortController().signal;
  t.is(callerSignal(given, lifetime), given);
  t.is(callerSignal(undefined, lifetime), lifetime.signal);
  t.is(callerSignal(undefined, undefined), undefined);
  t.is(createContextValues().get(CALLER_LIFETIME), undefined);
  t.is(createContextValues().set(CALLER_LIFETIME, lifetime).get(CALLER_LIFETIME), lifetime);
});

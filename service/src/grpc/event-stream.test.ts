import { Writable } from 'node:stream';
import test from 'ava';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { writeEvents } from './event-stream.js';

/** A server stream as writeEvents sees one: holds `highWaterMark` messages, takes the next when `take` is called. */
function slowStream(highWaterMark: number) {
  const received: number[] = [];
  const pending: (() => void)[] = [];
  const writable = new Writable({
    objectMode: true,
    highWaterMark,
    write: (message: number, _encoding, done) => {
      received.push(message);
      pending.push(done);
    },
  });
  const call = Object.assign(writable, { cancelled: false }) as unknown as ServerWritableStream<unknown, number>;
  return {
    call,
    received,
    /** The reader takes what waits. */
    take: () => {
      for (const done of pending.splice(0)) done();
    },
  };
}

async function* counting(count: number, signal: AbortSignal): AsyncGenerator<number> {
  for (let n = 1; n <= count && !signal.aborted; n++) yield n;
}

test('every event reaches a slow reader, in order, each after the reader made room', async (t) => {
  const stream = slowStream(2);
  const closing = new AbortController();
  const written = writeEvents(
    stream.call,
    closing.signal,
    (signal) => counting(50, signal),
    (n) => n,
  );
  let finished = false;
  void written.then(() => (finished = true));
  while (!finished) {
    await new Promise((resolve) => setImmediate(resolve));
    stream.take();
  }
  await written;
  t.deepEqual(
    stream.received,
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  t.is(stream.call.listenerCount('drain'), 0, 'no drain listener is left behind');
});

test('closing while it waits for a reader that never takes ends the stream, and leaves no listener', async (t) => {
  const stream = slowStream(1);
  const closing = new AbortController();
  const written = writeEvents(
    stream.call,
    closing.signal,
    (signal) => counting(1_000, signal),
    (n) => n,
  );
  await new Promise((resolve) => setImmediate(resolve));
  const before = stream.received.length;
  t.true(before < 1_000, 'the reader holds it back');
  t.is(stream.call.listenerCount('drain'), 1, 'it waits for the reader');
  closing.abort();
  await written;
  t.is(stream.received.length, before, 'nothing more is written after the close');
  t.is(stream.call.listenerCount('drain'), 0);
});

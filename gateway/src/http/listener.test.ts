import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { timeSourceOf } from '@switchyard/core/testing';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { listen, type HttpListener } from './listener.js';

// Small enough to sit in loopback's socket buffers, so the response ends while the client reads nothing.
const BODY = Buffer.alloc(16 * 1024, 7);
// How long a wrong close() is given to resolve too early; a right one never does, however long.
const EARLY_WINDOW_MS = 200;

/**
 * A listener whose one response sends its headers and first byte at once and the rest when `release`
 * is called, and a raw keep-alive client that has read those first bytes and then stops reading.
 */
async function downloadInFlight(listener: HttpListener) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let responded!: (res: ServerResponse) => void;
  const response = new Promise<ServerResponse>((resolve) => (responded = resolve));
  listener.setHandler((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': BODY.length });
    res.write(BODY.subarray(0, 1));
    responded(res);
    void released.then(() => res.end(BODY.subarray(1)));
  });
  const client = connect(listener.port, '127.0.0.1');
  client.write('GET /file HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
  const received: Buffer[] = [];
  client.on('data', (chunk: Buffer) => received.push(chunk));
  const res = await response;
  await until(() => Buffer.concat(received).includes('\r\n\r\n'));
  client.pause();
  const finished = once(res, 'finish');
  const bodyBytes = (): number => {
    const all = Buffer.concat(received);
    return all.length - all.indexOf('\r\n\r\n') - 4;
  };
  return { client, bodyBytes, release, finished };
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await delay(5);
}

function settled(promise: Promise<void>): () => boolean {
  let done = false;
  void promise.then(() => (done = true));
  return () => done;
}

test('a download that ends while the server closes: its connection is half-closed after the last byte, and close() resolves only once the client has read it all and closed', async (t) => {
  const listener = await listen('127.0.0.1', 0);
  const { client, bodyBytes, release, finished } = await downloadInFlight(listener);
  const order: string[] = [];
  const closed = listener.close(60_000).then(() => void order.push('close() resolved'));
  release();
  await finished;
  await Promise.race([closed, delay(EARLY_WINDOW_MS)]);
  t.deepEqual(order, [], 'the server keeps the connection while its bytes are unread');

  client.on('end', () => {
    order.push(`the client saw the FIN after ${bodyBytes()} body bytes`);
    client.end();
  });
  client.resume();
  await closed;
  t.deepEqual(order, [`the client saw the FIN after ${BODY.length} body bytes`, 'close() resolved']);
});

test('a client that never reads the end of its download is cut at the close deadline, and close() resolves', async (t) => {
  const clock = createClock(0);
  const listener = await listen('127.0.0.1', 0, timeSourceOf(clock));
  const { client, release, finished } = await downloadInFlight(listener);
  const cuts: number[] = [];
  const closing = listener.close(10_000, (cut) => cuts.push(cut));
  const closed = settled(closing);
  release();
  await finished;
  await delay(EARLY_WINDOW_MS);
  clock.tick(9_999);
  await delay(EARLY_WINDOW_MS);
  t.false(closed(), 'kept until the deadline');
  t.deepEqual(cuts, []);
  clock.tick(1);
  await closing;
  t.true(closed());
  t.deepEqual(cuts, [1], 'the deadline reports the one connection it cut');
  client.destroy();
});

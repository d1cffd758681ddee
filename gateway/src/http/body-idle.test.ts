import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { eventually, timeSourceOf } from '@switchyard/core/testing';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { watchBodyIdle } from './body-idle.js';

// The server and its sockets are real; the watcher's clock and polls are fake, moved by the test.

/** A real server whose handler watches the body on fake time, then consumes it as `consume` says. */
async function serve(idleMs: number, consume: (req: IncomingMessage) => Promise<void>) {
  const fake = createClock(0);
  const idle: { at?: number } = {};
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req);
    watchBodyIdle(
      req,
      res,
      idleMs,
      () => {
        idle.at = fake.now;
        res.writeHead(408).end();
        req.destroy();
      },
      timeSourceOf(fake),
    );
    void consume(req).then(
      () => res.writeHead(200).end('read'),
      () => undefined,
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, fake, idle, requests };
}

/** Waits in real time for socket I/O to land (checked as soon as the event loop has turned); 10 s catches a hang. */
const LANDED = { timeout: 10_000, interval: 0 } as const;

/** Reads the body, counting what arrived. */
function counted() {
  const seen = { bytes: 0 };
  const consume = async (req: IncomingMessage): Promise<void> => {
    for await (const chunk of req as AsyncIterable<Buffer>) seen.bytes += chunk.length;
  };
  return { seen, consume };
}

test('a body that stops arriving is reported when idleMs have passed since the poll that saw its last byte, not a poll sooner', async (t) => {
  const { seen, consume } = counted();
  // Polled every 100 ms (a tenth of the idle time).
  const { server, port, fake, idle } = await serve(1_000, consume);
  t.teardown(() => server.close());
  const client = request({ port, method: 'POST', headers: { 'content-length': 1000 } });
  client.on('error', () => undefined);
  t.teardown(() => client.destroy());
  client.write(Buffer.alloc(100));
  await eventually(() => seen.bytes === 100, { ...LANDED, message: 'the first 100 bytes read' });
  await fake.tickAsync(100);
  // One more byte, in before the poll at 200 ms: that poll sees it, and the idle time counts from there.
  client.write(Buffer.alloc(1));
  await eventually(() => seen.bytes === 101, { ...LANDED, message: 'the 101st byte read' });
  await fake.tickAsync(100);
  await fake.tickAsync(999);
  t.is(idle.at, undefined, 'not idle at the poll 900 ms after the last byte');
  await fake.tickAsync(1);
  t.is(idle.at, 1_200, 'idle at the poll 1,000 ms after it');
});

test("a slow consumer is not the client's idleness: a full buffer stops the clock", async (t) => {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const { server, port, fake, idle, requests } = await serve(200, async (req) => {
    await released;
    for await (const _ of req);
  });
  t.teardown(() => server.close());
  const client = request({ port, method: 'POST', headers: { 'content-length': 8 * 1024 * 1024 } });
  const answered = once(client, 'response');
  client.end(Buffer.alloc(8 * 1024 * 1024));
  // The client has sent far more than the buffers hold: the request's buffer fills and Node stops reading the socket.
  await eventually(
    () => {
      const req = requests[0];
      return req !== undefined && (req.readableLength >= req.readableHighWaterMark || req.socket.isPaused());
    },
    { ...LANDED, message: "the request's buffer full" },
  );
  // Five idle periods with nothing read.
  await fake.tickAsync(5 * 200);
  t.is(idle.at, undefined);
  release();
  const [response] = (await answered) as [IncomingMessage];
  t.is(response.statusCode, 200);
  t.is(idle.at, undefined);
});

test('a timeout of 0 watches nothing', async (t) => {
  const { seen, consume } = counted();
  const { server, port, fake, idle } = await serve(0, consume);
  t.teardown(() => server.close());
  const client = request({ port, method: 'POST', headers: { 'content-length': 10 } });
  client.on('error', () => undefined);
  t.teardown(() => client.destroy());
  client.write('12345');
  await eventually(() => seen.bytes === 5, { ...LANDED, message: 'the 5 bytes read' });
  t.is(fake.countTimers(), 0, 'no poll was started');
  await fake.tickAsync(60_000);
  t.is(idle.at, undefined);
});

test('a request without a body is not watched', async (t) => {
  let finish: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (finish = resolve));
  const { server, port, fake, idle, requests } = await serve(100, () => held);
  t.teardown(() => server.close());
  const client = request({ port, method: 'GET' });
  const answered = once(client, 'response');
  client.end();
  await eventually(() => requests.length === 1, { ...LANDED, message: 'the request received' });
  t.is(fake.countTimers(), 0, 'no poll was started');
  finish();
  const [response] = (await answered) as [IncomingMessage];
  t.is(response.statusCode, 200);
  t.is(idle.at, undefined);
});

import test from 'ava';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchBodyIdle } from './body-idle.js';

/** A real server whose handler watches the body, then consumes it as `consume` says. */
async function serve(
  idleMs: number,
  consume: (req: IncomingMessage) => Promise<void>,
): Promise<{ server: Server; port: number; idled: Promise<number> }> {
  let reportIdle: (ms: number) => void = () => undefined;
  const idled = new Promise<number>((resolve) => (reportIdle = resolve));
  const server = createServer((req, res) => {
    const started = performance.now();
    watchBodyIdle(req, res, idleMs, () => {
      reportIdle(performance.now() - started);
      res.writeHead(408).end();
      req.destroy();
    });
    void consume(req).then(
      () => res.writeHead(200).end('read'),
      () => undefined,
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, idled };
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const _ of req);
}

test('a body that stops arriving is reported once the idle time has passed', async (t) => {
  const { server, port, idled } = await serve(200, drain);
  t.teardown(() => server.close());
  const client = request({ port, method: 'POST', headers: { 'content-length': 1000 } });
  client.on('error', () => undefined);
  client.write(Buffer.alloc(100));
  const after = await idled;
  t.true(after >= 200 && after < 600, `after ${Math.round(after)} ms`);
  client.destroy();
});

test("a slow consumer is not the client's idleness: a full buffer stops the clock", async (t) => {
  let reported = false;
  const { server, port, idled } = await serve(200, async (req) => {
    // Reads nothing for 5 idle periods while the client has sent far more than the buffers hold.
    await sleep(1_000);
    await drain(req);
  });
  void idled.then(() => (reported = true));
  t.teardown(() => server.close());
  const client = request({ port, method: 'POST', headers: { 'content-length': 8 * 1024 * 1024 } });
  const answered = once(client, 'response');
  client.end(Buffer.alloc(8 * 1024 * 1024));
  const [response] = (await answered) as [IncomingMessage];
  t.is(response.statusCode, 200);
  t.false(reported);
});

test('requests without a body, and a timeout of 0, are not watched', async (t) => {
  let reported = false;
  const { server, port, idled } = await serve(0, drain);
  void idled.then(() => (reported = true));
  t.teardown(() => server.close());
  const client = request({ port, method: 'POST', headers: { 'content-length': 10 } });
  client.on('error', () => undefined);
  client.write('12345');
  await sleep(300);
  t.false(reported);
  client.destroy();
});

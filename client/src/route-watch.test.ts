import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { eventually, timeSourceOf } from '@switchyard/core/testing';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { watchRouteTable } from './route-watch.js';

// A real event stream on loopback, written by hand; the watch's idle timeout and reconnect waits run on fake time.

/** A gateway stand-in: each watch request gets a snapshot of an empty table at revision 1, then what the test writes. */
async function eventServer() {
  const requests: string[] = [];
  const streams: ServerResponse[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: reset\ndata: {"revision":1}\n\nevent: synced\ndata: {"revision":1}\n\n');
    streams.push(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const send = (event: string, data: object): void => void streams.at(-1)?.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const close = (): void => {
    for (const stream of streams) stream.destroy();
    server.close();
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, send, close };
}

/** Waits in real time for socket I/O to land (checked as soon as the event loop has turned); 10 s catches a hang. */
const LANDED = { timeout: 10_000, interval: 0 } as const;

test('a connection silent for idleTimeoutMs is taken for dead, not a ms sooner; every event starts the idle time again', async (t) => {
  const gateway = await eventServer();
  t.teardown(gateway.close);
  const fake = createClock(0);
  const watch = watchRouteTable({ url: gateway.url, token: 't', idleTimeoutMs: 45_000, timers: timeSourceOf(fake) });
  t.teardown(() => watch.close());
  const disconnects: unknown[] = [];
  watch.onDisconnect((reason) => disconnects.push(reason));
  await watch.ready;
  t.true(watch.connected);
  fake.tick(30_000);
  gateway.send('delete', { revision: 2, id: 'rt_gone' });
  await eventually(() => watch.revision === 2, { ...LANDED, message: 'revision 2 applied' });
  fake.tick(44_999);
  t.true(watch.connected, 'alive 44,999 ms after the last event');
  fake.tick(1);
  await eventually(() => disconnects.length === 1, { ...LANDED, message: 'the disconnect reported' });
  t.false(watch.connected, 'taken for dead 45,000 ms after it');
  t.is(watch.revision, 2, 'the table keeps serving meanwhile');
});

test('after a connection that got somewhere drops, the watch reconnects from its revision within the first backoff (125 to 250 ms)', async (t) => {
  const gateway = await eventServer();
  t.teardown(gateway.close);
  const fake = createClock(0);
  const watch = watchRouteTable({ url: gateway.url, token: 't', minBackoffMs: 250, idleTimeoutMs: 1_000, timers: timeSourceOf(fake) });
  t.teardown(() => watch.close());
  const disconnects: unknown[] = [];
  watch.onDisconnect((reason) => disconnects.push(reason));
  await watch.ready;
  fake.tick(1_000);
  await eventually(() => disconnects.length === 1, { ...LANDED, message: 'the disconnect reported' });
  // Half the backoff at least, jitter on top.
  await fake.tickAsync(124);
  t.is(gateway.requests.length, 1, 'no reconnect before 125 ms');
  await fake.tickAsync(126);
  await eventually(() => gateway.requests.length === 2, { ...LANDED, message: 'the second watch request' });
  t.deepEqual(gateway.requests, ['/v1/routing:watch?sinceRevision=0', '/v1/routing:watch?sinceRevision=1']);
});

test('a revision of several changes is matched only whole: cut off mid-way, the watch resumes from the last whole revision', async (t) => {
  const gateway = await eventServer();
  t.teardown(gateway.close);
  const fake = createClock(0);
  const watch = watchRouteTable({ url: gateway.url, token: 't', minBackoffMs: 250, timers: timeSourceOf(fake) });
  t.teardown(() => watch.close());
  const disconnects: unknown[] = [];
  watch.onDisconnect((reason) => disconnects.push(reason));
  await watch.ready;
  const changes: number[] = [];
  watch.onChange((event) => changes.push(event.revision));
  const route = (path: string) => ({
    id: `rt_${path.slice(1)}`,
    method: 'GET',
    path,
    middleware: [],
    handler: 'h',
    owner: 'team',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    revision: 2,
  });
  // The stream ends before the revision's last change: the watch resumes from revision 1, and gets the revision again.
  gateway.send('upsert', { revision: 2, route: route('/a'), moreInRevision: true });
  gateway.send('error', { code: 'unavailable', message: 'gone' });
  await eventually(() => disconnects.length === 1, { ...LANDED, message: 'the disconnect reported' });
  await fake.tickAsync(250);
  await eventually(() => gateway.requests.length === 2, { ...LANDED, message: 'the second watch request' });
  t.is(gateway.requests[1], '/v1/routing:watch?sinceRevision=1');
  t.is(watch.match('GET', '/a'), undefined, 'half a revision is never matched');
  gateway.send('upsert', { revision: 2, route: route('/a'), moreInRevision: true });
  gateway.send('upsert', { revision: 2, route: route('/b') });
  await eventually(() => watch.revision === 2, { ...LANDED, message: 'revision 2 applied' });
  t.truthy(watch.match('GET', '/a'));
  t.is(watch.match('GET', '/b')?.route.owner, 'team');
  // The stand-in sends its snapshot (revision 1) again on the reconnect; then each change of revision 2, once it is whole.
  t.deepEqual(
    changes.filter((revision) => revision === 2),
    [2, 2],
  );
});

import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { eventually, timeSourceOf } from '@switchyard/core/testing';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AssetWatchRefused, watchAssets, type AssetWatchEvent } from './asset-watch.js';

// A real event stream on loopback, written by hand; the reconnect waits run on fake time.

/** A gateway stand-in: records each watch request's Last-Event-ID; the test writes the events, or answers `status`. */
async function eventServer(status = 200) {
  const resumedFrom: (string | undefined)[] = [];
  const streams: ServerResponse[] = [];
  const server = createServer((req, res) => {
    resumedFrom.push(req.headers['last-event-id'] as string | undefined);
    if (status !== 200) {
      res.writeHead(status, { 'content-type': 'application/json' });
      return void res.end('{"code":"permission_denied","message":"no","details":[]}');
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 1000\n\n');
    streams.push(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const send = (event: string, id: number | undefined, data: object): void =>
    void streams.at(-1)?.write(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
  const change = (type: string, revision: number, assetId: string) =>
    send(type, revision, { type, revision, time: '2024-05-01T12:00:00.000Z', actor: 'ann', assetId, asset: null });
  const drop = (): void => void streams.at(-1)?.destroy();
  const close = (): void => {
    for (const stream of streams) stream.destroy();
    server.close();
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, resumedFrom, streams, send, change, drop, close };
}

/** Waits in real time for socket I/O to land; 10 s catches a hang. */
const LANDED = { timeout: 10_000, interval: 0 } as const;

function kinds(events: readonly AssetWatchEvent[]): string[] {
  return events.map(
    (event) => `${event.type === 'change' ? `${event.change.type}:${event.change.assetId}` : event.type}@${event.revision}`,
  );
}

test('from now: synced, then changes; a revision cut off half-way is asked again from the one before, and only its undelivered changes pass', async (t) => {
  const gateway = await eventServer();
  t.teardown(gateway.close);
  const fake = createClock(0);
  const watch = watchAssets({ url: gateway.url, token: 't', minBackoffMs: 250, timers: timeSourceOf(fake) });
  t.teardown(() => watch.close());
  const events: AssetWatchEvent[] = [];
  watch.onEvent((event) => events.push(event));
  const disconnects: unknown[] = [];
  watch.onDisconnect((reason) => disconnects.push(reason));
  await eventually(() => gateway.streams.length === 1, { ...LANDED, message: 'the first request' });
  gateway.send('synced', 3, { revision: 3 });
  await watch.ready;
  gateway.change('asset.created', 4, 'as_a');
  gateway.change('asset.deleted', 5, 'as_b');
  await eventually(() => events.length === 3, { ...LANDED, message: 'three events' });
  t.is(watch.revision, 4, 'revision 5 may have more changes to come');
  gateway.drop();
  await eventually(() => disconnects.length === 1, { ...LANDED, message: 'the disconnect reported' });
  await fake.tickAsync(250);
  await eventually(() => gateway.streams.length === 2, { ...LANDED, message: 'the reconnect' });
  t.deepEqual(gateway.resumedFrom, [undefined, '4']);
  // The server sends revision 5 whole again: as_b was delivered, as_c was not.
  gateway.change('asset.deleted', 5, 'as_b');
  gateway.change('asset.deleted', 5, 'as_c');
  gateway.send('heartbeat', undefined, { revision: 5 });
  await eventually(() => events.length === 5, { ...LANDED, message: 'five events' });
  t.deepEqual(kinds(events), ['synced@3', 'asset.created:as_a@4', 'asset.deleted:as_b@5', 'asset.deleted:as_c@5', 'heartbeat@5']);
  t.is(watch.revision, 5);
});

test('from a revision: the first request says Last-Event-ID; a reset is passed on and resumes from its revision', async (t) => {
  const gateway = await eventServer();
  t.teardown(gateway.close);
  const fake = createClock(0);
  const watch = watchAssets({ url: gateway.url, token: 't', sinceRevision: 7, minBackoffMs: 250, timers: timeSourceOf(fake) });
  t.teardown(() => watch.close());
  const events: AssetWatchEvent[] = [];
  watch.onEvent((event) => events.push(event));
  const disconnects: unknown[] = [];
  watch.onDisconnect((reason) => disconnects.push(reason));
  await eventually(() => gateway.streams.length === 1, { ...LANDED, message: 'the first request' });
  gateway.send('reset', 40, { revision: 40 });
  await eventually(() => events.length === 1, { ...LANDED, message: 'the reset' });
  t.deepEqual(kinds(events), ['reset@40']);
  gateway.drop();
  await eventually(() => disconnects.length === 1, { ...LANDED, message: 'the disconnect reported' });
  await fake.tickAsync(250);
  await eventually(() => gateway.resumedFrom.length === 2, { ...LANDED, message: 'the reconnect' });
  t.deepEqual(gateway.resumedFrom, ['7', '40']);
});

test('a refusal for good (403) stops the watch: ready rejects with AssetWatchRefused, no retry', async (t) => {
  const gateway = await eventServer(403);
  t.teardown(gateway.close);
  const fake = createClock(0);
  const watch = watchAssets({ url: gateway.url, token: 't', timers: timeSourceOf(fake) });
  t.teardown(() => watch.close());
  const error = await t.throwsAsync(watch.ready, { instanceOf: AssetWatchRefused });
  t.is(error?.status, 403);
  await fake.tickAsync(60_000);
  t.is(gateway.resumedFrom.length, 1);
});

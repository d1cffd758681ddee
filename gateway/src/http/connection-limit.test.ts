import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { eventually, timeSourceOf } from '@switchyard/core/testing';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { limitConnections, REFUSAL_GRACE_MS } from './connection-limit.js';

test('a connection over the bound is marked refused and cut REFUSAL_GRACE_MS after it opened, not a ms sooner; those within it stay', async (t) => {
  const fake = createClock(0);
  const server = createServer((_req, res) => res.end('served'));
  const accepted: Socket[] = [];
  server.on('connection', (socket: Socket) => accepted.push(socket));
  const limit = limitConnections(server, () => 1, timeSourceOf(fake));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const clients = [connect(port, '127.0.0.1'), connect(port, '127.0.0.1')];
  for (const client of clients) {
    client.on('error', () => undefined);
    t.teardown(() => client.destroy());
  }
  await eventually(() => accepted.length === 2, { timeout: 10_000, interval: 0, message: 'both connections accepted' });
  const [first, second] = accepted as [Socket, Socket];
  t.is(limit.open(), 2);
  t.false(limit.refused(first));
  t.true(limit.refused(second));
  fake.tick(REFUSAL_GRACE_MS - 1);
  t.false(second.destroyed);
  fake.tick(1);
  t.true(second.destroyed);
  t.false(first.destroyed);
  fake.tick(60_000);
  t.false(first.destroyed, 'a connection within the bound has no grace period');
});

import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { timeSourceOf } from '@switchyard/core/testing';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { answerClientErrors, RAW_ANSWER_GRACE_MS } from './client-error.js';

async function exchange(raw: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const server = createServer((_req, res) => res.end('served'));
  answerClientErrors(server, () => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => undefined);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(raw);
    await once(socket, 'close');
    const text = Buffer.concat(chunks).toString('utf8');
    return { status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown> };
  } finally {
    server.close();
  }
}

test("what the parser refuses is answered in the contract's JSON shape, and the connection closed", async (t) => {
  const garbage = await exchange('NOT HTTP AT ALL\r\n\r\n');
  t.is(garbage.status, 400);
  t.like(garbage.body, { code: 'invalid_argument', details: [{ field: 'request', reason: 'is not a valid HTTP/1.1 request' }] });
  const huge = await exchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  t.is(huge.status, 431);
  t.like(huge.body, { code: 'resource_exhausted' });
});

test('a client that reads the raw answer but keeps its side open is cut RAW_ANSWER_GRACE_MS after it, not a ms sooner', async (t) => {
  const fake = createClock(0);
  const server = createServer((_req, res) => res.end('served'));
  const accepted: Socket[] = [];
  server.on('connection', (socket: Socket) => accepted.push(socket));
  answerClientErrors(server, () => undefined, timeSourceOf(fake));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const client = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', allowHalfOpen: true });
  client.on('error', () => undefined);
  t.teardown(() => client.destroy());
  client.resume();
  client.write('NOT HTTP AT ALL\r\n\r\n');
  // The answer is in and the server has closed its side; the client has not closed its own.
  await once(client, 'end');
  const [socket] = accepted;
  fake.tick(RAW_ANSWER_GRACE_MS - 1);
  t.false(socket!.destroyed);
  fake.tick(1);
  t.true(socket!.destroyed);
});

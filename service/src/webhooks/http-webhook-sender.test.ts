import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { RESPONSE_EXCERPT_BYTES, createAddressPolicy, type WebhookRequest } from '@switchyard/core';
import { createHttpWebhookSender } from './http-webhook-sender.js';

/** A node:http server on 127.0.0.1 answering with `handle`; counts the connections opened to it and keeps each request's Host. */
async function startServer(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const hosts: string[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    req.resume();
    req.on('end', () => handle(req, res));
  });
  server.on('connection', () => void connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    hosts,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const policy = createAddressPolicy(['127.0.0.1/32']);
const request = (url: string): WebhookRequest => ({
  url,
  headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
  body: '{"type":"webhook.test"}',
  timeoutMs: 5_000,
});

test('deliveries to one endpoint share a kept-alive connection', async (t) => {
  const server = await startServer((_req, res) => res.writeHead(204).end());
  const sender = createHttpWebhookSender({ addresses: policy });
  try {
    for (let i = 0; i < 3; i++) t.is((await sender.send(request(`http://127.0.0.1:${server.port}/hooks`))).statusCode, 204);
    t.is(server.connections(), 1);
  } finally {
    sender.close();
    await server.close();
  }
});

test('a long answer keeps its first 1 KiB, and the rest is not read: its connection is closed', async (t) => {
  const long = 'abcdefgh'.repeat(128 * 1024); // 1 MiB: more than one read of the socket
  const server = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(long));
  const sender = createHttpWebhookSender({ addresses: policy });
  try {
    const answer = await sender.send(request(`http://127.0.0.1:${server.port}/hooks`));
    t.is(answer.statusCode, 200);
    t.is(answer.body, long.slice(0, RESPONSE_EXCERPT_BYTES));
    await sender.send(request(`http://127.0.0.1:${server.port}/hooks`));
    t.is(server.connections(), 2, 'the unread rest closed the first connection');
  } finally {
    sender.close();
    await server.close();
  }
});

test('a name goes to the address its resolution was checked at, with the name as Host', async (t) => {
  const server = await startServer((_req, res) => res.writeHead(204).end());
  const asked: string[] = [];
  const sender = createHttpWebhookSender({
    addresses: policy,
    resolve: async (host) => (asked.push(host), [{ address: '127.0.0.1', family: 4 }]),
  });
  try {
    t.is((await sender.send(request(`http://hooks.example.test:${server.port}/in`))).statusCode, 204);
    t.deepEqual(asked, ['hooks.example.test']);
    t.deepEqual(server.hosts, [`hooks.example.test:${server.port}`]);
  } finally {
    sender.close();
    await server.close();
  }
});

test('an answer whose body is cut short after its status still counts as that status, with what came of the body', async (t) => {
  const server = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial', () => res.destroy());
  });
  const sender = createHttpWebhookSender({ addresses: policy });
  try {
    const answer = await sender.send(request(`http://127.0.0.1:${server.port}/hooks`));
    t.is(answer.statusCode, 200);
    t.is(answer.body, 'partial');
  } finally {
    sender.close();
    await server.close();
  }
});

test('a destination the policy refuses is not sent to', async (t) => {
  const server = await startServer((_req, res) => res.writeHead(204).end());
  const sender = createHttpWebhookSender({ addresses: createAddressPolicy([]) });
  try {
    await t.throwsAsync(sender.send(request(`http://127.0.0.1:${server.port}/hooks`)), { message: /destination refused: 127\.0\.0\.1/ });
    t.is(server.connections(), 0);
  } finally {
    sender.close();
    await server.close();
  }
});

import test from 'ava';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type Transport } from '@connectrpc/connect';
import { createClock } from '@sinonjs/fake-timers';
import { UPLOAD_BUSY_FIELD } from '@switchyard/core';
import { eventually, timeSourceOf } from '@switchyard/core/testing';
import { UploadSchema } from '@switchyard/proto';
import { loadGatewayConfig } from '../config.js';
import { SERVICE_ERROR_DETAILS_KEY } from '../http/api-error.js';
import { createGateway } from '../gateway.js';
import { createGatewayLogger } from '../logger.js';
import { createInProcessClients } from '../service/clients.js';
import { SERVICE_RESTART_POLL_MS, SERVICE_RESTART_WAIT_MS } from './uploads.js';

// The tus HEAD's wait for a restarting service, on fake time: GetUpload answers as the test says.

/** A gateway whose service answers GetUpload with `answer()`, counting the calls at the fake clock's time. */
async function gatewayWithService(answer: () => ConnectError | undefined) {
  const fake = createClock(0);
  const asked: number[] = [];
  const transport: Transport = {
    unary: (method) => {
      asked.push(fake.now);
      const failure = answer();
      if (failure) return Promise.reject(failure);
      const message = create(UploadSchema, { id: 'up_1', offset: 5n, length: 10n });
      return Promise.resolve({
        stream: false,
        service: method.parent,
        method,
        header: new Headers(),
        trailer: new Headers(),
        message,
      } as never);
    },
    stream: () => Promise.reject(new ConnectError('not in this test', Code.Unimplemented)),
  };
  const gateway = await createGateway({
    config: loadGatewayConfig({}),
    cdnUrl: 'http://127.0.0.1:1/files',
    clients: createInProcessClients(transport),
    log: createGatewayLogger('silent'),
    time: timeSourceOf(fake),
  });
  /** The gateway's answers, as it sends them: at what fake time, with what status. */
  const answers: { at: number; status: number; offset: unknown }[] = [];
  const server = createServer((req, res) => {
    res.on('finish', () => answers.push({ at: fake.now, status: res.statusCode, offset: res.getHeader('upload-offset') }));
    gateway.handle(req, res);
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    server.close();
    await gateway.close();
  };
  /** Sends a tus HEAD for up_1 over loopback; resolves once the gateway has asked the service the first time. */
  const head = async (): Promise<void> => {
    const before = asked.length;
    const req = request({
      port,
      method: 'HEAD',
      path: '/v1/uploads/up_1',
      headers: { 'tus-resumable': '1.0.0', authorization: 'Bearer a.b.c' },
    });
    req.on('response', (response) => response.resume());
    req.on('error', () => undefined);
    req.end();
    await eventually(() => asked.length > before, { timeout: 10_000, interval: 0, message: 'the HEAD at the gateway' });
  };
  return { close, fake, asked, answers, head };
}

const away = () => new ConnectError('connection refused', Code.Unavailable);

test('a HEAD while the service is away asks again every 250 ms and answers 503 at 10,000 ms, not at the poll before', async (t) => {
  const { close, fake, asked, answers, head } = await gatewayWithService(away);
  t.teardown(close);
  await head();
  await fake.tickAsync(SERVICE_RESTART_WAIT_MS - 1);
  t.deepEqual(answers, [], `waiting at ${SERVICE_RESTART_WAIT_MS - 1} ms`);
  t.is(asked.length, SERVICE_RESTART_WAIT_MS / SERVICE_RESTART_POLL_MS);
  t.deepEqual(asked.slice(0, 3), [0, 250, 500]);
  await fake.tickAsync(1);
  await eventually(() => answers.length === 1, { timeout: 10_000, interval: 0, message: 'the answer' });
  t.like(answers[0], { at: SERVICE_RESTART_WAIT_MS, status: 503 });
  t.is(asked.at(-1), SERVICE_RESTART_WAIT_MS, 'asked a last time at the deadline');
});

test('a service back within the wait answers the HEAD at the poll that finds it', async (t) => {
  const backAt = 4_000;
  const { close, fake, asked, answers, head } = await gatewayWithService(() => (fake.now < backAt ? away() : undefined));
  t.teardown(close);
  await head();
  await fake.tickAsync(backAt - 1);
  t.deepEqual(answers, []);
  await fake.tickAsync(1);
  await eventually(() => answers.length === 1, { timeout: 10_000, interval: 0, message: 'the answer' });
  t.deepEqual(answers, [{ at: backAt, status: 200, offset: '5' }], 'the upload resumes where it was');
  t.is(asked.at(-1), backAt);
});

test('an upload busy with another request is answered at once, not waited out', async (t) => {
  // As the service says it (resumable-uploads.ts): unavailable, with a detail on the upload, which the gateway answers 423.
  const busy = () =>
    new ConnectError('the upload is busy', Code.Unavailable, {
      [SERVICE_ERROR_DETAILS_KEY]: JSON.stringify([{ field: UPLOAD_BUSY_FIELD, reason: 'busy; ask again shortly' }]),
    });
  const { close, asked, answers, head } = await gatewayWithService(busy);
  t.teardown(close);
  await head();
  await eventually(() => answers.length === 1, { timeout: 10_000, interval: 0, message: 'the answer' });
  t.is(answers[0]?.at, 0, 'answered without waiting');
  t.is(answers[0]?.status, 423);
  t.deepEqual(asked, [0]);
});

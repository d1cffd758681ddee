import test from 'ava';
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Code, ConnectError, type Transport } from '@connectrpc/connect';
import { eventually, quietPeriod } from '@switchyard/core/testing';
import { CALLER_LIFETIME, type CallerLifetime } from '@switchyard/runtime';
import { loadGatewayConfig } from '../config.js';
import { createGateway } from '../gateway.js';
import { createGatewayLogger } from '../logger.js';
import { createInProcessClients } from '../service/clients.js';

/**
 * A gateway over a transport that records each call's caller lifetime: a
 * held call waits until its caller goes away; any other is answered NOT_FOUND.
 */
async function gatewayRecordingLifetimes(t: import('ava').ExecutionContext) {
  const calls: { lifetime: CallerLifetime | undefined; signal: AbortSignal | undefined }[] = [];
  const state = { hold: false };
  const transport: Transport = {
    unary: (_method, signal, _timeoutMs, _header, _input, contextValues) => {
      const lifetime = contextValues?.get(CALLER_LIFETIME);
      calls.push({ lifetime, signal });
      if (!state.hold || lifetime === undefined) return Promise.reject(new ConnectError('no such asset', Code.NotFound));
      return new Promise((_resolve, reject) => lifetime.onEnd(() => reject(new ConnectError('the caller went away', Code.Canceled))));
    },
    stream: () => Promise.reject(new ConnectError('not in this test', Code.Unimplemented)),
  };
  const gateway = await createGateway({
    config: loadGatewayConfig({}),
    cdnUrl: 'http://127.0.0.1:1/files',
    clients: createInProcessClients(transport),
    log: createGatewayLogger('silent'),
  });
  const server = createServer((req, res) => gateway.handle(req, res)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(async () => {
    server.closeAllConnections();
    server.close();
    await gateway.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, state };
}

const AUTH = { authorization: 'Bearer a.b.c' };

test("a REST call carries its request's lifetime, not a signal; answered, the lifetime never ends", async (t) => {
  const { url, calls } = await gatewayRecordingLifetimes(t);
  const response = await fetch(`${url}/v1/assets/as_1`, { headers: AUTH });
  t.is(response.status, 404);
  await response.text();
  // Time for the server's side of the response to close, which ends the lifetime only if unfinished (a negative check).
  await quietPeriod(200);
  t.is(calls.length, 1);
  t.is(calls[0]!.signal, undefined);
  t.false(calls[0]!.lifetime?.ended ?? true);
});

test('a client that goes away before its answer ends the lifetime of the call made for it', async (t) => {
  const { url, calls, state } = await gatewayRecordingLifetimes(t);
  state.hold = true;
  const req = httpRequest(`${url}/v1/assets/as_1`, { headers: AUTH });
  req.on('error', () => {});
  req.end();
  await eventually(() => calls.length > 0, { timeout: 10_000, interval: 5, message: 'the call made for the request' });
  const lifetime = calls[0]!.lifetime!;
  t.false(lifetime.ended);
  const ended = new Promise<void>((resolve) => lifetime.onEnd(resolve));
  req.destroy();
  await ended;
  t.true(lifetime.ended);
  t.true(lifetime.signal.aborted);
});

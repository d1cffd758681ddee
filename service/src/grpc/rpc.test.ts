import test from 'ava';
import { Metadata, status as Status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { SwitchyardError, type Principal } from '@switchyard/core';
import { LogCapture } from '../../../test/grpc/support/log-capture.js';
import type { Authenticate } from './auth.js';
import { createRpc } from './rpc.js';

const principal: Principal = { workspace: 'ws', subject: 'someone', scopes: new Set(['assets:read']) };

/** A unary call as grpc-js hands it to a handler: its metadata and request, and the headers sent back. */
function unaryCall(requestId?: string): { call: ServerUnaryCall<object, object>; sent: Metadata[] } {
  const metadata = new Metadata();
  if (requestId !== undefined) metadata.set('x-request-id', requestId);
  const sent: Metadata[] = [];
  const call = { metadata, request: {}, sendMetadata: (headers: Metadata) => void sent.push(headers) } as unknown as ServerUnaryCall<
    object,
    object
  >;
  return { call, sent };
}

/** Calls the handler and resolves with what it answered. */
function answer(
  handler: (call: ServerUnaryCall<object, object>, callback: sendUnaryData<object>) => void,
  call: ServerUnaryCall<object, object>,
) {
  return new Promise<{ error: { code?: number } | null; value: object | null | undefined }>((resolve) =>
    handler(call, (error, value) => resolve({ error, value })),
  );
}

test('an authenticator that throws instead of rejecting still ends the call: answered, logged, no longer running', async (t) => {
  const logs = new LogCapture();
  const throwing: Authenticate = () => {
    throw new SwitchyardError('unauthenticated', 'no token');
  };
  const rpc = createRpc(logs.logger, throwing);
  const { call } = unaryCall('throwing-authenticator');
  const { error } = await answer(
    rpc.unary('GetAsset', async () => ({})),
    call,
  );
  t.is(error?.code, Status.UNAUTHENTICATED);
  t.is((await logs.waitFor((line) => line['requestId'] === 'throwing-authenticator'))['code'], 'UNAUTHENTICATED');
  await rpc.settled();
  t.pass('settled');
});

test('settled() waits for a running handler and resolves once none runs', async (t) => {
  const rpc = createRpc(new LogCapture().logger, async () => principal);
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const handler = rpc.unary('GetAsset', async () => {
    await held;
    return { id: 'x' };
  });
  const answered = answer(handler, unaryCall().call);
  let settled = false;
  const settling = rpc.settled().then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.false(settled, 'a handler is still running');
  release();
  t.deepEqual((await answered).value, { id: 'x' });
  await settling;
  t.true(settled);
});

test('reply headers: the request id echoed when the caller sent a sane one, none for a success without one, a fresh one on failure', async (t) => {
  const rpc = createRpc(new LogCapture().logger, async () => principal);
  const ok = rpc.unary('GetAsset', async () => ({}));
  const echoed = unaryCall('caller-id');
  await answer(ok, echoed.call);
  t.deepEqual(
    echoed.sent.map((headers) => headers.get('x-request-id')),
    [['caller-id']],
  );
  for (const requestId of [undefined, 'not a sane id!']) {
    const plain = unaryCall(requestId);
    await answer(ok, plain.call);
    t.deepEqual(plain.sent, [], `no headers for ${String(requestId)}`);
  }
  const failing = unaryCall('not a sane id!');
  const { error } = await answer(
    rpc.unary('GetAsset', async () => Promise.reject(new SwitchyardError('not_found', 'no such asset'))),
    failing.call,
  );
  t.is(error?.code, Status.NOT_FOUND);
  const [fresh] = failing.sent[0]?.get('x-request-id') ?? [];
  t.regex(String(fresh), /^[0-9a-f-]{36}$/);
});

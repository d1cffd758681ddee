import test from 'ava';
import { Code, ConnectError, createClient, createContextValues, type Interceptor } from '@connectrpc/connect';
import { createClock } from '@sinonjs/fake-timers';
import type { Timers } from '@switchyard/core';
import { timeSourceOf } from '@switchyard/core/testing';
import { Metadata, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type ServiceDefinition } from '@grpc/grpc-js';
import { FileService, RouteService } from '@switchyard/proto';
import { FileServiceService, type ReadFileRequest, type ReadFileResponse } from '../gen/switchyard/v1/files.js';
import { RouteServiceService, type GetRouteRequest, type Route } from '../gen/switchyard/v1/routes.js';
import { CALLER_LIFETIME, EndableLifetime, Registry, type CallerLifetime } from '@switchyard/runtime';
import { GrpcMetrics } from '../grpc/grpc-metrics.js';
import { HandlerTable } from './handler-table.js';
import { createInProcessChannel } from './transport.js';

const route: Route = {
  id: 'rt_1',
  method: 'GET',
  path: '/a/:b',
  middleware: ['auth'],
  handler: 'h',
  createdAt: new Date(1_700_000_000_123),
  updatedAt: undefined,
  revision: 3,
  owner: '',
};

/** RouteService with a GetRoute that echoes the id into the path; `wire` counts the (de)serializer calls. */
function channel(tsProto: boolean) {
  const wire = { serialized: 0, deserialized: 0 };
  const definition = Object.fromEntries(
    Object.entries(RouteServiceService).map(([name, method]) => [
      name,
      {
        ...method,
        requestDeserialize: (bytes: Buffer) => (wire.deserialized++, method.requestDeserialize(bytes)),
        responseSerialize: (message: never) => (wire.serialized++, method.responseSerialize(message)),
      },
    ]),
  ) as unknown as ServiceDefinition;
  const seen: GetRouteRequest[] = [];
  const table = new HandlerTable();
  table.addService(
    { addService: () => {} },
    definition,
    {
      getRoute: (call: ServerUnaryCall<GetRouteRequest, Route>, callback: sendUnaryData<Route>) => {
        seen.push(call.request);
        callback(null, { ...route, path: `/${call.request.id}` });
      },
    },
    { tsProto },
  );
  const { transport } = createInProcessChannel(table, { accepting: () => true });
  return { client: createClient(RouteService, transport), wire, seen };
}

test("our services' messages cross without the wire, and arrive as each side would decode them", async (t) => {
  const { client, wire, seen } = channel(true);
  const answer = await client.getRoute({ id: 'rt_9' });
  t.deepEqual(seen, [{ id: 'rt_9' }]);
  t.is(answer.path, '/rt_9');
  t.is(answer.revision, 3n);
  t.is(answer.createdAt?.seconds, 1_700_000_000n);
  t.is(answer.createdAt?.nanos, 123_000_000);
  t.deepEqual(wire, { serialized: 0, deserialized: 0 });
});

test('a message the bridge cannot convert exactly takes the wire, and comes out as the wire makes it', async (t) => {
  const { client, wire, seen } = channel(true);
  const answer = await client.getRoute({ id: 'lone \ud800' });
  t.deepEqual(seen, [{ id: 'lone \ufffd' }]);
  t.is(answer.path, '/lone \ufffd');
  t.deepEqual(wire, { serialized: 0, deserialized: 1 }, 'the request took the wire; the (well-formed) answer did not need to');
});

test("a service registered without tsProto (grpc-health-check's) always takes the wire", async (t) => {
  const { client, wire } = channel(false);
  await client.getRoute({ id: 'rt_9' });
  t.deepEqual(wire, { serialized: 1, deserialized: 1 });
});

test('request headers reach the handler as metadata, normalized as Headers would (names lower-cased, values trimmed), in every HeadersInit form', async (t) => {
  const seen: unknown[] = [];
  const table = new HandlerTable();
  table.addService(
    { addService: () => {} },
    RouteServiceService,
    {
      getRoute: (call: ServerUnaryCall<GetRouteRequest, Route>, callback: sendUnaryData<Route>) => {
        seen.push([call.metadata.get('x-request-id'), call.metadata.get('trace-bin')]);
        callback(null, route);
      },
    },
    { tsProto: true },
  );
  const client = createClient(RouteService, createInProcessChannel(table, { accepting: () => true }).transport);
  const binary = Buffer.from([1, 2, 3]).toString('base64');
  await client.getRoute({ id: 'a' }, { headers: { 'X-Request-Id': ' \tid-1 ', 'Trace-Bin': binary } });
  await client.getRoute({ id: 'a' }, { headers: [['x-request-id', 'id-2']] });
  await client.getRoute({ id: 'a' }, { headers: new Headers({ 'x-request-id': 'id-3 ' }) });
  // Names repeated but for case are joined, as Headers joins them (a second Authorization never slips past the first).
  await client.getRoute({ id: 'a' }, { headers: { 'X-Request-Id': 'id-4', 'x-request-id': 'id-5' } });
  t.deepEqual(seen, [
    [['id-1'], [Buffer.from([1, 2, 3])]],
    [['id-2'], []],
    [['id-3'], []],
    [['id-4, id-5'], []],
  ]);
});

test('a definition registered as counted must be the one GrpcMetrics.instrument returned (else handed-over messages would go uncounted)', (t) => {
  const getRoute = (_call: unknown, callback: sendUnaryData<Route>) => callback(null, route);
  const server = { addService: () => {} };
  t.throws(
    () =>
      new HandlerTable().addService(
        server,
        RouteServiceService as unknown as ServiceDefinition,
        { getRoute },
        { tsProto: true, counted: true },
      ),
    { message: /GrpcMetrics\.instrument/ },
  );
  const metrics = new GrpcMetrics(new Registry());
  const counted = metrics.instrument(RouteServiceService, { getRoute });
  t.notThrows(() => new HandlerTable().addService(server, counted.definition, counted.implementation, { tsProto: true, counted: true }));
});

test('headers a stream handler sends reach a client that asks for them', async (t) => {
  const table = new HandlerTable();
  table.addService(
    { addService: () => {} },
    FileServiceService,
    {
      readFile: (call: ServerWritableStream<ReadFileRequest, ReadFileResponse>) => {
        const metadata = new Metadata();
        metadata.set('x-request-id', call.request.path);
        metadata.set('trace-bin', Buffer.from([1, 2, 3]));
        call.sendMetadata(metadata);
        call.write({ chunk: Buffer.from('ab') });
        call.write({ chunk: Buffer.from('cd') });
        call.end();
      },
    },
    { tsProto: true },
  );
  const client = createClient(FileService, createInProcessChannel(table, { accepting: () => true }).transport);
  let header: Headers | undefined;
  const chunks: string[] = [];
  for await (const message of client.readFile({ path: 'p/1' }, { onHeader: (received) => (header = received) }))
    chunks.push(Buffer.from(message.payload.value as Uint8Array).toString());
  t.deepEqual(chunks, ['ab', 'cd']);
  t.is(header?.get('x-request-id'), 'p/1');
  t.is(header?.get('trace-bin'), Buffer.from([1, 2, 3]).toString('base64').replace(/=+$/, ''));
});

/** A lifetime that counts its listeners, to see the channel let go of them. */
class CountedLifetime implements CallerLifetime {
  readonly #inner = new EndableLifetime();
  listening = 0;
  get ended(): boolean {
    return this.#inner.ended;
  }
  get signal(): AbortSignal {
    throw new Error('the in-process channel listens to the lifetime, it never asks for a signal');
  }
  onEnd(listener: () => void): () => void {
    this.listening += 1;
    const stop = this.#inner.onEnd(listener);
    let stopped = false;
    return () => {
      if (!stopped) this.listening -= 1;
      stopped = true;
      stop();
    };
  }
  end(): void {
    this.#inner.end();
  }
}

/** RouteService whose GetRoute answers only when `release` is called, and records a cancel. */
function heldChannel(options: { time?: Timers; interceptors?: Interceptor[] } = {}) {
  const held = { cancelled: false, release: (): void => {} };
  const table = new HandlerTable();
  table.addService(
    { addService: () => {} },
    RouteServiceService,
    {
      getRoute: (call: ServerUnaryCall<GetRouteRequest, Route>, callback: sendUnaryData<Route>) => {
        call.on('cancelled', () => (held.cancelled = true));
        held.release = () => callback(null, route);
      },
    },
    { tsProto: true },
  );
  const { transport } = createInProcessChannel(table, { accepting: () => true, ...options });
  return { client: createClient(RouteService, transport), held };
}

test("the caller's lifetime in the context values cancels a unary call when it ends: the handler sees the cancel, the call fails as canceled", async (t) => {
  const { client, held } = heldChannel();
  const lifetime = new CountedLifetime();
  const call = client.getRoute({ id: 'rt_1' }, { contextValues: createContextValues().set(CALLER_LIFETIME, lifetime) });
  await new Promise((resolve) => setImmediate(resolve));
  t.is(lifetime.listening, 1);
  lifetime.end();
  const error = await t.throwsAsync(call);
  t.is(ConnectError.from(error).code, Code.Canceled);
  t.true(held.cancelled);
  t.is(lifetime.listening, 0);
});

test('a call for a caller already gone fails as canceled; a call that ends first lets go of the lifetime', async (t) => {
  const gone = new CountedLifetime();
  gone.end();
  const first = heldChannel();
  const error = await t.throwsAsync(
    first.client.getRoute({ id: 'rt_1' }, { contextValues: createContextValues().set(CALLER_LIFETIME, gone) }),
  );
  t.is(ConnectError.from(error).code, Code.Canceled);
  t.true(first.held.cancelled);

  const second = heldChannel();
  const lifetime = new CountedLifetime();
  const call = second.client.getRoute({ id: 'rt_1' }, { contextValues: createContextValues().set(CALLER_LIFETIME, lifetime) });
  await new Promise((resolve) => setImmediate(resolve));
  second.held.release();
  t.is((await call).id, route.id);
  t.is(lifetime.listening, 0);
  lifetime.end();
  t.false(second.held.cancelled);
});

test("a server stream ends when its caller's lifetime does", async (t) => {
  const table = new HandlerTable();
  let cancelled = false;
  table.addService(
    { addService: () => {} },
    FileServiceService,
    {
      readFile: (call: ServerWritableStream<ReadFileRequest, ReadFileResponse>) => {
        call.on('cancelled', () => (cancelled = true));
        call.write({ chunk: Buffer.from('first') });
      },
    },
    { tsProto: true },
  );
  const { transport } = createInProcessChannel(table, { accepting: () => true });
  const lifetime = new CountedLifetime();
  const stream = createClient(FileService, transport).readFile(
    { path: 'p/1' },
    { contextValues: createContextValues().set(CALLER_LIFETIME, lifetime) },
  );
  const messages = stream[Symbol.asyncIterator]();
  const first = await messages.next();
  t.is(first.done ? undefined : first.value.payload.case, 'chunk');
  lifetime.end();
  const error = await t.throwsAsync(messages.next());
  t.is(ConnectError.from(error).code, Code.Canceled);
  t.true(cancelled);
  t.is(lifetime.listening, 0);
});

// Deadlines on fake time: the channel's timers are the test's.

/** Records how a call ends, without awaiting it. */
function settled(call: Promise<unknown>): { outcome?: Code | 'ok' } {
  const seen: { outcome?: Code | 'ok' } = {};
  call.then(
    () => (seen.outcome = 'ok'),
    (error: unknown) => (seen.outcome = ConnectError.from(error).code),
  );
  return seen;
}

for (const [name, interceptors] of [
  ['without interceptors', []],
  ["through Connect's interceptor path", [(next) => (req) => next(req)]],
] as [string, Interceptor[]][]) {
  test(`a unary call's deadline ends it deadline_exceeded at timeoutMs, not a ms sooner, and cancels the handler (${name})`, async (t) => {
    const fake = createClock(0);
    const { client, held } = heldChannel({ time: timeSourceOf(fake), interceptors });
    const call = settled(client.getRoute({ id: 'rt_1' }, { timeoutMs: 1_000 }));
    await fake.tickAsync(999);
    t.is(call.outcome, undefined, 'waiting at 999 ms');
    t.false(held.cancelled);
    await fake.tickAsync(1);
    t.is(call.outcome, Code.DeadlineExceeded);
    t.true(held.cancelled, 'the handler saw the cancel');
    t.is(fake.countTimers(), 0);
  });

  test(`a call answered before its deadline leaves no timer; timeoutMs 0 sets none (${name})`, async (t) => {
    const fake = createClock(0);
    const { client, held } = heldChannel({ time: timeSourceOf(fake), interceptors });
    const call = client.getRoute({ id: 'rt_1' }, { timeoutMs: 1_000 });
    await fake.tickAsync(999);
    held.release();
    t.is((await call).id, route.id);
    t.is(fake.countTimers(), 0, 'the deadline was cleared');
    const unbounded = settled(client.getRoute({ id: 'rt_1' }, { timeoutMs: 0 }));
    await fake.tickAsync(24 * 60 * 60_000);
    t.is(unbounded.outcome, undefined, 'no deadline');
    held.release();
    await fake.tickAsync(0);
    t.is(unbounded.outcome, 'ok');
  });

  test(`a server stream's deadline ends it mid-stream at timeoutMs, not a ms sooner (${name})`, async (t) => {
    const fake = createClock(0);
    const table = new HandlerTable();
    let cancelled = false;
    table.addService(
      { addService: () => {} },
      FileServiceService,
      {
        readFile: (call: ServerWritableStream<ReadFileRequest, ReadFileResponse>) => {
          call.on('cancelled', () => (cancelled = true));
          call.write({ chunk: Buffer.from('first') });
        },
      },
      { tsProto: true },
    );
    const { transport } = createInProcessChannel(table, { accepting: () => true, time: timeSourceOf(fake), interceptors });
    const messages = createClient(FileService, transport).readFile({ path: 'p/1' }, { timeoutMs: 5_000 })[Symbol.asyncIterator]();
    const first = await messages.next();
    t.is(first.done ? undefined : first.value.payload.case, 'chunk');
    const next = settled(messages.next());
    await fake.tickAsync(4_999);
    t.is(next.outcome, undefined, 'streaming at 4,999 ms');
    t.false(cancelled);
    await fake.tickAsync(1);
    t.is(next.outcome, Code.DeadlineExceeded);
    t.true(cancelled);
  });
}

import test from 'ava';
import { credentials, Server, type Client, type ServiceDefinition, makeGenericClientConstructor } from '@grpc/grpc-js';
import { createClock } from '@sinonjs/fake-timers';
import { eventually, timeSourceOf } from '@switchyard/core/testing';
import { bindServer, shutdownServer } from './server.js';

/** One unary method whose handler never answers until `release`, so a call stays in flight. */
const held: ServiceDefinition = {
  hold: {
    path: '/test.Held/Hold',
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (bytes: Buffer) => bytes,
    responseSerialize: (value: Buffer) => value,
    responseDeserialize: (bytes: Buffer) => bytes,
  },
};

async function serverWithCallInFlight(): Promise<{ server: Server; client: Client; ended: Promise<string> }> {
  const server = new Server();
  let arrived = false;
  server.addService(held, { hold: () => (arrived = true) });
  const port = await bindServer(server, '127.0.0.1:0');
  const client = new (makeGenericClientConstructor(held, 'Held'))(`127.0.0.1:${port}`, credentials.createInsecure());
  const ended = new Promise<string>((resolve) =>
    client.makeUnaryRequest(
      '/test.Held/Hold',
      (v: Buffer) => v,
      (b: Buffer) => b,
      Buffer.alloc(0),
      (error) => resolve(error?.message ?? 'ok'),
    ),
  );
  await eventually(() => arrived, { timeout: 10_000, message: 'the call reached its handler' });
  return { server, client, ended };
}

test('shutdown waits for calls in flight until timeoutMs on its timers, not a ms less, then cuts them off', async (t) => {
  const fake = createClock(0);
  const { server, client, ended } = await serverWithCallInFlight();
  t.teardown(() => client.close());
  let outcome: { forced: boolean } | undefined;
  void shutdownServer(server, 1_000, timeSourceOf(fake)).then((result) => (outcome = result));
  await fake.tickAsync(999);
  t.is(outcome, undefined, 'still waiting at 999 ms');
  await fake.tickAsync(1);
  t.deepEqual(outcome, { forced: true });
  t.is(await ended, '1 CANCELLED: Call cancelled', 'the held call was cut off');
  t.is(fake.countTimers(), 0);
});

test('a server with nothing in flight shuts down at once and leaves no timer', async (t) => {
  const fake = createClock(0);
  const server = new Server();
  await bindServer(server, '127.0.0.1:0');
  const result = await shutdownServer(server, 1_000, timeSourceOf(fake));
  t.deepEqual(result, { forced: false });
  t.is(fake.countTimers(), 0);
});

import test from 'ava';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { createClock } from '@sinonjs/fake-timers';
import { timeSourceOf } from '@switchyard/core/testing';
import { GrpcClients } from '../../../test/grpc/support/clients.js';
import { LogCapture } from '../../../test/grpc/support/log-capture.js';
import { HealthMonitor, SERVICE_NAMES } from './health.js';

/** A real gRPC server carrying only the monitor's Health service. */
async function serve(monitor: HealthMonitor): Promise<{ clients: GrpcClients; stop(): void }> {
  const server = new Server();
  monitor.implementation.addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  const clients = new GrpcClients(`127.0.0.1:${port}`);
  return {
    clients,
    stop: () => {
      clients.close();
      server.forceShutdown();
    },
  };
}

/** A monitor on fake time (`fake`): checks every 5 s, each given `timeoutMs`. */
function monitorWith(check: () => Promise<void>, timeoutMs = 3_000) {
  const logs = new LogCapture();
  const fake = createClock(0);
  return { monitor: new HealthMonitor({ check, log: logs.logger, intervalMs: 5_000, timeoutMs, time: timeSourceOf(fake) }), logs, fake };
}

test('SERVING while the check passes, NOT_SERVING while it fails, for "" and every service', async (t) => {
  let failing = false;
  const { monitor, logs } = monitorWith(async () => {
    if (failing) throw new Error('ECONNREFUSED');
  });
  await monitor.start();
  const { clients, stop } = await serve(monitor);
  t.teardown(stop);
  for (const name of ['', ...SERVICE_NAMES]) t.is(await clients.healthCheck(name), 'SERVING', name);
  failing = true;
  await monitor.refresh();
  for (const name of ['', ...SERVICE_NAMES]) t.is(await clients.healthCheck(name), 'NOT_SERVING', name);
  t.truthy(logs.lines().find((line) => String(line['msg']).includes('NOT_SERVING')));
  failing = false;
  await monitor.refresh();
  t.is(await clients.healthCheck(''), 'SERVING');
  await monitor.stop();
});

test('a check that hangs counts as a failure at the timeout, not a ms sooner', async (t) => {
  const { monitor, fake } = monitorWith(() => new Promise<void>(() => undefined), 3_000);
  const { clients, stop } = await serve(monitor);
  t.teardown(stop);
  void monitor.start();
  await fake.tickAsync(2_999);
  await t.throwsAsync(clients.healthCheck('switchyard.v1.RouteService'), { message: /status unknown/ }, 'no status yet at 2,999 ms');
  await fake.tickAsync(1);
  t.is(await clients.healthCheck('switchyard.v1.RouteService'), 'NOT_SERVING');
  await monitor.stop();
});

test('storage is checked every intervalMs after the first check, not sooner, until stop()', async (t) => {
  const checkedAt: number[] = [];
  const { monitor, fake } = monitorWith(async () => void checkedAt.push(fake.now));
  await monitor.start();
  await fake.tickAsync(4_999);
  t.deepEqual(checkedAt, [0]);
  await fake.tickAsync(1);
  t.deepEqual(checkedAt, [0, 5_000]);
  await fake.tickAsync(5_000);
  t.deepEqual(checkedAt, [0, 5_000, 10_000]);
  await monitor.stop();
  await fake.tickAsync(60_000);
  t.deepEqual(checkedAt, [0, 5_000, 10_000]);
});

test('overlapping refreshes share one check', async (t) => {
  let calls = 0;
  const { monitor } = monitorWith(async () => {
    calls += 1;
  });
  await Promise.all([monitor.refresh(), monitor.refresh(), monitor.refresh()]);
  t.is(calls, 1);
  await monitor.stop();
});

test('after stop() it reports NOT_SERVING for good, even if a check passes', async (t) => {
  const { monitor } = monitorWith(async () => undefined);
  await monitor.start();
  const { clients, stop } = await serve(monitor);
  t.teardown(stop);
  await monitor.stop();
  await monitor.refresh();
  t.is(await clients.healthCheck(''), 'NOT_SERVING');
});

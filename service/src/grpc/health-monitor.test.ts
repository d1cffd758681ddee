import test from 'ava';
import { Server, ServerCredentials } from '@grpc/grpc-js';
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

function monitorWith(check: () => Promise<void>, timeoutMs = 5_000): { monitor: HealthMonitor; logs: LogCapture } {
  const logs = new LogCapture();
  // A long interval: the tests drive checks with refresh(), never with timers.
  return { monitor: new HealthMonitor({ check, log: logs.logger, intervalMs: 3_600_000, timeoutMs }), logs };
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

test('a check that hangs counts as a failure after the timeout', async (t) => {
  const { monitor } = monitorWith(() => new Promise<void>(() => undefined), 50);
  await monitor.start();
  const { clients, stop } = await serve(monitor);
  t.teardown(stop);
  t.is(await clients.healthCheck('switchyard.v1.RouteService'), 'NOT_SERVING');
  await monitor.stop();
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

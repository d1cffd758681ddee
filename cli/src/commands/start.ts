// `switchyard start` (npm start): migrations, the gRPC service and the REST
// gateway in one process, on SQLite and files under DATA_DIR unless the
// environment says otherwise. The composition root of the all-in-one server.
import { createGatewayLogger, listen, startGateway, type GatewayHandle } from '@switchyard/gateway';
import {
  createTracing,
  metricsIfOn,
  onShutdownSignals,
  parseCommandArgs,
  serveMetrics,
  type MetricsServer,
  type CommandOutput,
} from '@switchyard/runtime';
import { createServiceLogger, startService, type ServiceHandle } from '@switchyard/service';
import { loadAllInOneConfig } from '../all-in-one-config.js';

export const START_USAGE = `usage: switchyard start

Runs the all-in-one server on embedded defaults: applies migrations, then
serves the gRPC service (GRPC_PORT), the REST gateway and the files (PORT) in
one process, with SQLite and files under DATA_DIR unless DATABASE_URL and
BLOB_STORE say otherwise. Prints where it listens; SIGINT/SIGTERM finish
requests in flight and exit.`;

export async function startCommand(args: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<void> {
  if (parseCommandArgs(args, {}, START_USAGE).help) return void output.log(START_USAGE);
  // Both apps' variables are parsed once, before anything is bound, so a bad variable costs no port.
  const config = loadAllInOneConfig(env);
  const gatewayConfig = config.gateway;
  const gatewayLog = createGatewayLogger(gatewayConfig.logLevel);

  // The HTTP port is bound first: with PORT=0 the default CDN_URL must name the port actually taken.
  const listener = await listen(gatewayConfig.host, gatewayConfig.port);
  const serviceConfig = config.serviceOn(listener.port);

  // One registry for both layers: one scrape shows the gateway's requests and the service's calls.
  // METRICS_PORT=off: nothing is recorded either, so metrics cost nothing.
  const metricsOn = metricsIfOn(gatewayConfig.metricsPort);
  const metrics = metricsOn?.registry;
  // One trace provider too: a request's gateway span and the service span under it leave the same process.
  const tracing = createTracing(gatewayConfig.traces, 'switchyard');
  let service: ServiceHandle | undefined;
  let gateway: GatewayHandle | undefined;
  let metricsServer: MetricsServer | undefined;
  try {
    service = await startService(serviceConfig, { logger: createServiceLogger(serviceConfig.logLevel), metrics, tracing });
    gateway = await startGateway(
      { ...gatewayConfig, cdnUrl: serviceConfig.cdnUrl },
      {
        inProcess: service.inProcess,
        assetChanges: service.assetChanges,
        // A SQLite database is this process's alone: its changes are every change.
        assetChangesComplete: serviceConfig.storage.database.kind === 'sqlite',
        log: gatewayLog,
        listener,
        metrics,
        tracing,
      },
    );
    metricsServer = metricsOn && (await serveMetrics(metricsOn.registry, gatewayConfig.host, metricsOn.port));
  } catch (error) {
    gatewayLog.fatal({ err: error }, 'switchyard could not start');
    if (gateway) await gateway.close();
    else await listener.close(0);
    await service?.close();
    throw error;
  }

  output.log(
    [
      'switchyard is running',
      `  REST gateway  ${gateway.url}`,
      `  gRPC service  ${service.address}`,
      `  files (CDN)   ${gateway.cdnUrl}`,
      `  data dir      ${serviceConfig.dataDir}`,
      `  metrics       ${metricsServer?.url ?? 'off'}`,
      `  console       ${gatewayConfig.console ? `${gateway.url}/console/` : 'off'}`,
      `  API reference ${gateway.url}/docs`,
    ].join('\n'),
  );

  const running = { service, gateway, metricsServer };
  onShutdownSignals(gatewayLog, async () => {
    // The gateway first, so requests in flight can still reach the service.
    await running.gateway.close();
    await running.service.close();
    await running.metricsServer?.close();
    await tracing.shutdown();
  });
}

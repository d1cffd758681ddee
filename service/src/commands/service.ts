// `switchyard service`: the gRPC service alone, configured from the environment.
import { createTracing, metricsIfOn, onShutdownSignals, parseCommandArgs, serveMetrics, type CommandOutput } from '@switchyard/runtime';
import { startService } from '../app.js';
import { loadStandaloneServiceConfig } from '../config.js';
import { createServiceLogger } from '../logger.js';

export const SERVICE_USAGE = `usage: switchyard service

Runs the gRPC service alone (switchyard.v1 on GRPC_PORT), over DATABASE_URL
or SQLite in DATA_DIR, and BLOB_STORE. Gateways reach it through SERVICE_URL.
CDN_URL is required: the public base of file urls (a gateway's /files or a CDN).
Applies migrations at start; SIGINT/SIGTERM finish calls in flight and exit.`;

export async function serviceCommand(args: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<void> {
  if (parseCommandArgs(args, {}, SERVICE_USAGE).help) return void output.log(SERVICE_USAGE);
  const config = loadStandaloneServiceConfig(env);
  const log = createServiceLogger(config.logLevel);
  // METRICS_PORT=off: nothing is recorded either, so metrics cost nothing.
  const metricsOn = metricsIfOn(config.metricsPort);
  const metrics = metricsOn?.registry;
  const tracing = createTracing(config.traces, 'switchyard-service');
  const service = await startService(config, { logger: log, metrics, tracing }).catch((error: unknown) => {
    log.fatal({ err: error }, 'the service could not start');
    throw error;
  });
  const metricsServer =
    metricsOn &&
    (await serveMetrics(metricsOn.registry, config.host, metricsOn.port).catch(async (error: unknown) => {
      log.fatal({ err: error }, 'METRICS_PORT could not be bound');
      await service.close();
      throw error;
    }));
  output.log(`switchyard gRPC service listening on ${service.address}${metricsServer ? ` (metrics at ${metricsServer.url})` : ''}`);
  onShutdownSignals(log, async () => {
    await service.close();
    await metricsServer?.close();
    await tracing.shutdown();
  });
}

// `switchyard gateway`: the REST gateway alone, in front of the gRPC service at SERVICE_URL.
import { SwitchyardError } from '@switchyard/core';
import { createTracing, metricsIfOn, onShutdownSignals, parseCommandArgs, serveMetrics, type CommandOutput } from '@switchyard/runtime';
import { loadGatewayConfig } from '../config.js';
import { createGatewayLogger } from '../logger.js';
import { startGateway } from '../start.js';

export const GATEWAY_USAGE = `usage: switchyard gateway

Runs the REST /v1 gateway and file serving alone (HTTP on PORT), in front of
the gRPC service at SERVICE_URL (required; several addresses, comma-separated,
or a DNS name resolving to several are balanced over the healthy ones).
SIGINT/SIGTERM finish requests in flight and exit.`;

export async function gatewayCommand(args: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<void> {
  if (parseCommandArgs(args, {}, GATEWAY_USAGE).help) return void output.log(GATEWAY_USAGE);
  const config = loadGatewayConfig(env);
  const serviceUrl = config.serviceUrl;
  if (serviceUrl === undefined) {
    const reason = 'is required to run the gateway alone (e.g. http://127.0.0.1:50051); `switchyard start` runs the service too';
    throw new SwitchyardError('invalid_argument', `invalid configuration:\n  SERVICE_URL: ${reason}`, [{ field: 'SERVICE_URL', reason }]);
  }
  const log = createGatewayLogger(config.logLevel);
  // METRICS_PORT=off: nothing is recorded either, so metrics cost nothing.
  const metricsOn = metricsIfOn(config.metricsPort);
  const metrics = metricsOn?.registry;
  const tracing = createTracing(config.traces, 'switchyard-gateway');
  const gateway = await startGateway(config, { serviceUrl, log, metrics, tracing }).catch((error: unknown) => {
    log.fatal({ err: error }, 'the gateway could not start');
    throw error;
  });
  const metricsServer =
    metricsOn &&
    (await serveMetrics(metricsOn.registry, config.host, metricsOn.port).catch(async (error: unknown) => {
      log.fatal({ err: error }, 'METRICS_PORT could not be bound');
      await gateway.close();
      throw error;
    }));
  output.log(
    `switchyard gateway listening on ${gateway.url} (files at ${gateway.cdnUrl}, service at ${serviceUrl}${metricsServer ? `, metrics at ${metricsServer.url}` : ''})`,
  );
  output.log(`  console ${config.console ? `${gateway.url}/console/` : 'off'}, API reference ${gateway.url}/docs`);
  onShutdownSignals(log, async () => {
    await gateway.close();
    await metricsServer?.close();
    await tracing.shutdown();
  });
}

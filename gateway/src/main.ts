// `npm run gateway`: the REST gateway alone, in front of the gRPC service at SERVICE_URL.
import { isSwitchyardError } from '../../lib/src/errors.js';
import { loadGatewayConfig, type GatewayConfig } from './config.js';
import { createGatewayLogger } from './logger.js';
import { onShutdownSignals } from '../../service/src/shutdown-signals.js';
import { startGateway } from './start.js';

function configOrExit(): GatewayConfig & { serviceUrl: string } {
  try {
    const config = loadGatewayConfig(process.env);
    if (config.serviceUrl === undefined) {
      console.error('invalid configuration:\n  SERVICE_URL: is required to run the gateway alone (e.g. http://127.0.0.1:50051); `npm start` runs the service too');
      process.exit(1);
    }
    return config as GatewayConfig & { serviceUrl: string };
  } catch (error) {
    console.error(isSwitchyardError(error) ? error.message : error);
    process.exit(1);
  }
}

const config = configOrExit();
const log = createGatewayLogger(config.logLevel);
const gateway = await startGateway(config, { serviceUrl: config.serviceUrl, log }).catch((error: unknown) => {
  log.fatal({ err: error }, 'the gateway could not start');
  process.exit(1);
});
console.log(`switchyard gateway listening on ${gateway.url} (files at ${gateway.cdnUrl}, service at ${config.serviceUrl})`);
onShutdownSignals(log, () => gateway.close());

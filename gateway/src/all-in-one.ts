// `npm start`: migrations, the gRPC service and the REST gateway in one process,
// on SQLite and files under DATA_DIR unless the environment says otherwise.
import { isSwitchyardError } from '../../lib/src/errors.js';
import { startService, type ServiceHandle } from '../../service/src/app.js';
import { loadServiceConfig } from '../../service/src/config.js';
import { createLogger } from '../../service/src/logger.js';
import { loadGatewayConfig } from './config.js';
import { listen } from './http/listener.js';
import { createGatewayLogger } from './logger.js';
import { onShutdownSignals } from '../../service/src/shutdown-signals.js';
import { startGateway, type GatewayHandle } from './start.js';

function fail(error: unknown): never {
  console.error(isSwitchyardError(error) ? error.message : error);
  process.exit(1);
}

// Both configurations are checked before anything is bound, so a bad variable costs no port.
let gatewayConfig;
try {
  gatewayConfig = loadGatewayConfig(process.env);
  loadServiceConfig(process.env);
} catch (error) {
  fail(error);
}
const gatewayLog = createGatewayLogger(gatewayConfig.logLevel);

// The HTTP port is bound first: with PORT=0 the default CDN_URL must name the port actually taken.
const listener = await listen(gatewayConfig.host, gatewayConfig.port).catch(fail);
const serviceConfig = loadServiceConfig({ ...process.env, PORT: String(listener.port) });
const serviceLog = createLogger(serviceConfig.logLevel);

let service: ServiceHandle | undefined;
let gateway: GatewayHandle | undefined;
try {
  service = await startService(serviceConfig, { logger: serviceLog });
  gateway = await startGateway({ ...gatewayConfig, cdnUrl: serviceConfig.cdnUrl }, { serviceUrl: `http://${dialable(service.address)}`, log: gatewayLog, listener });
} catch (error) {
  gatewayLog.fatal({ err: error }, 'switchyard could not start');
  await listener.close(0);
  await service?.close();
  process.exit(1);
}

console.log(
  [
    'switchyard is running',
    `  REST gateway  ${gateway.url}`,
    `  gRPC service  ${service.address}`,
    `  files (CDN)   ${gateway.cdnUrl}`,
    `  data dir      ${serviceConfig.dataDir}`,
  ].join('\n'),
);

const running = { service, gateway };
onShutdownSignals(gatewayLog, async () => {
  // The gateway first, so requests in flight can still reach the service.
  await running.gateway.close();
  await running.service.close();
});

/** A service bound to a wildcard address is dialled on loopback. */
function dialable(address: string): string {
  return address.replace(/^0\.0\.0\.0:/, '127.0.0.1:').replace(/^\[::\]:/, '[::1]:');
}

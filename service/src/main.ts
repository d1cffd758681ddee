// `npm run service`: the gRPC service alone, configured from the environment.
import { isSwitchyardError } from '../../lib/src/errors.js';
import { startService } from './app.js';
import { loadServiceConfig, type ServiceConfig } from './config.js';
import { createLogger } from './logger.js';
import { onShutdownSignals } from './shutdown-signals.js';

function configOrExit(): ServiceConfig {
  try {
    return loadServiceConfig(process.env);
  } catch (error) {
    console.error(isSwitchyardError(error) ? error.message : error);
    process.exit(1);
  }
}

const config = configOrExit();
const log = createLogger(config.logLevel);
const service = await startService(config, { logger: log }).catch((error: unknown) => {
  log.fatal({ err: error }, 'the service could not start');
  process.exit(1);
});
console.log(`switchyard gRPC service listening on ${service.address}`);

onShutdownSignals(log, () => service.close());

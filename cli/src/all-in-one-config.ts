// `switchyard start` reads the environment once, with the service's and the
// gateway's schemas merged: one pass, one list of every bad variable.
import { gatewayConfigFrom, gatewayEnv, type GatewayConfig } from '@switchyard/gateway';
import { mergeEnvSchemas, parseEnv } from '@switchyard/runtime';
import { serviceConfigFrom, serviceEnv, type ServiceConfig } from '@switchyard/service';

export const allInOneEnv = mergeEnvSchemas(serviceEnv, gatewayEnv);

export interface AllInOneConfig {
  readonly gateway: GatewayConfig;
  /** The service's configuration once the gateway's port is known (the default CDN_URL names it). */
  serviceOn(boundPort: number): ServiceConfig;
}

export function loadAllInOneConfig(env: NodeJS.ProcessEnv): AllInOneConfig {
  const values = parseEnv(allInOneEnv, env);
  const gateway = gatewayConfigFrom(values);
  // Checked now, before any port is bound: a service problem must not cost a port.
  serviceConfigFrom(values);
  return Object.freeze({ gateway, serviceOn: (boundPort: number) => serviceConfigFrom({ ...values, PORT: boundPort }) });
}

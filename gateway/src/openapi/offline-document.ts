import { loadGatewayConfig } from '../config.js';
import { createGateway } from '../gateway.js';
import { createGatewayLogger } from '../logger.js';
import { createServiceClients } from '../service/clients.js';

/** An address nothing needs to listen on: the clients connect lazily, and building the document calls none. */
const NO_SERVICE = 'http://127.0.0.1:1';

/**
 * The document `GET /v1/openapi.json` answers, without a server or a
 * service: the application is built with the default configuration and
 * asked for it (for docs generators). `cdnUrl` places the files path, as
 * CDN_URL does.
 */
export async function gatewayOpenApiDocument(cdnUrl: string): Promise<Record<string, unknown>> {
  const clients = createServiceClients(NO_SERVICE);
  try {
    const gateway = await createGateway({ config: loadGatewayConfig({}), cdnUrl, clients, log: createGatewayLogger('silent') });
    try {
      return gateway.app.swagger() as unknown as Record<string, unknown>;
    } finally {
      await gateway.close();
    }
  } finally {
    clients.close();
  }
}

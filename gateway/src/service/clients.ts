import type { Client, Transport } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { AssetService, FileService, Health as HealthService, RouteService, UploadService } from '@switchyard/proto';
import { withDirectCalls } from './direct-transport.js';
import { createLeanClient } from './lean-client.js';

/** Typed gRPC clients of the service, sharing one HTTP/2 connection. */
export interface ServiceClients {
  readonly routes: Client<typeof RouteService>;
  readonly assets: Client<typeof AssetService>;
  readonly files: Client<typeof FileService>;
  readonly uploads: Client<typeof UploadService>;
  readonly health: Client<typeof HealthService>;
  /** Closes the connection; calls still running fail. */
  close(): void;
}

/**
 * Connect's gRPC transport over one multiplexed HTTP/2 session to `serviceUrl`
 * (`http://host:port`). Pings find a dead service between calls; messages go
 * uncompressed, since file bytes rarely compress and the hop is internal.
 */
export function createServiceClients(serviceUrl: string): ServiceClients {
  const sessionManager = new Http2SessionManager(serviceUrl, { pingIntervalMs: 30_000, pingTimeoutMs: 10_000, idleConnectionTimeoutMs: 15 * 60_000 });
  const transport = withDirectCalls(createGrpcTransport({ baseUrl: serviceUrl, sessionManager, acceptCompression: [] }), sessionManager, 4 * 1024 * 1024);
  return clientsOver(transport, () => sessionManager.abort());
}

/** The same clients over the service's in-process channel: no socket to close. */
export function createInProcessClients(transport: Transport): ServiceClients {
  return clientsOver(transport, () => {});
}

function clientsOver(transport: Transport, close: () => void): ServiceClients {
  return Object.freeze({
    routes: createLeanClient(RouteService, transport),
    assets: createLeanClient(AssetService, transport),
    files: createLeanClient(FileService, transport),
    uploads: createLeanClient(UploadService, transport),
    health: createLeanClient(HealthService, transport),
    close,
  });
}

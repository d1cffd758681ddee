import { createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { AssetService } from '../gen/switchyard/v1/assets_pb.js';
import { FileService } from '../gen/switchyard/v1/files_pb.js';
import { RouteService } from '../gen/switchyard/v1/routes_pb.js';
import { HealthService } from './health-service.js';
import { withDirectCalls } from './direct-transport.js';

/** Typed gRPC clients of the service, sharing one HTTP/2 connection. */
export interface ServiceClients {
  readonly routes: Client<typeof RouteService>;
  readonly assets: Client<typeof AssetService>;
  readonly files: Client<typeof FileService>;
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
  return Object.freeze({
    routes: createClient(RouteService, transport),
    assets: createClient(AssetService, transport),
    files: createClient(FileService, transport),
    health: createClient(HealthService, transport),
    close: () => sessionManager.abort(),
  });
}

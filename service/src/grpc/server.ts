import { Server, ServerCredentials, type ChannelOptions, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { withFastChunks } from './chunk-encoding.js';
import { systemTime, type Switchyard, type Timers } from '@switchyard/core';
import { AssetService, RouteService, UploadService } from '@switchyard/proto';
import { AssetServiceService } from '../gen/switchyard/v1/assets.js';
import { FileServiceService } from '../gen/switchyard/v1/files.js';
import { RouteServiceService } from '../gen/switchyard/v1/routes.js';
import { UploadServiceService } from '../gen/switchyard/v1/uploads.js';
import { KeyServiceService } from '../gen/switchyard/v1/keys.js';
import { keyHandlers } from './key-handlers.js';
import { webhookHandlers } from './webhook-handlers.js';
import { WebhookServiceService } from '../gen/switchyard/v1/webhooks.js';
import { uploadHandlers } from './upload-handlers.js';
import type { Logger, Tracing } from '@switchyard/runtime';
import { assetHandlers } from './asset-handlers.js';
import { tolerantDeserializers } from './decoding.js';
import type { Authenticate } from './auth.js';
import { fileHandlers } from './file-handlers.js';
import type { HealthMonitor } from './health.js';
import { createReflectionService } from './reflection.js';
import { withReusedWriter } from './reused-writer.js';
import { routeHandlers } from './route-handlers.js';
import { createRpc } from './rpc.js';
import type { GrpcMetrics } from './grpc-metrics.js';
import { HandlerTable } from '../in-process/handler-table.js';

const MIB = 1024 * 1024;
/** The largest message either way (uploads come as many small ones). */
export const MAX_MESSAGE_BYTES = 4 * MIB;

/**
 * Transport limits. Uploads arrive as many small messages (64 KiB chunks are
 * recommended), so 4 MiB per message is plenty and bounds what one message can
 * cost. Keepalive pings find dead peers within a minute and a half; idle
 * connections are closed after 5 minutes so clients rebalance across instances.
 */
export const SERVER_OPTIONS: ChannelOptions = Object.freeze({
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  'grpc.keepalive_time_ms': 60_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.max_connection_idle_ms': 5 * 60_000,
  'grpc.max_concurrent_streams': 1000,
});

export interface GrpcServerParts {
  readonly switchyard: Switchyard;
  readonly authenticate: Authenticate;
  readonly health: HealthMonitor;
  readonly log: Logger;
  /** UPLOAD_IDLE_TIMEOUT_MS (see asset-handlers.ts). */
  readonly uploadIdleTimeoutMs?: number | undefined;
  /** Where upload streams' idle timeouts are scheduled (the system's timers by default). */
  readonly timers?: Timers | undefined;
  /** Counts every call of the switchyard services when given. */
  readonly metrics?: GrpcMetrics | undefined;
  /** Server spans for calls (ids only by default). */
  readonly tracing?: Tracing | undefined;
}

export interface GrpcServer {
  readonly server: Server;
  /** Every handler the server runs, by path, for the in-process channel. */
  readonly handlers: HandlerTable;
  /** Resolves once no handler is running, so storage can be closed under none. */
  settled(): Promise<void>;
  /** Ends long-lived streams (route watches) so shutdown does not wait on them. */
  endStreams(): void;
}

export function createGrpcServer(parts: GrpcServerParts): GrpcServer {
  const server = new Server(SERVER_OPTIONS);
  const handlers = new HandlerTable();
  const rpc = createRpc(parts.log, parts.authenticate, parts.tracing);
  const add = (definition: ServiceDefinition, implementation: UntypedServiceImplementation): void => {
    // Requests that do not decode reach the handlers as `invalid_argument`, not grpc-js's INTERNAL (decoding.ts).
    const served = { definition: tolerantDeserializers(definition), implementation };
    const counted = parts.metrics ? parts.metrics.instrument(served.definition, served.implementation) : served;
    handlers.addService(server, counted.definition, counted.implementation, { tsProto: true, counted: parts.metrics !== undefined });
  };
  add(withReusedWriter(RouteServiceService, RouteService), routeHandlers(parts.switchyard.routes, rpc));
  add(
    withReusedWriter(AssetServiceService, AssetService),
    assetHandlers(parts.switchyard.assets, rpc, { uploadIdleTimeoutMs: parts.uploadIdleTimeoutMs, timers: parts.timers }),
  );
  // ReadFile, its one method, has its own encoder (chunk-encoding.ts).
  add(withFastChunks(FileServiceService), fileHandlers(parts.switchyard.assets, rpc));
  // Without an upload store there is no UploadService: grpc-js answers its calls UNIMPLEMENTED.
  const { uploads } = parts.switchyard;
  if (uploads)
    add(
      withReusedWriter(UploadServiceService, UploadService),
      uploadHandlers(uploads, rpc, { uploadIdleTimeoutMs: parts.uploadIdleTimeoutMs, timers: parts.timers }),
    );
  // Without a key store, KeyService answers UNIMPLEMENTED from its handlers (keys are optional in the core).
  add(KeyServiceService, keyHandlers(parts.switchyard.keys, rpc));
  add(WebhookServiceService, webhookHandlers(parts.switchyard.webhooks, rpc));
  parts.health.implementation.addToServer(handlers.recorder(server));
  createReflectionService().addToServer(server);
  return { server, handlers, settled: () => rpc.settled(), endStreams: () => rpc.endStreams() };
}

/** Binds without TLS (an internal service behind the gateway); resolves to the bound port. */
export function bindServer(server: Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port)));
  });
}

/**
 * Stops taking calls and lets those in flight finish; after `timeoutMs` (on
 * `timers`) the rest are cut off.
 */
export function shutdownServer(server: Server, timeoutMs: number, timers: Timers = systemTime): Promise<{ forced: boolean }> {
  return new Promise((resolve) => {
    const timer = timers.setTimeout(() => {
      server.forceShutdown();
      resolve({ forced: true });
    }, timeoutMs);
    server.tryShutdown(() => {
      timers.clearTimeout(timer);
      resolve({ forced: false });
    });
  });
}

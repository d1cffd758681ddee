import { resolveCdnUrl, type GatewayConfig } from './config.js';
import { createGateway } from './gateway.js';
import { listen, type HttpListener } from './http/listener.js';
import type { Logger, Registry, Tracing } from '@switchyard/runtime';
import type { Transport } from '@connectrpc/connect';
import { createInProcessClients, createServiceClients } from './service/clients.js';
import type { ValidatorCacheConfig } from './files/validator-cache.js';
import type { AssetChangeSource, TimeSource } from '@switchyard/core';

/** How long `close()` lets requests in flight finish before cutting them off. */
export const SHUTDOWN_TIMEOUT_MS = 10_000;

export interface GatewayHandle {
  /** `http://host:port` of the REST API. */
  readonly url: string;
  readonly port: number;
  /** Public base of stored files (CDN_URL, or this gateway's own /files). */
  readonly cdnUrl: string;
  /** Graceful: stops accepting, finishes requests in flight, then closes the service connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * How the gateway reaches the service: real gRPC to `serviceUrl` (split
 * deployments), or the service's in-process channel (`ServiceHandle.inProcess`,
 * in one process with it). Both give the gateway the same clients.
 */
export type ServiceChannel =
  | {
      readonly serviceUrl: string;
      readonly inProcess?: undefined;
      readonly assetChanges?: undefined;
      readonly assetChangesComplete?: undefined;
    }
  | {
      readonly inProcess: Transport;
      readonly serviceUrl?: undefined;
      /** The service's asset changes (`ServiceHandle.assetChanges`): file validators are dropped the moment a change commits. */
      readonly assetChanges?: AssetChangeSource | undefined;
      /** No other process writes the service's database (SQLite): `assetChanges` are every change (GatewayParts). */
      readonly assetChangesComplete?: boolean | undefined;
    };

export type StartGatewayOptions = ServiceChannel & {
  readonly log: Logger;
  /** A listener bound earlier (all-in-one binds first to learn its port); by default one is bound on HOST:PORT. */
  readonly listener?: HttpListener | undefined;
  readonly shutdownTimeoutMs?: number | undefined;
  /** The registry request metrics go to (the process's, shared with the service in one process). */
  readonly metrics?: Registry | undefined;
  /** Server spans for requests (the process's, shared with the service in one process); ids only by default. */
  readonly tracing?: Tracing | undefined;
  /** The validators of public files kept for revalidations (files/validator-cache.ts); its defaults when absent. */
  readonly fileValidators?: ValidatorCacheConfig | undefined;
  /** The clock and timers of every timeout, health check and cache age (the system's by default). */
  readonly time?: TimeSource | undefined;
};

export async function startGateway(config: GatewayConfig, options: StartGatewayOptions): Promise<GatewayHandle> {
  const listener = options.listener ?? (await listen(config.host, config.port, options.time));
  listener.setLimits(config.clientLimits);
  const cdnUrl = resolveCdnUrl(config, listener.port);
  const clients = options.inProcess
    ? createInProcessClients(options.inProcess)
    : createServiceClients(options.serviceUrl, { log: options.log, metrics: options.metrics, time: options.time });
  const gateway = await createGateway({
    config,
    cdnUrl,
    clients,
    log: options.log,
    metrics: options.metrics,
    tracing: options.tracing,
    fileValidators: options.fileValidators,
    assetChanges: options.assetChanges,
    assetChangesComplete: options.assetChangesComplete,
    time: options.time,
  });
  listener.setHandler(gateway.handle);
  listener.onConnectionRefused(() => gateway.countRefusal('connections'));
  options.log.info({ url: listener.url, cdnUrl, service: options.serviceUrl ?? 'in-process' }, 'gateway listening');

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    gateway.endStreams();
    const timeoutMs = options.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS;
    await listener.close(timeoutMs, (cut) =>
      options.log.warn({ connections: cut, timeoutMs }, 'shutdown deadline reached: cutting the connections still open'),
    );
    await gateway.close();
    clients.close();
    options.log.info('gateway stopped');
  };
  return Object.freeze({ url: listener.url, port: listener.port, cdnUrl, close: () => (closing ??= close()) });
}

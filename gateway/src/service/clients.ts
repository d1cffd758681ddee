import type { Client, Transport } from '@connectrpc/connect';
import type { TimeSource } from '@switchyard/core';
import {
  AssetService,
  FileService,
  Health as HealthService,
  KeyService,
  RouteService,
  UploadService,
  WebhookService,
} from '@switchyard/proto';
import { Refusal, type Logger, type Registry } from '@switchyard/runtime';
import { isSingleAddress, parseServiceTargets, type LookupAll } from './address-list.js';
import { connectBalanced } from './balanced-connection.js';
import { createLeanClient } from './lean-client.js';
import { connectService } from './service-connection.js';

/** Typed gRPC clients of the service, over one HTTP/2 connection or balanced over several. */
export interface ServiceClients {
  readonly routes: Client<typeof RouteService>;
  readonly assets: Client<typeof AssetService>;
  readonly files: Client<typeof FileService>;
  readonly uploads: Client<typeof UploadService>;
  readonly keys: Client<typeof KeyService>;
  readonly webhooks: Client<typeof WebhookService>;
  readonly health: Client<typeof HealthService>;
  /** Closes the connections; calls still running fail. */
  close(): void;
}

export interface ServiceClientsOptions {
  /** Where a balanced gateway logs services taken out and back. */
  readonly log?: Logger | undefined;
  /** Where a balanced gateway keeps its connection gauge and retry counter. */
  readonly metrics?: Registry | undefined;
  /** Host name resolution (tests inject one); node:dns `lookup` by default. */
  readonly lookup?: LookupAll | undefined;
  /** The clock and timers of call deadlines, and of a balanced gateway's re-resolution and health checks (the system's by default). */
  readonly time?: TimeSource | undefined;
}

/**
 * Clients of the service at `serviceUrl` (SERVICE_URL, validated by the
 * gateway's configuration). One IP address keeps one connection, as always;
 * several, or a DNS name, are balanced (balanced-connection.ts).
 */
export function createServiceClients(serviceUrl: string, options: ServiceClientsOptions = {}): ServiceClients {
  const targets = parseServiceTargets(serviceUrl);
  if (targets instanceof Refusal) throw new TypeError(`SERVICE_URL ${targets.reason}`);
  const connection = isSingleAddress(targets)
    ? connectService(targets[0]!.origin, undefined, options.time)
    : connectBalanced(targets, options);
  return clientsOver(connection.transport, () => connection.close());
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
    keys: createLeanClient(KeyService, transport),
    webhooks: createLeanClient(WebhookService, transport),
    health: createLeanClient(HealthService, transport),
    close,
  });
}

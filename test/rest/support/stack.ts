import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadGatewayConfig,
  listen,
  createGatewayLogger,
  startGateway,
  type GatewayHandle,
  type ValidatorCacheConfig,
} from '@switchyard/gateway';
import { startService, loadServiceConfig, type ServiceHandle } from '@switchyard/service';
import type { TimeSource } from '@switchyard/core';
import { createLogger, Registry } from '@switchyard/runtime';
import { mintToken, type Claims } from './tokens.js';

/** A real service (SQLite + disk in a temp dir) and a real gateway in front of it, both on free loopback ports. */
export interface Stack {
  /** `http://127.0.0.1:<port>` of the gateway. */
  readonly url: string;
  readonly cdnUrl: string;
  readonly secret: string;
  /** DATA_DIR of the service: SQLite database and files. */
  readonly dataDir: string;
  readonly gateway: GatewayHandle;
  readonly service: ServiceHandle;
  /** Every line the gateway logged so far. */
  readonly logLines: string[];
  /** Every line the service logged so far. */
  readonly serviceLogLines: string[];
  /** The metrics both layers record (no default process metrics), as one process's registry. */
  readonly metrics: Registry;
  token(workspace: string, claims?: Claims): Promise<string>;
  /** `{ authorization: 'Bearer …' }` for a fresh token (all scopes unless told). */
  auth(workspace: string, claims?: Claims): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/**
 * How stacks connect gateway and service: the in-process channel, as `npm
 * start` does, or real gRPC over loopback, as a split deployment does
 * (SWITCHYARD_TEST_CHANNEL=grpc; test/split/ runs the REST suites that way).
 */
export function testChannel(): 'in-process' | 'grpc' {
  return process.env['SWITCHYARD_TEST_CHANNEL'] === 'grpc' ? 'grpc' : 'in-process';
}

export async function startStack(
  env: Record<string, string> = {},
  options: {
    channel?: 'in-process' | 'grpc';
    fileValidators?: ValidatorCacheConfig;
    /** The service's clock and timers (the system's by default): API key expiry, graces and caches follow it. */
    time?: TimeSource;
  } = {},
): Promise<Stack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-rest-'));
  // A given AUTH_SECRET (a deployment several stacks share) is the one tokens are minted with.
  const secret = env['AUTH_SECRET'] ?? randomBytes(32).toString('base64url');
  const listener = await listen('127.0.0.1', 0);
  const fullEnv = {
    HOST: '127.0.0.1',
    PORT: String(listener.port),
    GRPC_PORT: '0',
    DATA_DIR: dataDir,
    AUTH_SECRET: secret,
    LOG_LEVEL: 'info',
    // Tests send traffic only to loopback, and their webhook receivers listen on 127.0.0.1: the rest
    // of 127.0.0.0/8 stands for the non-public addresses an endpoint may not name.
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
    ...env,
  };
  const serviceConfig = loadServiceConfig(fullEnv);
  const serviceLogLines: string[] = [];
  const metrics = new Registry();
  const service = await startService(serviceConfig, {
    logger: createLogger('info', { write: (line: string) => void serviceLogLines.push(line) }),
    metrics,
    time: options.time,
  });
  const logLines: string[] = [];
  const log = createGatewayLogger('info', { write: (line: string) => void logLines.push(line) });
  const gatewayConfig = loadGatewayConfig(fullEnv);
  const channel =
    (options.channel ?? testChannel()) === 'grpc'
      ? { serviceUrl: `http://${service.address}` }
      : {
          inProcess: service.inProcess,
          assetChanges: service.assetChanges,
          // As `npm start` does: a SQLite database is this process's alone.
          assetChangesComplete: serviceConfig.storage.database.kind === 'sqlite',
        };
  const gateway = await startGateway(
    { ...gatewayConfig, cdnUrl: serviceConfig.cdnUrl },
    { ...channel, log, listener, shutdownTimeoutMs: 2_000, metrics, fileValidators: options.fileValidators },
  );
  const token = (workspace: string, claims?: Claims) => mintToken(secret, { workspace, ...claims });
  return {
    url: gateway.url,
    cdnUrl: gateway.cdnUrl,
    secret,
    dataDir,
    gateway,
    service,
    logLines,
    serviceLogLines,
    metrics,
    token,
    auth: async (workspace, claims) => ({ authorization: `Bearer ${await token(workspace, claims)}` }),
    stop: async () => {
      await gateway.close();
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A workspace name no other test uses. */
export function freshWorkspace(prefix = 'ws'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metadata } from '@grpc/grpc-js';
import {
  startService,
  loadServiceConfig,
  type ServiceHandle,
  type StartServiceOptions,
  type ServiceConfig,
  type StorageConfig,
} from '@switchyard/service';
import { bearer, GrpcClients } from './clients.js';
import { LogCapture } from './log-capture.js';
import { mintToken, type TokenClaims } from './tokens.js';

export const CDN_URL = 'http://cdn.test/files';

export interface TestService {
  readonly handle: ServiceHandle;
  readonly config: ServiceConfig;
  readonly clients: GrpcClients;
  readonly logs: LogCapture;
  readonly secret: string;
  /** Metadata carrying a fresh valid token for `workspace` (all scopes unless told). */
  auth(workspace: string, claims?: TokenClaims): Promise<Metadata>;
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  readonly storage: StorageConfig;
  readonly dataDir: string;
  /** Extra environment, e.g. MAX_UPLOAD_BYTES. */
  readonly env?: Record<string, string>;
  /** Share one secret between instances. */
  readonly secret?: string;
  readonly serviceOptions?: Omit<StartServiceOptions, 'logger'>;
}

/** A real service on 127.0.0.1 with a free port, a captured log and clients. */
export async function startTestService(options: TestServiceOptions): Promise<TestService> {
  const secret = options.secret ?? randomBytes(32).toString('base64url');
  const base = loadServiceConfig({
    HOST: '127.0.0.1',
    GRPC_PORT: '0',
    DATA_DIR: options.dataDir,
    CDN_URL,
    AUTH_SECRET: secret,
    ...options.env,
  });
  const config: ServiceConfig = Object.freeze({ ...base, storage: options.storage });
  const logs = new LogCapture();
  const handle = await startService(config, { ...options.serviceOptions, logger: logs.logger });
  const clients = new GrpcClients(handle.address);
  return {
    handle,
    config,
    clients,
    logs,
    secret,
    auth: async (workspace, claims) => bearer(await mintToken(secret, { workspace, ...claims })),
    stop: async () => {
      clients.close();
      await handle.close();
    },
  };
}

export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `switchyard-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

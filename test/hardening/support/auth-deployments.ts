// The deployments the auth attacks run against, each a real service and a real
// gateway on loopback ports: in one process with every log line captured at
// debug level, or as the two processes users run, whose whole output is kept.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGatewayConfig, listen, createGatewayLogger, startGateway } from '@switchyard/gateway';
import { startService, AUTH_SECRET_FILE, loadServiceConfig } from '@switchyard/service';
import { createLogger } from '@switchyard/runtime';
import { Child, cleanEnv } from '../../rest/support/processes.js';

export interface AuthDeployment {
  readonly name: string;
  /** `http://127.0.0.1:<port>` of the gateway. */
  readonly url: string;
  /** `127.0.0.1:<port>` of the gRPC service. */
  readonly serviceAddress: string;
  readonly dataDir: string;
  /** Everything the gateway and the service logged or printed so far. */
  logs(): string;
  stop(): Promise<void>;
}

/** These tests send bursts from one workspace; the rate limit is someone else's test. */
const COMMON = {
  HOST: '127.0.0.1',
  GRPC_PORT: '0',
  RATE_LIMIT_PER_SECOND: '0',
  LOG_LEVEL: 'debug',
  // The webhooks the attacks create and aim at point at loopback, as every test's do.
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
} as const;

/** Service and gateway in this process over the in-process channel (as `npm start`), logging at debug level into arrays. `auth` is AUTH_SECRET or AUTH_JWKS_URL. */
export async function inProcessDeployment(
  name: string,
  auth: { AUTH_SECRET: string } | { AUTH_JWKS_URL: string },
): Promise<AuthDeployment> {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-auth-'));
  const listener = await listen('127.0.0.1', 0);
  const env = { ...COMMON, PORT: String(listener.port), DATA_DIR: dataDir, ...auth };
  const serviceConfig = loadServiceConfig(env);
  const lines: string[] = [];
  const sink = { write: (line: string) => void lines.push(line) };
  const service = await startService(serviceConfig, { logger: createLogger('debug', sink) });
  const gateway = await startGateway(
    { ...loadGatewayConfig(env), cdnUrl: serviceConfig.cdnUrl },
    { inProcess: service.inProcess, log: createGatewayLogger('debug', sink), listener, shutdownTimeoutMs: 2_000 },
  );
  return {
    name,
    url: gateway.url,
    serviceAddress: service.address,
    dataDir,
    logs: () => lines.join(''),
    stop: async () => {
      await gateway.close();
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `npm run service` and `npm run gateway` as child processes, with the secret
 * the service generates in DATA_DIR (AUTH_SECRET unset), as a fresh
 * deployment would run. Returns the secret read from its file.
 */
export async function processDeployment(name: string, extraEnv: Record<string, string> = {}): Promise<AuthDeployment & { secret: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-auth-'));
  const service = new Child(['service'], cleanEnv({ ...COMMON, DATA_DIR: dataDir, CDN_URL: 'http://cdn.test/files', ...extraEnv }));
  const stopAll: Array<() => Promise<unknown>> = [() => service.stop()];
  try {
    const [, serviceAddress] = await service.waitFor(/listening on (\S+:\d+)/);
    const gateway = new Child(['gateway'], cleanEnv({ ...COMMON, PORT: '0', SERVICE_URL: `http://${serviceAddress!}` }));
    stopAll.push(() => gateway.stop());
    const [, url] = await gateway.waitFor(/gateway listening on (http:\/\/\S+:\d+)/);
    const secret = (await readFile(join(dataDir, AUTH_SECRET_FILE), 'utf8')).trim();
    return {
      name,
      url: url!,
      serviceAddress: serviceAddress!,
      dataDir,
      secret,
      logs: () => `${service.output}\n${gateway.output}`,
      stop: async () => {
        await Promise.all(stopAll.map((stop) => stop()));
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all(stopAll.map((stop) => stop()));
    throw error;
  }
}

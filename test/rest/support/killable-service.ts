import { randomBytes } from 'node:crypto';
import { createGatewayLogger, listen, loadGatewayConfig, startGateway } from '@switchyard/gateway';
import { tempDir } from '../../grpc/support/test-service.js';
import { freePort } from '../../support/free-port.js';
import { Child, cleanEnv } from './processes.js';

/** A service in its own process behind a gateway in this one, for tests that SIGKILL the service mid-work. */
export interface KillableDeployment {
  /** The service's AUTH_SECRET, to mint tokens with. */
  readonly secret: string;
  readonly gatewayUrl: string;
  /** SIGKILLs the service, waits for it to exit and starts another on the same data and port. */
  killAndRestart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `switchyard service` on SQLite in a fresh data dir and a free gRPC port on
 * 127.0.0.1 (CDN_URL http://cdn.test/files, no metrics, warnings only; `env`
 * adds to that), and a gateway in this process in front of it.
 */
export async function startKillableDeployment(name: string, env: Record<string, string> = {}): Promise<KillableDeployment> {
  const dir = await tempDir(name);
  const secret = randomBytes(32).toString('base64url');
  const grpcPort = await freePort();
  const serviceEnv = cleanEnv({
    HOST: '127.0.0.1',
    GRPC_PORT: String(grpcPort),
    DATA_DIR: dir.path,
    AUTH_SECRET: secret,
    CDN_URL: 'http://cdn.test/files',
    METRICS_PORT: 'off',
    LOG_LEVEL: 'warn',
    ...env,
  });
  const startService = async (): Promise<Child> => {
    const child = new Child(['service'], serviceEnv);
    await child.waitFor(/listening/);
    return child;
  };
  let service = await startService();
  const listener = await listen('127.0.0.1', 0);
  const gateway = await startGateway(
    { ...loadGatewayConfig({ HOST: '127.0.0.1', PORT: String(listener.port) }), cdnUrl: 'http://cdn.test/files' },
    { serviceUrl: `http://127.0.0.1:${grpcPort}`, listener, log: createGatewayLogger('error'), shutdownTimeoutMs: 2_000 },
  );
  return {
    secret,
    gatewayUrl: gateway.url,
    async killAndRestart() {
      service.process.kill('SIGKILL');
      await service.exited;
      service = await startService();
    },
    async close() {
      await gateway.close();
      await service.stop();
      await dir.remove();
    },
  };
}

// The deployment of docs/scaling-out.md, run as printed: its `export` lines
// become the shared environment and each `npm run` line a process, with the
// doc's addresses and secrets swapped for this run's own (a fresh MariaDB
// database, s3rver, private brokers, free ports).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNats, startRedis, type TestBroker } from '../../support/brokers.js';
import { createTestMysqlDatabase } from '../../support/mysql.js';
import { startS3rver, type TestS3 } from '../../support/s3rver.js';
import { Child, cleanEnv } from '../../rest/support/processes.js';
import { mintToken } from '../../rest/support/tokens.js';
import { freePort } from '../../support/free-port.js';
import { assertOneHostPorts, readShellExample, storageSwaps, withLoopbackPorts } from '../../support/shell-example.js';

export interface ServiceProcess {
  readonly child: Child;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** The service's /metrics. */
  readonly metricsUrl: string;
}

export interface GatewayProcess {
  readonly child: Child;
  readonly url: string;
  readonly metricsUrl: string;
}

export interface ScaleDeployment {
  readonly services: readonly ServiceProcess[];
  readonly gateways: readonly GatewayProcess[];
  /** The events broker (Redis or NATS). */
  readonly events: TestBroker;
  /** The Redis rate limits are counted in (the events broker when that is Redis). */
  readonly limits: TestBroker;
  readonly s3: TestS3;
  readonly databaseUrl: string;
  readonly secret: string;
  /** The environment every process was started with (after the doc's swaps). */
  readonly env: Readonly<Record<string, string>>;
  token(workspace: string): Promise<string>;
  /** Starts one more service on the same database and bucket, with `env` over the deployment's (e.g. no EVENTS_URL). */
  startService(env?: Record<string, string>): Promise<ServiceProcess>;
  /** Starts one more gateway in front of `serviceUrl`. */
  startGateway(serviceUrl: string): Promise<GatewayProcess>;
  /** Everything every process printed, for a failing assertion's message. */
  output(): string;
  close(): Promise<void>;
}

export interface ScaleOptions {
  readonly broker: 'redis' | 'nats';
  /** Variables every process gets on top of the doc's (limits, log level). */
  readonly env?: Record<string, string>;
}

/** Starts the documented deployment; `undefined` when MariaDB is unreachable and REQUIRE_MYSQL is not 1. */
export async function startScaleDeployment(options: ScaleOptions): Promise<ScaleDeployment | undefined> {
  const example = await readShellExample('docs/scaling-out.md', 'scale-example');
  assertOneHostPorts(example, 'docs/scaling-out.md');
  const database = await createTestMysqlDatabase();
  if (!database) return undefined;
  const cleanups: (() => Promise<unknown>)[] = [() => database.drop()];
  const children: Child[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.allSettled(children.map((child) => child.stop()));
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const s3 = await startS3rver();
    cleanups.push(() => s3.close());
    const redis = await startRedis();
    cleanups.push(() => redis.close());
    const events = options.broker === 'redis' ? redis : await startNats();
    if (events !== redis) cleanups.push(() => events.close());
    const secret = randomBytes(32).toString('base64url');
    const dataRoot = await mkdtemp(join(tmpdir(), 'switchyard-scale-'));
    cleanups.push(() => rm(dataRoot, { recursive: true, force: true }));

    // The doc's values, swapped for this run's own.
    const swaps: Record<string, string> = {
      ...storageSwaps(database, s3),
      AUTH_SECRET: secret,
      URL_SIGNING_KEYS: `k1:${randomBytes(32).toString('base64url')}`,
      EVENTS_URL: events.url,
    };
    // With NATS carrying changes, limits stay on Redis, named on their own (as the doc says under the example).
    const limitsOwnRedis: Record<string, string> = events === redis ? {} : { RATE_LIMIT_REDIS_URL: redis.url };
    const own = { HOST: '127.0.0.1', LOG_LEVEL: 'warn', METRICS_PORT: '0', ...limitsOwnRedis, ...options.env };
    const ports = new Map<string, string>();
    const swapped = (env: Readonly<Record<string, string>>): Record<string, string> => {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(env)) out[name] = swaps[name] ?? value;
      return out;
    };
    let serviceCount = 0;

    const startService = async (env: Readonly<Record<string, string>>): Promise<ServiceProcess> => {
      const dataDir = join(dataRoot, `service-${++serviceCount}`);
      const child = new Child(['service'], cleanEnv({ DATA_DIR: dataDir, ...env }));
      children.push(child);
      const [, address] = await child.waitFor(/listening on (\S+:\d+)/);
      const [, metricsUrl] = await child.waitFor(/metrics at (http:\/\/\S+?)\)/);
      return { child, address: address!, metricsUrl: metricsUrl! };
    };
    const startGateway = async (env: Readonly<Record<string, string>>): Promise<GatewayProcess> => {
      const child = new Child(['gateway'], cleanEnv(env));
      children.push(child);
      const [, url, metricsUrl] = await child.waitFor(/gateway listening on (http:\/\/\S+:\d+) .*metrics at (http:\/\/\S+?)\)/);
      return { child, url: url!, metricsUrl: metricsUrl! };
    };

    const services: ServiceProcess[] = [];
    const gateways: GatewayProcess[] = [];
    let sharedEnv: Record<string, string> = {};
    for (const line of example.processes) {
      sharedEnv = { ...swapped(line.shared), ...own };
      if (line.command === 'service') {
        const docPort = line.env['GRPC_PORT'] ?? '50051';
        const port = String(await freePort());
        // Free ports for this run: the doc's own (checked apart above) may be taken on a test machine.
        const service = await startService({ ...sharedEnv, ...line.env, GRPC_PORT: port, METRICS_PORT: '0' });
        ports.set(docPort, service.address.split(':').at(-1)!);
        services.push(service);
      } else if (line.command === 'gateway') {
        const env: Record<string, string> = { ...sharedEnv, ...line.env, PORT: '0', METRICS_PORT: '0' };
        if (env['SERVICE_URL']) env['SERVICE_URL'] = withLoopbackPorts(env['SERVICE_URL'], ports);
        gateways.push(await startGateway(env));
      } else {
        throw new Error(`the example runs npm run ${line.command}, which this test does not know`);
      }
    }

    const deployment: ScaleDeployment = {
      services,
      gateways,
      events,
      limits: redis,
      s3,
      databaseUrl: database.url,
      secret,
      env: sharedEnv,
      token: (workspace) => mintToken(secret, { workspace }),
      startService: (env = {}) => startService({ ...sharedEnv, GRPC_PORT: '0', ...env }),
      startGateway: (serviceUrl) => startGateway({ ...sharedEnv, PORT: '0', SERVICE_URL: serviceUrl }),
      output: () => children.map((child, index) => `--- process ${index + 1}\n${child.output}`).join('\n'),
      close: closeAll,
    };
    return deployment;
  } catch (error) {
    const printed = children.map((child) => child.output).join('\n');
    await closeAll();
    throw new Error(`the scale deployment did not start: ${(error as Error).message}\n${printed}`, { cause: error });
  }
}

/** The value of a counter or gauge in a Prometheus text scrape, summed over its label sets (0 when absent). */
export async function scrapeMetric(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? ([0-9.eE+-]+|NaN)$/.exec(line);
    if (match?.[1] === name) total += Number(match[3]);
  }
  return total;
}

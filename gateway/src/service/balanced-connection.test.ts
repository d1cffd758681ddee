// The DNS form of SERVICE_URL on real sockets: small grpc-js servers on
// 127.0.0.1, 127.0.0.2 and 127.0.0.3 (one port, as pods behind a headless
// Service), a name resolved by an injected lookup whose answer the test
// changes, and the real health and GetAsset calls.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { fromBinary, toBinary, create, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { Server, ServerCredentials, type MethodDefinition, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import {
  AssetSchema,
  AssetService,
  GetAssetRequestSchema,
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from '@switchyard/proto';
import { createLogger, Refusal, Registry } from '@switchyard/runtime';
import { parseServiceTargets } from './address-list.js';
import { connectBalanced } from './balanced-connection.js';

function method<I extends DescMessage, O extends DescMessage>(
  path: string,
  input: I,
  output: O,
): MethodDefinition<MessageShape<I>, MessageShape<O>> {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: (message) => Buffer.from(toBinary(input, message)),
    requestDeserialize: (bytes: Buffer) => fromBinary(input, bytes),
    responseSerialize: (message) => Buffer.from(toBinary(output, message)),
    responseDeserialize: (bytes: Buffer) => fromBinary(output, bytes),
  };
}

const HEALTH = { Check: method('/grpc.health.v1.Health/Check', HealthCheckRequestSchema, HealthCheckResponseSchema) };
const ASSETS = { GetAsset: method('/switchyard.v1.AssetService/GetAsset', GetAssetRequestSchema, AssetSchema) };

/** A service stand-in on `host:port`: answers GetAsset with its own host as the label, and health as told. */
class StandIn {
  serving = true;
  /** Accepts calls and never answers them, as a process stopped (SIGSTOP) or wedged would. */
  hung = false;
  readonly server = new Server();
  constructor(readonly host: string) {
    this.server.addService(HEALTH, {
      Check: (_call: ServerUnaryCall<unknown, unknown>, reply: sendUnaryData<unknown>) =>
        this.hung ||
        reply(null, create(HealthCheckResponseSchema, { status: this.serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING })),
    });
    this.server.addService(ASSETS, {
      GetAsset: (_call: ServerUnaryCall<unknown, unknown>, reply: sendUnaryData<unknown>) =>
        this.hung || reply(null, create(AssetSchema, { id: 'a', label: this.host })),
    });
  }

  bind(port: number): Promise<number> {
    return new Promise((resolve, reject) =>
      this.server.bindAsync(`${this.host}:${port}`, ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
  }
}

async function until(what: string, check: () => Promise<boolean>, withinMs = 15_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await sleep(50);
  }
}

test('a DNS name is resolved to every address, re-resolved as it changes, and calls spread over the healthy ones; one that stops answering is taken out', async (t) => {
  t.timeout(90_000);
  const standIns = ['127.0.0.1', '127.0.0.2', '127.0.0.3'].map((host) => new StandIn(host));
  const port = await standIns[0]!.bind(0);
  for (const standIn of standIns.slice(1)) await standIn.bind(port);
  t.teardown(() => standIns.forEach((standIn) => standIn.server.forceShutdown()));

  let answer = ['127.0.0.1', '127.0.0.2'];
  const looked: string[] = [];
  const targets = parseServiceTargets(`http://switchyard-service.test:${port}`);
  if (targets instanceof Refusal) return void t.fail(targets.reason);
  const lines: string[] = [];
  const metrics = new Registry();
  const connection = connectBalanced(targets, {
    lookup: async (host) => (looked.push(host), answer),
    resolveIntervalMs: 200,
    log: createLogger('info', { write: (line: string) => void lines.push(line) }),
    metrics,
  });
  t.teardown(() => connection.close());
  const assets = createClient(AssetService, connection.transport);
  const healthy = async () => (await metrics.getSingleMetric('switchyard_gateway_service_connections_healthy')!.get()).values[0]?.value;
  /** Which stand-ins answer 12 calls in a row. */
  const answering = async (): Promise<string[]> => {
    const hosts = new Set<string>();
    for (let i = 0; i < 12; i++) hosts.add((await assets.getAsset({ id: 'a' })).label);
    return [...hosts].sort();
  };

  t.deepEqual(await answering(), ['127.0.0.1', '127.0.0.2']);
  t.true(looked.every((host) => host === 'switchyard-service.test'));
  await until('two healthy connections', async () => (await healthy()) === 2);

  answer = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
  await until('the new address takes calls', async () => (await answering()).length === 3);

  standIns[1]!.serving = false;
  await until('the NOT_SERVING one is out', async () => (await healthy()) === 2);
  t.deepEqual(await answering(), ['127.0.0.1', '127.0.0.3']);
  t.true(
    lines.some(
      (line) => line.includes('service taken out of rotation') && line.includes(`127.0.0.2:${port}`) && line.includes('NOT_SERVING'),
    ),
  );

  standIns[1]!.serving = true;
  await until('it comes back', async () => (await answering()).length === 3);
  t.true(lines.some((line) => line.includes('service back in rotation') && line.includes(`127.0.0.2:${port}`)));

  // Probed every 2 s with a 1.5 s timeout (HEALTH_TIMINGS): out within 3.5 s; 8 s leaves room for a loaded machine,
  // and still fails a check left to HTTP/2 pings (every 30 s) or grpc-js's 20 s keepalive.
  standIns[0]!.hung = true;
  await until('the one that stopped answering is out', async () => (await healthy()) === 2, 8_000);
  t.deepEqual(await answering(), ['127.0.0.2', '127.0.0.3']);
  t.true(
    lines.some(
      (line) => line.includes('service taken out of rotation') && line.includes(`127.0.0.1:${port}`) && line.includes('timed out'),
    ),
  );

  answer = ['127.0.0.3'];
  await until('addresses gone from DNS take no calls', async () => (await answering()).join() === '127.0.0.3');
});

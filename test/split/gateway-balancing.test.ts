// A gateway whose SERVICE_URL lists three service processes on one MariaDB
// database and one bucket: calls spread over all three; a service killed with
// SIGKILL under a steady read load is taken out while reads go on through
// the others; restarted, it comes back; an upload whose service dies answers
// 503 and is sent nowhere else. Skipped only when MySQL is unreachable and not
// required (REQUIRE_MYSQL=1).
import test from 'ava';
import { request } from 'node:http';
import { createGatewayLogger, loadGatewayConfig, startGateway, type GatewayHandle } from '@switchyard/gateway';
import { Registry } from '@switchyard/runtime';
import { mysqlS3Deployment, ServiceProcess, type Deployment } from '../hardening/support/deployments.js';
import { multipartBody } from '../rest/support/http.js';
import { mintToken } from '../rest/support/tokens.js';
import { eventually } from '../support/eventually.js';
import { freshWorkspace } from '../rest/support/stack.js';
import { stillReachable, testNeedingMysql } from '../support/mysql.js';

const mysqlTest = await testNeedingMysql();

let deployment: Deployment | undefined;
test.before(async () => {
  deployment = stillReachable(await mysqlS3Deployment());
});
test.after.always(async () => {
  await deployment?.cleanup();
});

interface Service {
  process: ServiceProcess;
  metricsUrl: string;
}

async function startServices(count: number, extra: Record<string, string> = {}): Promise<Service[]> {
  return Promise.all(Array.from({ length: count }, () => startService(extra)));
}

async function startService(extra: Record<string, string> = {}): Promise<Service> {
  const process = await ServiceProcess.start(deployment!, extra);
  const [, metricsUrl] = await process.child.waitFor(/metrics at (http:\/\/\S+?)\)/);
  return { process, metricsUrl: metricsUrl! };
}

/** The service's own count of `method` calls started (grpc_server_started_total). */
async function started(service: Service, method: string): Promise<number> {
  const text = await (await fetch(service.metricsUrl)).text();
  const line = text
    .split('\n')
    .find((entry) => entry.startsWith('grpc_server_started_total{') && entry.includes(`grpc_method="${method}"`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

interface Gateway {
  handle: GatewayHandle;
  lines: string[];
  metrics: Registry;
  gauge(): Promise<number>;
}

async function startBalancedGateway(serviceUrl: string): Promise<Gateway> {
  const lines: string[] = [];
  const metrics = new Registry();
  const log = createGatewayLogger('info', { write: (line: string) => void lines.push(line) });
  const config = loadGatewayConfig({ HOST: '127.0.0.1', PORT: '0', SERVICE_URL: serviceUrl, CDN_URL: 'http://cdn.test/files' });
  const handle = await startGateway(config, { serviceUrl: config.serviceUrl!, log, metrics, shutdownTimeoutMs: 2_000 });
  const gauge = async () => (await metrics.getSingleMetric('switchyard_gateway_service_connections_healthy')!.get()).values[0]?.value ?? 0;
  return { handle, lines, metrics, gauge };
}

/** Generous: it catches what never happens (a service never taken out or back); how soon is not this test's. */
const DEADLINE_MS = 20_000;

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  await eventually(check, { timeout: DEADLINE_MS, message: what });
}

async function uploadPixel(gateway: Gateway, headers: Record<string, string>): Promise<string> {
  const form = new FormData();
  form.set(
    'file',
    new Blob([Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64')], {
      type: 'image/png',
    }),
    'pixel.png',
  );
  const response = await fetch(`${gateway.handle.url}/v1/assets/upload`, { method: 'POST', headers, body: form });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

mysqlTest.serial(
  'reads spread over every service; one killed under load is taken out, reads go on, and it comes back when restarted',
  async (t) => {
    t.timeout(180_000);
    const services = await startServices(3);
    const gateway = await startBalancedGateway(services.map((service) => `http://${service.process.address}`).join(','));
    try {
      const headers = { authorization: `Bearer ${await mintToken(deployment!.secret, { workspace: freshWorkspace('balance') })}` };
      const id = await uploadPixel(gateway, headers);
      const read = async (): Promise<number> => (await fetch(`${gateway.handle.url}/v1/assets/${id}`, { headers })).status;

      // Spread: 90 reads, each service's own count.
      const before = await Promise.all(services.map((service) => started(service, 'GetAsset')));
      for (let i = 0; i < 90; i++) t.is(await read(), 200);
      const counts = (await Promise.all(services.map((service) => started(service, 'GetAsset')))).map(
        (count, index) => count - before[index]!,
      );
      t.log('GetAsset per service', counts);
      t.is(
        counts.reduce((sum, count) => sum + count, 0),
        90,
      );
      for (const count of counts) t.true(count >= 20, `every service takes its share: ${counts.join(', ')}`);
      await until('three healthy connections', async () => (await gateway.gauge()) === 3);

      // Steady load: four readers; the first service is killed once 20 reads are done.
      const outcomes: { at: number; status: number }[] = [];
      let stopping = false;
      const readers = Array.from({ length: 4 }, async () => {
        while (!stopping) {
          const at = performance.now();
          outcomes.push({ at, status: await read().catch(() => 0) });
        }
      });
      await until('20 reads before the kill', () => outcomes.length >= 20);
      const victim = services[0]!;
      const killedAt = performance.now();
      await victim.process.kill();
      await until('the killed service is out', async () => (await gateway.gauge()) === 2);
      // Order, not elapsed time: reads that start once the gateway has taken the service out must all succeed.
      const outAt = performance.now();
      t.true(
        gateway.lines.some((line) => line.includes('service taken out of rotation') && line.includes(victim.process.address)),
        'the removal is logged',
      );
      const startedAfterOut = () => outcomes.filter((outcome) => outcome.at >= outAt);
      await until('40 reads after the removal', () => startedAfterOut().length >= 40);
      stopping = true;
      await Promise.all(readers);

      const afterKill = outcomes.filter((outcome) => outcome.at >= killedAt);
      const failed = afterKill.filter((outcome) => outcome.status !== 200);
      t.log(`${outcomes.length} reads, ${afterKill.length} after the kill, ${failed.length} of those failed`);
      t.true(startedAfterOut().length >= 40, `reads went on after the removal (${startedAfterOut().length})`);
      t.deepEqual(
        startedAfterOut().filter((outcome) => outcome.status !== 200),
        [],
        'no read started after the service was taken out fails',
      );

      // Restarted on its port, it is found again and takes reads.
      const port = victim.process.address.split(':').pop()!;
      const revived = await startService({ GRPC_PORT: port });
      services[0] = revived;
      await until('the restarted service is back', async () => (await gateway.gauge()) === 3);
      t.true(
        gateway.lines.some((line) => line.includes('service back in rotation') && line.includes(victim.process.address)),
        'the return is logged',
      );
      for (let i = 0; i < 30; i++) t.is(await read(), 200);
      t.true((await started(revived, 'GetAsset')) >= 5, 'the restarted service takes reads');
    } finally {
      await gateway.handle.close();
      await Promise.all(services.map((service) => service.process.stop()));
    }
  },
);

mysqlTest.serial('an upload whose service dies answers 503 with the error body and is sent to no other service', async (t) => {
  t.timeout(120_000);
  const services = await startServices(2);
  const gateway = await startBalancedGateway(services.map((service) => `http://${service.process.address}`).join(','));
  try {
    const headers = { authorization: `Bearer ${await mintToken(deployment!.secret, { workspace: freshWorkspace('balance-up') })}` };
    await until('two healthy connections', async () => (await gateway.gauge()) === 2);
    const boundary = 'balancing-boundary';
    const head = multipartBody(boundary, [{ name: 'file', filename: 'big.bin', body: Buffer.alloc(256 * 1024, 7) }], false);
    const url = new URL(`${gateway.handle.url}/v1/assets/upload`);
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', (error) => setImmediate(() => reject(error)));
      // The body is never finished: the upload is in flight when its service dies.
      req.write(head);
    });
    let holder: Service | undefined;
    await until('a service holds the upload', async () => {
      for (const service of services) if ((await started(service, 'UploadAsset')) > 0) holder = service;
      return holder !== undefined;
    });
    await holder!.process.kill();
    const { status, body } = await answer;
    t.is(status, 503);
    t.like(JSON.parse(body), { code: 'unavailable', message: 'the service is unavailable; try again later' });
    const other = services.find((service) => service !== holder)!;
    t.is(await started(other, 'UploadAsset'), 0, 'the upload was not sent again');
  } finally {
    await gateway.handle.close();
    await Promise.all(services.map((service) => service.process.stop()));
  }
});

mysqlTest.serial('SERVICE_URL naming localhost reaches the service through the balanced path', async (t) => {
  t.timeout(60_000);
  const [service] = await startServices(1);
  const port = service!.process.address.split(':').pop()!;
  const gateway = await startBalancedGateway(`http://localhost:${port}`);
  try {
    const headers = { authorization: `Bearer ${await mintToken(deployment!.secret, { workspace: freshWorkspace('balance-dns') })}` };
    const id = await uploadPixel(gateway, headers);
    for (let i = 0; i < 10; i++) t.is((await fetch(`${gateway.handle.url}/v1/assets/${id}`, { headers })).status, 200);
    await until('the service is healthy', async () => (await gateway.gauge()) === 1);
    t.is((await fetch(`${gateway.handle.url}/healthz`)).status, 200);
  } finally {
    await gateway.handle.close();
    await service!.process.stop();
  }
});

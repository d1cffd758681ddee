// The service and gateway apart of docs/operations.md ("Deploying"), run as
// printed: its `export` lines and its two `npm run` lines, with the doc's
// addresses and secrets swapped for this run's own (a fresh MariaDB database,
// s3rver, free ports, and the gateway's own /files as CDN_URL so the urls the
// service makes can be fetched).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGatewayConfig } from '@switchyard/gateway';
import { loadStandaloneServiceConfig } from '@switchyard/service';
import { fixture, sha256 } from '../rest/support/fixtures.js';
import { fixtureFile, form, json } from '../rest/support/http.js';
import { Child, cleanEnv } from '../rest/support/processes.js';
import { mintToken } from '../rest/support/tokens.js';
import { freePort } from '../support/free-port.js';
import { createTestMysqlDatabase, mysqlReachable, stillReachable, testNeedingMysql } from '../support/mysql.js';
import { startS3rver } from '../support/s3rver.js';
import { assertOneHostPorts, DEFAULT_PORTS, readShellExample, storageSwaps, withLoopbackPorts } from '../support/shell-example.js';

const mysqlTest = await testNeedingMysql();

const PAGE = 'docs/operations.md';
const MARKER = 'split-example';

/** Variables that name a port; each port the doc names becomes a free one. */
const PORT_VARIABLES = ['GRPC_PORT', 'PORT', 'METRICS_PORT'];
/** METRICS_PORT when a line names none. */
const DEFAULT_METRICS_PORT = DEFAULT_PORTS.service.METRICS_PORT;

interface SplitDeployment {
  readonly gatewayUrl: string;
  /** The CDN_URL both processes were given: the gateway's own /files. */
  readonly cdnUrl: string;
  readonly secret: string;
  output(): string;
  close(): Promise<void>;
}

/** Starts the example's processes in order; `undefined` when MariaDB is unreachable and REQUIRE_MYSQL is not 1. */
async function startSplitExample(): Promise<SplitDeployment | undefined> {
  const example = await readShellExample(PAGE, MARKER);
  const database = await createTestMysqlDatabase();
  if (!database) return undefined;
  const children: Child[] = [];
  const cleanups: (() => Promise<unknown>)[] = [() => database.drop()];
  const close = async (): Promise<void> => {
    await Promise.allSettled(children.map((child) => child.stop()));
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  const output = (): string => children.map((child) => `--- npm run ${child.process.spawnargs.at(-1)}\n${child.output}`).join('\n');
  try {
    const s3 = await startS3rver();
    cleanups.push(() => s3.close());
    const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-split-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

    // Every port the doc names, mapped to a free one before anything starts:
    // the service is told the gateway's address (CDN_URL) before the gateway runs.
    const ports = new Map<string, string>([[DEFAULT_METRICS_PORT, String(await freePort())]]);
    for (const line of example.processes) {
      for (const name of PORT_VARIABLES) {
        const port = line.env[name] ?? line.shared[name];
        if (port !== undefined && !ports.has(port)) ports.set(port, String(await freePort()));
      }
    }
    const gatewayLine = example.processes.find((line) => line.command === 'gateway');
    const gatewayPort = ports.get(gatewayLine?.env['PORT'] ?? '');
    if (gatewayPort === undefined) throw new Error('the example runs no gateway with its PORT');
    const cdnUrl = `http://127.0.0.1:${gatewayPort}/files`;
    const secret = randomBytes(32).toString('base64url');
    const swaps: Record<string, string> = {
      ...storageSwaps(database, s3),
      AUTH_SECRET: secret,
      CDN_URL: cdnUrl,
    };
    const swapped = (name: string, value: string): string =>
      swaps[name] ?? (PORT_VARIABLES.includes(name) ? ports.get(value)! : withLoopbackPorts(value, ports));
    // A line that names no METRICS_PORT gets the default, swapped like the doc's own ports: two such
    // lines collide here as they would on a reader's host. Quiet logs and a data folder are the run's own.
    const own = { METRICS_PORT: ports.get(DEFAULT_METRICS_PORT)!, LOG_LEVEL: 'warn', DATA_DIR: dataDir };

    let gatewayUrl: string | undefined;
    for (const line of example.processes) {
      const env: Record<string, string> = { ...own };
      for (const [name, value] of Object.entries({ ...line.shared, ...line.env })) env[name] = swapped(name, value);
      const child = new Child([line.command], cleanEnv(env));
      children.push(child);
      if (line.command === 'service') await child.waitFor(/listening on (\S+:\d+)/);
      else if (line.command === 'gateway') [, gatewayUrl] = await child.waitFor(/gateway listening on (http:\/\/\S+:\d+)/);
      else throw new Error(`the example runs npm run ${line.command}, which this test does not know`);
    }
    if (gatewayUrl === undefined) throw new Error('the example started no gateway');
    return { gatewayUrl, cdnUrl, secret, output, close };
  } catch (error) {
    const printed = output();
    await close();
    throw new Error(`the example of docs/operations.md did not start: ${(error as Error).message}\n${printed}`, { cause: error });
  }
}

// The run's swaps would hide a placeholder (`AUTH_SECRET=...`): the doc's own values must pass the checks a reader's run meets first.
test('the example as printed, before any swap, is a configuration the service and the gateway accept', async (t) => {
  const example = await readShellExample(PAGE, MARKER);
  t.deepEqual(
    example.processes.map((line) => line.command),
    ['service', 'gateway'],
  );
  t.notThrows(() => assertOneHostPorts(example, PAGE), 'no two processes listen on one port');
  const load = { service: loadStandaloneServiceConfig, gateway: loadGatewayConfig };
  for (const line of example.processes) {
    t.notThrows(() => load[line.command as keyof typeof load]({ ...line.shared, ...line.env }), `npm run ${line.command}`);
  }
});

let deployment: SplitDeployment | undefined;
test.before(async () => {
  // With MySQL unreachable, the test of the example as printed still runs this hook.
  if (await mysqlReachable()) deployment = stillReachable(await startSplitExample());
});
test.after.always(async () => deployment?.close());

const auth = async (secret: string, workspace: string) => ({ authorization: `Bearer ${await mintToken(secret, { workspace })}` });

mysqlTest.serial('the gateway is ready: /healthz reaches the service, and through it the database and the bucket', async (t) => {
  if (!deployment) return t.fail('the before hook started no deployment');
  const health = await fetch(`${deployment.gatewayUrl}/healthz`);
  t.is(health.status, 200, deployment.output());
  t.deepEqual(await json(health), { status: 'SERVING' });
});

mysqlTest.serial('an upload through the gateway is 201, and its url, under CDN_URL, serves the same bytes', async (t) => {
  if (!deployment) return t.fail('the before hook started no deployment');
  const png = await fixture('image.png');
  const uploaded = await fetch(`${deployment.gatewayUrl}/v1/assets/upload`, {
    method: 'POST',
    headers: await auth(deployment.secret, 'split-assets'),
    body: form([['file', await fixtureFile('image.png')]]),
  });
  t.is(uploaded.status, 201, deployment.output());
  const asset = await json<{ id: string; url: string }>(uploaded);
  t.true(asset.url.startsWith(`${deployment.cdnUrl}/${asset.id}/`), asset.url);
  const served = await fetch(asset.url);
  t.is(served.status, 200);
  t.is(sha256(new Uint8Array(await served.arrayBuffer())), png.sha256);
});

mysqlTest.serial('a route created through the gateway is read back from the shared database', async (t) => {
  if (!deployment) return t.fail('the before hook started no deployment');
  const headers = await auth(deployment.secret, 'split-routes');
  const created = await fetch(`${deployment.gatewayUrl}/v1/routing`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: '/users/:id', handler: 'getUser' }),
  });
  t.is(created.status, 201, deployment.output());
  const route = await json<{ id: string }>(created);
  const read = await fetch(`${deployment.gatewayUrl}/v1/routing/${route.id}`, { headers });
  t.is(read.status, 200);
  t.deepEqual(await json(read), route);
});

// The packages as users get them: every public workspace packed with `npm pack`,
// installed from the tarballs into fresh projects outside the repository (no
// TypeScript, no tsx), and used there the way the README says: the code samples
// and commands of the package READMEs run there too (support/readme-samples.ts
// lists them; readme-samples.test.ts checks the lists against the READMEs).
import test from 'ava';
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../support/cli.js';
import { freePort } from '../support/free-port.js';
import { EMBEDDING_OUTPUT, readmeEmbeddingExample } from '../support/readme.js';
import { Background } from '../support/background.js';
import { CONSUMER_FILES } from './support/consumer.js';
import { CLIENT_ROUND_TRIP } from './support/client-round-trip.js';
import {
  DISPATCH_SERVER,
  GATEWAY,
  PRINTING_PROGRAMS,
  printedCommand,
  printedProgram,
  SERVICE,
  START,
  TOKEN,
  withAddresses,
  type PrintedCommand,
} from './support/readme-samples.js';
import { asJavaScript, compiled, sampleFolder } from './support/sample-programs.js';
import { freshProject, installedPackages, packInstalled, packWorkspaces, run, sizeOnDisk, writeFiles } from './support/tarballs.js';
import { firstAnswer } from '../support/first-answer.js';
import { eventually } from '../support/eventually.js';

/** What an embedder of the core alone must never receive: transports, databases, cloud SDKs, logging, test runners. */
const FORBIDDEN_IN_CORE_INSTALL = [
  /^@grpc\//,
  /^@connectrpc\//,
  /^kysely$/,
  /^mysql2$/,
  /^better-sqlite3$/,
  /^@aws-sdk\//,
  /^pino/,
  /^(ava|jest|mocha|vitest)$/,
];

const PUBLIC_PACKAGES = [
  '@switchyard/core',
  '@switchyard/service',
  '@switchyard/gateway',
  '@switchyard/client',
  '@switchyard/dispatch',
  'switchyard',
];

const tarballs = packWorkspaces();
const tarball = async (name: string) => {
  const path = (await tarballs).get(name);
  if (path === undefined) throw new Error(`npm pack made no tarball for ${name}`);
  return path;
};
/** Every tarball a full install needs: the public packages and the internal ones they depend on. */
const allTarballs = async () => [...(await tarballs).values()];

/** What dispatch/README.md's sample serves with besides Switchyard's packages. */
const HONO = ['hono', '@hono/node-server'];

/** One project with every package installed, shared by the tests that need it; made on first use. */
let fullInstall: Promise<string> | undefined;
const fullProject = () =>
  (fullInstall ??= (async () => {
    const project = await freshProject('full', [...(await allTarballs()), ...(await packInstalled(HONO))]);
    if (project.install.code !== 0) throw new Error(`installing every tarball failed:\n${project.install.output}`);
    await writeFiles(project.dir, CONSUMER_FILES);
    return project.dir;
  })());

/** Commands left running, stopped after the tests. */
const running: Background[] = [];
test.after.always(() => {
  for (const command of running) void command.stop();
});

/**
 * A README's command, left running, with the environment a test gives it; the variables it
 * prints win, as a shell's would, with the printed addresses swapped for `addresses`.
 */
const inBackground = async (printed: PrintedCommand, cwd: string, env: NodeJS.ProcessEnv, addresses?: { grpc: string; rest: string }) => {
  const { env: printedEnv, argv } = await printedCommand(printed);
  const swapped = Object.fromEntries(
    Object.entries(printedEnv).map(([name, value]) => [name, addresses === undefined ? value : withAddresses(value, addresses)]),
  );
  const command = new Background(argv, { cwd, env: { ...process.env, ...env, ...swapped } });
  running.push(command);
  return command;
};

interface Server {
  rest: string;
  grpc: string;
  /** From cli/README.md's `npx switchyard token --workspace demo`. */
  token: string;
}

/**
 * cli/README.md's `npx switchyard start`, run as printed in the full project (its data in
 * ./data there) with free ports chosen by the environment, and a token from its
 * `npx switchyard token`; shared by the tests that call a server, made on first use.
 */
let server: Promise<Server> | undefined;
const startedServer = () =>
  (server ??= (async () => {
    const dir = await fullProject();
    const env = { PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    const start = await inBackground(START, dir, env);
    const rest = (await start.waitFor(/REST gateway\s+(\S+)/))[1]!;
    const grpc = `http://${(await start.waitFor(/gRPC service\s+(\S+)/))[1]!.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}`;
    const { env: tokenEnv, argv } = await printedCommand(TOKEN);
    const token = await run(argv[0]!, argv.slice(1), { cwd: dir, env: { ...process.env, ...env, ...tokenEnv } });
    if (token.code !== 0) throw new Error(`${TOKEN.command} failed:\n${token.output}`);
    return { rest, grpc, token: token.stdout.trim() };
  })());

test('npm pack makes a tarball of every public package', async (t) => {
  const packed = await tarballs;
  for (const name of PUBLIC_PACKAGES) t.true(packed.has(name), `${name} is packed`);
});

test('a core-only install pulls in no transport, driver, cloud SDK, logger or test runner, and the README example runs on it with node', async (t) => {
  t.timeout(5 * 60_000);
  const { dir, install } = await freshProject('core-only', [await tarball('@switchyard/core')]);
  t.is(install.code, 0, install.output);

  const installed = await installedPackages(dir);
  const forbidden = [...installed.keys()].filter((name) => FORBIDDEN_IN_CORE_INSTALL.some((pattern) => pattern.test(name)));
  t.deepEqual(forbidden, [], `forbidden packages in a core-only install: ${forbidden.join(', ')}`);
  t.false(installed.has('sharp'), 'sharp is an optional peer: not installed unless asked for');
  t.log(
    `core-only install: ${installed.size} packages, ${((await sizeOnDisk(join(dir, 'node_modules'))) / 1024 / 1024).toFixed(1)} MiB in node_modules`,
  );

  // The example as the README prints it, without sharp: everything but image dimensions works.
  const program = await readmeEmbeddingExample();
  if (program === undefined) return t.fail('README.md has no embedding example');
  await writeFiles(dir, { 'app.mjs': program });
  await copyFile(join(ROOT, 'test/fixtures/image.png'), join(dir, 'logo.png'));
  const example = await run(process.execPath, ['app.mjs'], { cwd: dir });
  t.is(example.code, 0, example.output);
  t.regex(example.stdout, EMBEDDING_OUTPUT);
});

test('a TypeScript consumer type-checks against the shipped declarations (nodenext, strict): core, a custom adapter proved by @switchyard/core/testing, and the client', async (t) => {
  t.timeout(5 * 60_000);
  const dir = await fullProject();
  // The repository's compiler, from outside: the project itself has no TypeScript.
  const typeCheck = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir });
  t.is(typeCheck.code, 0, typeCheck.output);
});

test('a custom adapter written in the consumer project passes the conformance suite under node:test', async (t) => {
  t.timeout(5 * 60_000);
  const dir = await fullProject();
  const suite = await run(process.execPath, ['--test', '--test-reporter=tap', 'map-route-store.test.mjs'], { cwd: dir });
  t.is(suite.code, 0, suite.output);
  t.regex(suite.output, /^# fail 0$/m);
  t.regex(suite.output, /^# pass [1-9]\d*$/m);
});

test('@switchyard/dispatch from its tarball: node:http serves a route created in the core it follows, with its middleware, and 404s the rest', async (t) => {
  t.timeout(5 * 60_000);
  const dir = await fullProject();
  const app = await run(process.execPath, ['dispatch-app.mjs'], { cwd: dir });
  t.is(app.code, 0, app.output);
  t.regex(app.stdout, /^200 seen \{"id":"42","revision":1\}\n404\n$/);
});

test('`npx switchyard start` serves on free ports: /healthz answers, and the client creates a route and uploads a file (also resumably) over gRPC and Connect', async (t) => {
  t.timeout(5 * 60_000);
  const dir = await fullProject();
  const { rest, grpc, token } = await startedServer();

  const health = await fetch(`${rest}/healthz`);
  t.is(health.status, 200, await health.clone().text());

  await writeFiles(dir, { 'round-trip.mjs': CLIENT_ROUND_TRIP });
  await copyFile(join(ROOT, 'test/fixtures/image.png'), join(dir, 'logo.png'));
  for (const protocol of ['grpc', 'connect'] as const) {
    const baseUrl = protocol === 'grpc' ? grpc : rest;
    const roundTrip = await run(process.execPath, ['round-trip.mjs', protocol, baseUrl, token], { cwd: dir });
    t.is(roundTrip.code, 0, `${protocol}: ${roundTrip.output}`);
    t.regex(
      roundTrip.stdout,
      new RegExp(
        `^${protocol} route rt_[0-9a-z]{26} GET /${protocol}/users/:id\\n${protocol} asset as_[0-9a-z]{26} image/png kept its id on replace\\n${protocol} resumable as_[0-9a-z]{26} image/png same sha256\\n$`,
      ),
      protocol,
    );
  }
});

for (const program of PRINTING_PROGRAMS) {
  test(`the sample of ${program.page} that starts \`${program.first}\` runs with node in the installed project and prints what it should`, async (t) => {
    t.timeout(5 * 60_000);
    const sample = await printedProgram(program.page, program.first);
    const project = await fullProject();
    let code = await asJavaScript(sample.body, sample.lang);
    let env: NodeJS.ProcessEnv = process.env;
    if (program.callsServer) {
      const { rest, grpc, token } = await startedServer();
      code = withAddresses(code, { rest, grpc });
      env = { ...process.env, SWITCHYARD_TOKEN: token };
    }
    const name = `${program.page.split('/')[0]}-${PRINTING_PROGRAMS.indexOf(program)}`;
    const dir = await sampleFolder(project, name, { program: code, fixtures: program.fixtures });
    const result = await run(process.execPath, ['app.mjs'], { cwd: dir, env });
    t.is(result.code, 0, result.output);
    t.regex(result.stdout, program.prints, result.output);
    if (program.printsFolderHolding !== undefined)
      t.true(
        existsSync(join(result.stdout.trim(), program.printsFolderHolding)),
        `${program.printsFolderHolding} in ${result.stdout.trim()}`,
      );
  });
}

test("dispatch/README.md's Hono server, with the guide's registries as ./registry.js, serves a route of the table from the installed packages", async (t) => {
  t.timeout(5 * 60_000);
  const sample = await printedProgram(DISPATCH_SERVER.page, DISPATCH_SERVER.first);
  const project = await fullProject();
  const { rest, token } = await startedServer();
  const created = await fetch(`${rest}/v1/routing`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: '/users/:id', middleware: ['timing', 'auth'], handler: 'getUser' }),
  });
  t.is(created.status, 201, await created.clone().text());

  const dir = await sampleFolder(project, 'dispatch', {
    program: await asJavaScript(sample.body, sample.lang),
    others: { 'registry.js': await compiled(DISPATCH_SERVER.registry) },
  });
  const port = await freePort();
  const app = new Background([process.execPath, 'app.mjs'], {
    cwd: dir,
    env: { ...process.env, SWITCHYARD_URL: rest, SWITCHYARD_TOKEN: token, PORT: String(port) },
  });
  t.teardown(() => app.stop());
  const base = `http://127.0.0.1:${port}`;

  const user = await firstAnswer(`${base}/users/42`, { headers: { authorization: 'Bearer demo' } }, () => app.output);
  t.is(user.status, 200, app.output);
  t.deepEqual(await user.json(), { id: '42', name: 'Ada' });
  t.regex(user.headers.get('server-timing') ?? '', /^app;dur=\d+\.\d$/, 'the timing middleware acted after the handler');
  t.is((await fetch(`${base}/users/42`)).status, 401, 'the auth middleware answers and stops');
  t.is(await (await fetch(`${base}/health`)).text(), 'ok', "the app's own route");
  t.is((await fetch(`${base}/nowhere`)).status, 404);
});

test('service/README.md and gateway/README.md: `npx switchyard service` and `npx switchyard gateway` as printed, on free ports, and the gateway reports the service healthy', async (t) => {
  t.timeout(5 * 60_000);
  const project = await fullProject();
  // A folder of its own, so that the service's ./data is not the one of `npx switchyard start`.
  const dir = join(project, 'split');
  await mkdir(dir, { recursive: true });
  // The printed defaults (50051, 8080) move to free ports: in the printed variables, and in the ports the processes
  // bind. The gateway's port must be in CDN_URL before it binds, so it is picked, not asked of the kernel at bind
  // time: a port another test's process takes in between is picked again (up to three times), never a failure of ours.
  let addresses = { grpc: '', rest: '' };
  let gateway: Awaited<ReturnType<typeof inBackground>> | undefined;
  let service: Awaited<ReturnType<typeof inBackground>> | undefined;
  for (let attempt = 1; ; attempt++) {
    [gateway, service] = [undefined, undefined];
    const ports = { grpc: await freePort(), rest: await freePort() };
    addresses = { grpc: `http://127.0.0.1:${ports.grpc}`, rest: `http://127.0.0.1:${ports.rest}` };
    try {
      service = await inBackground(SERVICE, dir, { GRPC_PORT: String(ports.grpc), LOG_LEVEL: 'warn' }, addresses);
      t.is((await service.waitFor(/gRPC service listening on (\S+)/))[1], `127.0.0.1:${ports.grpc}`);
      gateway = await inBackground(GATEWAY, dir, { PORT: String(ports.rest), LOG_LEVEL: 'warn' }, addresses);
      const listening = await gateway.waitFor(/gateway listening on (\S+) \(files at (\S+), service at (\S+),/);
      t.deepEqual(listening.slice(1), [addresses.rest, `${addresses.rest}/files`, addresses.grpc]);
      break;
    } catch (error) {
      await gateway?.stop();
      await service?.stop();
      if (attempt === 3 || !/EADDRINUSE/.test(String(error))) throw error;
      t.log(`attempt ${attempt}: a picked port was taken before it was bound; picking again`);
    }
  }

  // The gateway answers 503 until it has reached the service.
  let health = await fetch(`${addresses.rest}/healthz`);
  await eventually(
    async () => {
      health = await fetch(`${addresses.rest}/healthz`);
      return health.status === 200;
    },
    { timeout: 30_000, interval: 200, message: 'the gateway reaching the service' },
  ).catch(() => undefined);
  t.is(health.status, 200, `${service.output}\n${gateway.output}`);
  t.deepEqual(await health.json(), { status: 'SERVING' });
});

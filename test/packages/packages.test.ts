// The packages as users get them: every public workspace packed with `npm pack`,
// installed from the tarballs into fresh projects outside the repository (no
// TypeScript, no tsx), and used there the way the README says.
import test from 'ava';
import { spawn } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../support/cli.js';
import { EMBEDDING_OUTPUT, readmeEmbeddingExample } from '../support/readme.js';
import { CONSUMER_FILES } from './support/consumer.js';
import { CLIENT_ROUND_TRIP } from './support/client-round-trip.js';
import { freshProject, installedPackages, packWorkspaces, run, sizeOnDisk, writeFiles } from './support/tarballs.js';

/** What an embedder of the core alone must never receive: transports, databases, cloud SDKs, logging, test runners. */
const FORBIDDEN_IN_CORE_INSTALL = [/^@grpc\//, /^@connectrpc\//, /^kysely$/, /^mysql2$/, /^better-sqlite3$/, /^@aws-sdk\//, /^pino/, /^(ava|jest|mocha|vitest)$/];

const PUBLIC_PACKAGES = ['@switchyard/core', '@switchyard/service', '@switchyard/gateway', '@switchyard/client', '@switchyard/dispatch', 'switchyard'];

const tarballs = packWorkspaces();
const tarball = async (name: string) => {
  const path = (await tarballs).get(name);
  if (path === undefined) throw new Error(`npm pack made no tarball for ${name}`);
  return path;
};
/** Every tarball a full install needs: the public packages and the internal ones they depend on. */
const allTarballs = async () => [...(await tarballs).values()];

/** One project with every package installed, shared by the tests that need it; made on first use. */
let fullInstall: Promise<string> | undefined;
const fullProject = () =>
  (fullInstall ??= (async () => {
    const project = await freshProject('full', await allTarballs());
    if (project.install.code !== 0) throw new Error(`installing every tarball failed:\n${project.install.output}`);
    await writeFiles(project.dir, CONSUMER_FILES);
    return project.dir;
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
  t.log(`core-only install: ${installed.size} packages, ${(await sizeOnDisk(join(dir, 'node_modules')) / 1024 / 1024).toFixed(1)} MiB in node_modules`);

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
  const env = { ...process.env, PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(dir, 'data'), AUTH_SECRET: 'packages-test-secret-at-least-32-bytes-long', LOG_LEVEL: 'warn' };
  const server = spawn('npx', ['switchyard', 'start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  t.teardown(() => {
    if (server.exitCode === null) process.kill(-server.pid!, 'SIGTERM');
  });
  let output = '';
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const addresses = await new Promise<{ rest: string; grpc: string }>((resolve, reject) => {
    server.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const rest = /REST gateway\s+(\S+)/.exec(output)?.[1];
      const grpc = /gRPC service\s+(\S+)/.exec(output)?.[1];
      if (rest && grpc) resolve({ rest, grpc: `http://${grpc.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}` });
    });
    server.on('exit', (code) => reject(new Error(`switchyard start exited with ${code}:\n${output}`)));
  });

  const health = await fetch(`${addresses.rest}/healthz`);
  t.is(health.status, 200, await health.clone().text());

  const token = await run('npx', ['switchyard', 'token', '--workspace', 'packages'], { cwd: dir, env });
  t.is(token.code, 0, token.output);
  await writeFiles(dir, { 'round-trip.mjs': CLIENT_ROUND_TRIP });
  await copyFile(join(ROOT, 'test/fixtures/image.png'), join(dir, 'logo.png'));
  for (const protocol of ['grpc', 'connect'] as const) {
    const baseUrl = protocol === 'grpc' ? addresses.grpc : addresses.rest;
    const roundTrip = await run(process.execPath, ['round-trip.mjs', protocol, baseUrl, token.stdout.trim()], { cwd: dir });
    t.is(roundTrip.code, 0, `${protocol}: ${roundTrip.output}`);
    t.regex(roundTrip.stdout, new RegExp(`^${protocol} route rt_[0-9a-z]{26} GET /${protocol}/users/:id\\n${protocol} asset as_[0-9a-z]{26} image/png kept its id on replace\\n${protocol} resumable as_[0-9a-z]{26} image/png same sha256\\n$`), protocol);
  }
});

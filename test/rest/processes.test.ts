// The deployable processes: the service and the gateway as two processes talking gRPC, and `npm start` as one
// (the compiled CLI); their configuration refusals through the CLI's main, in process.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture, sha256 } from './support/fixtures.js';
import { fixtureFile, form, json, multipartBody } from './support/http.js';
import { Child, cleanEnv } from './support/processes.js';
import { mintToken } from './support/tokens.js';
import { runCli } from '../support/cli.js';
import { freePort } from '../support/free-port.js';

async function tempDir(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-proc-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('the service alone refuses to start without CDN_URL: it cannot know the public base of file urls', async (t) => {
  const dataDir = await tempDir(t);
  const service = await runCli(['service'], cleanEnv({ GRPC_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }));
  t.not(service.code, 0);
  t.regex(service.stderr, /CDN_URL: is required for `switchyard service`/);
  t.notRegex(service.stdout + service.stderr, /listening on/);
});

test('service and gateway apart on different ports: an uploaded asset is fetched by the url it was given', async (t) => {
  const dataDir = await tempDir(t);
  const secret = randomBytes(32).toString('base64url');
  // The gateway's own /files is the public base both are told: the service makes the urls, the gateway serves them.
  const gatewayPort = await freePort();
  const cdnUrl = `http://127.0.0.1:${gatewayPort}/files`;
  const service = new Child(
    ['service'],
    cleanEnv({ GRPC_PORT: '0', DATA_DIR: dataDir, AUTH_SECRET: secret, CDN_URL: cdnUrl, LOG_LEVEL: 'warn' }),
  );
  t.teardown(() => void service.process.kill('SIGKILL'));
  const [, address] = await service.waitFor(/listening on (\S+:\d+)/);
  t.not(address!.split(':').at(-1), String(gatewayPort));
  const gateway = new Child(
    ['gateway'],
    cleanEnv({ PORT: String(gatewayPort), SERVICE_URL: `http://${address}`, CDN_URL: cdnUrl, LOG_LEVEL: 'warn' }),
  );
  t.teardown(() => void gateway.process.kill('SIGKILL'));
  const [, gatewayUrl] = await gateway.waitFor(/gateway listening on (http:\/\/\S+:\d+)/);
  const auth = { authorization: `Bearer ${await mintToken(secret, { workspace: 'apart' })}` };

  const png = await fixture('image.png');
  const uploaded = await fetch(`${gatewayUrl}/v1/assets/upload`, {
    method: 'POST',
    headers: auth,
    body: form([['file', await fixtureFile('image.png')]]),
  });
  t.is(uploaded.status, 201);
  const asset = await json<{ id: string; url: string }>(uploaded);
  t.true(asset.url.startsWith(`${cdnUrl}/${asset.id}/`) && asset.url.endsWith('.png'), asset.url);
  const served = await fetch(asset.url);
  t.is(served.status, 200);
  t.is(served.headers.get('content-type'), 'image/png');
  t.is(sha256(new Uint8Array(await served.arrayBuffer())), png.sha256);
  t.is(await gateway.stop(), 0, gateway.output);
  t.is(await service.stop(), 0, service.output);
});

test('service and gateway as separate processes: REST goes over gRPC, and a gone service is 503', async (t) => {
  const dataDir = await tempDir(t);
  const secret = randomBytes(32).toString('base64url');
  // A CDN in front of the gateway: asset urls name it, and it forwards /files/… to the gateway unchanged.
  const cdnUrl = 'https://cdn.example.test/files';
  const service = new Child(
    ['service'],
    cleanEnv({ GRPC_PORT: '0', DATA_DIR: dataDir, AUTH_SECRET: secret, CDN_URL: cdnUrl, LOG_LEVEL: 'warn' }),
  );
  t.teardown(() => void service.process.kill('SIGKILL'));
  const [, address] = await service.waitFor(/listening on (\S+:\d+)/);

  // The gateway knows nothing of storage: no DATA_DIR, no database, only where the service is.
  const gateway = new Child(['gateway'], cleanEnv({ PORT: '0', SERVICE_URL: `http://${address}`, CDN_URL: cdnUrl, LOG_LEVEL: 'warn' }));
  t.teardown(() => void gateway.process.kill('SIGKILL'));
  const [, gatewayUrl] = await gateway.waitFor(/gateway listening on (http:\/\/\S+:\d+)/);
  const auth = { authorization: `Bearer ${await mintToken(secret, { workspace: 'procs' })}` };

  t.is((await fetch(`${gatewayUrl}/healthz`)).status, 200);
  const png = await fixture('image.png');
  const uploaded = await fetch(`${gatewayUrl}/v1/assets/upload`, {
    method: 'POST',
    headers: auth,
    body: form([
      ['label', 'two processes'],
      ['file', await fixtureFile('image.png')],
    ]),
  });
  t.is(uploaded.status, 201);
  const asset = await json<{ id: string; url: string; sha256: string; label: string }>(uploaded);
  t.true(asset.url.startsWith(`${cdnUrl}/${asset.id}/`));
  t.is(asset.sha256, png.sha256);
  t.is(asset.label, 'two processes');
  const viaCdnPath = await fetch(`${gatewayUrl}${new URL(asset.url).pathname}`);
  t.is(viaCdnPath.status, 200);
  t.is(sha256(new Uint8Array(await viaCdnPath.arrayBuffer())), png.sha256);

  t.is(await service.stop(), 0, service.output);
  const health = await fetch(`${gatewayUrl}/healthz`);
  t.is(health.status, 503);
  t.is((await json(health))['code'], 'unavailable');
  const get = await fetch(`${gatewayUrl}/v1/assets/${asset.id}`, { headers: auth });
  t.is(get.status, 503);
  const body = await json<{ code: string; message: string }>(get);
  t.is(body.code, 'unavailable');
  t.notRegex(body.message, /ECONNREFUSED|127\.0\.0\.1/, 'no connection details leak');
  t.is((await fetch(`${gatewayUrl}${new URL(asset.url).pathname}`)).status, 503);

  t.is(await gateway.stop(), 0, gateway.output);
});

test('the gateway alone refuses to start without SERVICE_URL, and names bad variables', async (t) => {
  const missing = await runCli(['gateway'], cleanEnv({ PORT: '0' }));
  t.is(missing.code, 1);
  t.regex(missing.stderr, /SERVICE_URL: is required/);
  const bad = await runCli(['gateway'], cleanEnv({ PORT: 'eighty', SERVICE_URL: 'grpc://x', CORS_ORIGINS: 'https://a.example/path' }));
  t.is(bad.code, 1);
  t.regex(bad.stderr, /PORT: "eighty" is not a port number/);
  t.regex(bad.stderr, /SERVICE_URL: "grpc:\/\/x" is not an http or https URL/);
  t.regex(bad.stderr, /CORS_ORIGINS: .* is not an origin/);
});

test('npm start (all-in-one): prints its addresses, serves REST and files, finishes a request in flight on SIGTERM and exits 0', async (t) => {
  const dataDir = await tempDir(t);
  const secret = randomBytes(32).toString('base64url');
  const app = new Child(['start'], cleanEnv({ PORT: '0', GRPC_PORT: '0', DATA_DIR: dataDir, AUTH_SECRET: secret, LOG_LEVEL: 'info' }));
  t.teardown(() => void app.process.kill('SIGKILL'));
  const [banner, gatewayUrl, grpcAddress, cdnUrl, printedDataDir] = await app.waitFor(
    /REST gateway +(http:\/\/\S+)\n +gRPC service +(\S+)\n +files \(CDN\) +(\S+)\n +data dir +(\S+)/,
  );
  t.truthy(banner);
  t.regex(grpcAddress!, /^127\.0\.0\.1:\d+$/);
  t.is(cdnUrl, `${gatewayUrl}/files`, 'the default CDN_URL names the port actually bound');
  t.is(printedDataDir, dataDir);
  const [, consoleUrl, referenceUrl] = await app.waitFor(/console +(\S+)\n +API reference +(\S+)/);
  t.is(consoleUrl, `${gatewayUrl}/console/`, 'the console is on by default and its URL printed');
  t.is(referenceUrl, `${gatewayUrl}/docs`);
  t.is((await fetch(consoleUrl!)).status, 200);
  const auth = { authorization: `Bearer ${await mintToken(secret, { workspace: 'aio' })}` };

  const route = await fetch(`${gatewayUrl}/v1/routing`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: '/x', handler: 'h' }),
  });
  t.is(route.status, 201);

  // An upload is half sent when SIGTERM arrives; it must still complete.
  const boundary = 'inflight';
  const text = 'first half, then the second half of the upload\n'.repeat(200);
  const body = multipartBody(boundary, [{ name: 'file', filename: 'slow.txt', type: 'text/plain', body: text }]);
  const half = Math.floor(body.length / 2);
  const inFlight = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      `${gatewayUrl}/v1/assets/upload`,
      { method: 'POST', headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.write(body.subarray(0, half), () => {
      app.process.kill('SIGTERM');
      void app.waitFor(/shutting down/).then(() => req.end(body.subarray(half)));
    });
  });
  const finished = await inFlight;
  t.is(finished.status, 201, finished.text);
  t.is((JSON.parse(finished.text) as { size: number }).size, text.length);
  t.is(await app.exited, 0, app.output);
  t.regex(app.output, /gateway stopped[\s\S]*gRPC service stopped/, 'the gateway first, then the service');
});

test('npm start with its gRPC port taken exits 1 and says why', async (t) => {
  const dataDir = await tempDir(t);
  const blocker = createServer().listen(0, '127.0.0.1');
  await once(blocker, 'listening');
  t.teardown(() => void blocker.close());
  const taken = (blocker.address() as AddressInfo).port;
  const app = new Child(
    ['start'],
    cleanEnv({ PORT: '0', GRPC_PORT: String(taken), DATA_DIR: dataDir, AUTH_SECRET: randomBytes(32).toString('base64url') }),
  );
  t.teardown(() => void app.process.kill('SIGKILL'));
  t.is(await app.exited, 1, app.output);
  t.regex(app.output, /could not start/);
  t.regex(app.output, new RegExp(`EADDRINUSE.*${taken}`));
});

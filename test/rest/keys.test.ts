// API keys over REST, Connect, gRPC and tus, end to end on a real stack:
// made and revoked by people (workspace:admin), used by programs wherever a
// token is accepted, with the tokens' refusals, and never a secret in a log
// line, a metric or the database.
import test from 'ava';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { credentials, Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { RouteServiceClient, type ListRoutesResponse } from '@switchyard/service/gen/switchyard/v1/routes.js';
import { KeyServiceClient, type CreateKeyResponse } from '@switchyard/service/gen/switchyard/v1/keys.js';
import { eventually } from '../support/eventually.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => {
  await stack?.stop();
});

interface KeyJson {
  id: string;
  name: string;
  scopes: string[];
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  secret?: string;
}

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

async function call(path: string, init: { method?: string; body?: unknown; headers: Record<string, string> }) {
  const response = await fetch(`${stack.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...init.headers, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

async function createKey(workspace: string, scopes: string[], admin?: Record<string, string>): Promise<KeyJson> {
  const answer = await call('/v1/keys', {
    method: 'POST',
    headers: admin ?? (await stack.auth(workspace, { subject: 'alice' })),
    body: { name: 'deploy bot', scopes, expiresAt: inDays(30) },
  });
  if (answer.status !== 201) throw new Error(`create key: ${answer.status} ${JSON.stringify(answer.json)}`);
  return answer.json as unknown as KeyJson;
}

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

/** The gateway's access line of a request, by its id; written when the response closes, after the client has read it. */
const accessLine = (requestId: string) =>
  eventually(
    () =>
      stack.logLines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line['msg'] === 'request' && line['requestId'] === requestId),
    { timeout: 10_000 },
  );

test('create answers 201 with the secret once; get and list never show it', async (t) => {
  const workspace = freshWorkspace();
  const admin = await stack.auth(workspace, { subject: 'alice' });
  const created = await call('/v1/keys', {
    method: 'POST',
    headers: admin,
    body: { name: 'ci', scopes: ['routes:read'], expiresAt: inDays(7) },
  });
  t.is(created.status, 201);
  const key = created.json as unknown as KeyJson;
  t.regex(key.id, /^key_[0-9a-z]{26}$/);
  t.regex(key.secret ?? '', /^sy_[0-9A-Za-z]{36}$/);
  t.is(created.headers.get('location'), `/v1/keys/${key.id}`);
  t.is(created.headers.get('cache-control'), 'no-store');
  t.like(key, { name: 'ci', scopes: ['routes:read'], createdBy: 'alice', lastUsedAt: null, revokedAt: null });
  const got = await call(`/v1/keys/${key.id}`, { headers: admin });
  t.is(got.status, 200);
  t.deepEqual(Object.keys(got.json ?? {}).sort(), [
    'createdAt',
    'createdBy',
    'expiresAt',
    'id',
    'lastUsedAt',
    'name',
    'revokedAt',
    'scopes',
  ]);
  const listed = await call('/v1/keys', { headers: admin });
  t.deepEqual(
    (listed.json?.['keys'] as KeyJson[]).map((listedKey) => listedKey.id),
    [key.id],
  );
  t.is(listed.json?.['nextPageToken'], '');
  t.false(JSON.stringify([got.json, listed.json]).includes(key.secret!));
});

test('a key works like a token on REST: its scopes allow, a missing scope is 403, another workspace stays 404', async (t) => {
  const workspace = freshWorkspace();
  const key = await createKey(workspace, ['routes:read', 'routes:write']);
  const auth = bearer(key.secret!);
  const route = await call('/v1/routing', { method: 'POST', headers: auth, body: { method: 'GET', path: '/k', handler: 'h' } });
  t.is(route.status, 201);
  t.is((await call('/v1/routing', { headers: auth })).status, 200);
  const denied = await call('/v1/assets', { headers: auth });
  t.is(denied.status, 403);
  t.is(denied.json?.['code'], 'permission_denied');
  t.is((await call('/v1/keys', { headers: auth })).status, 403, 'managing keys needs workspace:admin');
  const other = await stack.auth(freshWorkspace());
  const foreignRoute = await call('/v1/routing', { method: 'POST', headers: other, body: { method: 'GET', path: '/x', handler: 'h' } });
  t.is((await call(`/v1/routing/${String(foreignRoute.json?.['id'])}`, { headers: auth })).status, 404);
  t.is((await call(`/v1/keys/${key.id}`, { headers: other })).status, 404, "another workspace's key is not found");
});

test('refusals: malformed or unknown secrets are 401 with a challenge, bad input 400, scopes beyond the creator 403', async (t) => {
  const workspace = freshWorkspace();
  const key = await createKey(workspace, ['routes:read']);
  const secret = key.secret!;
  const flipped = `${secret.slice(0, 10)}${secret[10] === 'a' ? 'b' : 'a'}${secret.slice(11)}`;
  for (const bad of [flipped, 'sy_short', `sy_${'A'.repeat(36)}`]) {
    const refused = await call('/v1/routing', { headers: bearer(bad) });
    t.is(refused.status, 401, bad);
    t.is(refused.json?.['code'], 'unauthenticated');
    t.regex(refused.headers.get('www-authenticate') ?? '', /^Bearer/);
    t.false(JSON.stringify(refused.json).includes(bad));
  }
  const admin = await stack.auth(workspace);
  const good = { name: 'n', scopes: ['routes:read'], expiresAt: inDays(1) };
  for (const body of [
    { ...good, name: '' },
    { ...good, scopes: [] },
    { ...good, scopes: ['routes:fly'] },
    { ...good, expiresAt: inDays(-1) },
    { ...good, expiresAt: inDays(366) },
    { ...good, expiresAt: 'soon' },
    { name: 'n', scopes: ['routes:read'] },
    { ...good, extra: 1 },
  ]) {
    const refused = await call('/v1/keys', { method: 'POST', headers: admin, body });
    t.is(refused.status, 400, JSON.stringify(body));
    t.is(refused.json?.['code'], 'invalid_argument');
  }
  const limited = await stack.auth(workspace, { scope: 'routes:read workspace:admin' });
  const beyond = await call('/v1/keys', { method: 'POST', headers: limited, body: { ...good, scopes: ['routes:read', 'assets:write'] } });
  t.is(beyond.status, 403);
  t.is(beyond.json?.['code'], 'permission_denied');
  t.is((await call('/v1/keys/nope', { headers: admin })).status, 400);
  t.is((await call('/v1/keys/key_00000000000000000000000000', { headers: admin })).status, 404);
  for (const graceSeconds of [-1, 604_801, 1.5, 'x'])
    t.is(
      (await call(`/v1/keys/${key.id}:roll`, { method: 'POST', headers: admin, body: { graceSeconds } })).status,
      400,
      String(graceSeconds),
    );
  t.is((await call('/v1/keys', { headers: await stack.auth(workspace, { scope: 'routes:read' }) })).status, 403);
});

test('revoke: 204, the key is refused at once on this instance and stays listed, marked', async (t) => {
  const workspace = freshWorkspace();
  const admin = await stack.auth(workspace);
  const key = await createKey(workspace, ['routes:read'], admin);
  t.is((await call('/v1/routing', { headers: bearer(key.secret!) })).status, 200);
  t.is((await call(`/v1/keys/${key.id}`, { method: 'DELETE', headers: admin })).status, 204);
  const refused = await call('/v1/routing', { headers: { ...bearer(key.secret!), 'x-request-id': `revoked-${key.id}` } });
  t.is(refused.status, 401);
  t.is(refused.json?.['code'], 'unauthenticated');
  // The gateway knew the secret's key from the call before; a refused key is not named as the one that authenticated.
  const refusedLine = await accessLine(`revoked-${key.id}`);
  t.is(refusedLine?.['status'], 401);
  t.false(refusedLine !== undefined && 'keyId' in refusedLine, 'no key id on the refused call');
  const listed = (await call('/v1/keys', { headers: admin })).json?.['keys'] as KeyJson[];
  t.is(listed.length, 1);
  t.truthy(listed[0]?.revokedAt);
  t.is((await call(`/v1/keys/${key.id}`, { method: 'DELETE', headers: admin })).status, 204, 'again');
  const roll = await call(`/v1/keys/${key.id}:roll`, { method: 'POST', headers: admin, body: { graceSeconds: 0 } });
  t.is(roll.status, 400, 'a revoked key cannot be rolled');
  t.is(roll.json?.['code'], 'failed_precondition');
});

test('roll: a new secret at once; with no grace the old one is refused, with grace it still works', async (t) => {
  const workspace = freshWorkspace();
  const admin = await stack.auth(workspace);
  const key = await createKey(workspace, ['routes:read'], admin);
  const graced = await call(`/v1/keys/${key.id}:roll`, { method: 'POST', headers: admin, body: { graceSeconds: 3600 } });
  t.is(graced.status, 200, JSON.stringify(graced.json));
  const second = graced.json as unknown as KeyJson;
  t.is(second.id, key.id);
  t.not(second.secret, key.secret);
  t.is((await call('/v1/routing', { headers: bearer(key.secret!) })).status, 200, 'the old secret within its grace');
  t.is((await call('/v1/routing', { headers: bearer(second.secret!) })).status, 200);
  const third = (await call(`/v1/keys/${key.id}:roll`, { method: 'POST', headers: admin, body: { graceSeconds: 0 } }))
    .json as unknown as KeyJson;
  t.is((await call('/v1/routing', { headers: bearer(second.secret!) })).status, 401, 'no grace');
  t.is((await call('/v1/routing', { headers: bearer(key.secret!) })).status, 401, 'a roll ends the grace of the one before');
  t.is((await call('/v1/routing', { headers: bearer(third.secret!) })).status, 200);
});

test('GET /v1/caller says who a key or a token is, with no scope needed', async (t) => {
  const workspace = freshWorkspace();
  const key = await createKey(workspace, ['routes:read']);
  const byKey = await call('/v1/caller', { headers: bearer(key.secret!) });
  t.is(byKey.status, 200);
  t.deepEqual(byKey.json, { subject: key.id, workspace, scopes: ['routes:read'], keyId: key.id, expiresAt: key.expiresAt });
  const byToken = await call('/v1/caller', { headers: await stack.auth(workspace, { subject: 'bob', scope: 'assets:read' }) });
  t.deepEqual(byToken.json, { subject: 'bob', workspace, scopes: ['assets:read'], keyId: null, expiresAt: null });
  t.is((await call('/v1/caller', { headers: {} })).status, 401);
});

test('a key works on Connect and tus too', async (t) => {
  const workspace = freshWorkspace();
  const key = await createKey(workspace, ['routes:read', 'assets:write']);
  const connect = await fetch(`${stack.url}/switchyard.v1.RouteService/ListRoutes`, {
    method: 'POST',
    headers: { ...bearer(key.secret!), 'content-type': 'application/json', 'connect-protocol-version': '1' },
    body: '{}',
  });
  t.is(connect.status, 200);
  await connect.arrayBuffer();
  const tus = await fetch(`${stack.url}/v1/uploads`, {
    method: 'POST',
    headers: { ...bearer(key.secret!), 'tus-resumable': '1.0.0', 'upload-length': '10' },
  });
  t.is(tus.status, 201);
  await tus.arrayBuffer();
  const readOnly = await createKey(workspace, ['routes:read']);
  const refused = await fetch(`${stack.url}/v1/uploads`, {
    method: 'POST',
    headers: { ...bearer(readOnly.secret!), 'tus-resumable': '1.0.0', 'upload-length': '10' },
  });
  t.is(refused.status, 403);
  await refused.arrayBuffer();
});

test('a key works on gRPC, and KeyService answers there', async (t) => {
  const workspace = freshWorkspace();
  const adminToken = await stack.token(workspace);
  const address = stack.service.address;
  const keys = new KeyServiceClient(address, credentials.createInsecure());
  const routes = new RouteServiceClient(address, credentials.createInsecure());
  const metadataOf = (secret: string) => {
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${secret}`);
    return metadata;
  };
  try {
    const created = await new Promise<CreateKeyResponse>((resolve, reject) =>
      keys.createKey(
        { name: 'grpc', scopes: ['routes:read'], expiresAt: new Date(Date.now() + 86_400_000) },
        metadataOf(adminToken),
        (error, value) => (error ? reject(error) : resolve(value)),
      ),
    );
    t.regex(created.secret, /^sy_/);
    t.is(created.key?.scopes.join(' '), 'routes:read');
    const listed = await new Promise<ListRoutesResponse>((resolve, reject) =>
      routes.listRoutes({ pageSize: 10, pageToken: '' }, metadataOf(created.secret), (error, value) =>
        error ? reject(error) : resolve(value),
      ),
    );
    t.deepEqual(listed.routes, []);
    const refused = await new Promise<ServiceError>((resolve) =>
      routes.createRoute({ method: 'GET', path: '/g', handler: 'h', middleware: [], owner: '' }, metadataOf(created.secret), (error) =>
        resolve(error!),
      ),
    );
    t.is(refused.code, Status.PERMISSION_DENIED);
    const missing = await new Promise<ServiceError>((resolve) =>
      keys.createKey({ name: 'grpc', scopes: ['routes:read'] }, metadataOf(adminToken), (error) => resolve(error!)),
    );
    t.is(missing.code, Status.INVALID_ARGUMENT);
  } finally {
    keys.close();
    routes.close();
  }
});

test('the key id is in the call line and the access line, and no secret is in any log line, metric or the database', async (t) => {
  const workspace = freshWorkspace();
  const key = await createKey(workspace, ['routes:read']);
  t.is((await call('/v1/routing', { headers: { ...bearer(key.secret!), 'x-request-id': `rest-${key.id}` } })).status, 200);
  const connect = await fetch(`${stack.url}/switchyard.v1.RouteService/ListRoutes`, {
    method: 'POST',
    headers: { ...bearer(key.secret!), 'content-type': 'application/json', 'x-request-id': `connect-${key.id}` },
    body: '{}',
  });
  t.is(connect.status, 200);
  await connect.arrayBuffer();
  const lines = stack.serviceLogLines.map((line) => JSON.parse(line) as Record<string, unknown>);
  t.true(lines.some((line) => line['method'] === 'ListRoutes' && line['keyId'] === key.id && line['workspace'] === workspace));
  t.is((await accessLine(`rest-${key.id}`))?.['keyId'], key.id, 'REST');
  // Once the service has named a secret's key, the gateway remembers it rather than reading the service's headers again.
  t.is((await call('/v1/routing', { headers: { ...bearer(key.secret!), 'x-request-id': `rest-again-${key.id}` } })).status, 200);
  t.is((await accessLine(`rest-again-${key.id}`))?.['keyId'], key.id, 'REST, the same secret again');
  t.is((await accessLine(`connect-${key.id}`))?.['keyId'], key.id, 'Connect');
  // An upload is a client stream: its headers go out before the caller is verified, so the trailer names the key.
  const uploader = await createKey(workspace, ['assets:write']);
  const form = new FormData();
  form.set('file', new Blob(['key upload']), 'k.txt');
  const upload = await fetch(`${stack.url}/v1/assets/upload`, {
    method: 'POST',
    headers: { ...bearer(uploader.secret!), 'x-request-id': `upload-${uploader.id}` },
    body: form,
  });
  t.is(upload.status, 201);
  await upload.arrayBuffer();
  const created = await fetch(`${stack.url}/v1/uploads`, {
    method: 'POST',
    headers: { ...bearer(uploader.secret!), 'tus-resumable': '1.0.0', 'upload-length': '3' },
  });
  t.is(created.status, 201);
  const patch = await fetch(new URL(created.headers.get('location')!, stack.url), {
    method: 'PATCH',
    headers: {
      ...bearer(uploader.secret!),
      'tus-resumable': '1.0.0',
      'upload-offset': '0',
      'content-type': 'application/offset+octet-stream',
      'x-request-id': `tus-${uploader.id}`,
    },
    body: 'abc',
  });
  t.is(patch.status, 204);
  t.is((await accessLine(`upload-${uploader.id}`))?.['keyId'], uploader.id, 'a multipart upload');
  t.is((await accessLine(`tus-${uploader.id}`))?.['keyId'], uploader.id, 'a tus PATCH');
  // A watch is a server stream, open until the client leaves: its access line, written then, names the key too.
  const watcher = await createKey(workspace, ['assets:read', 'routes:read']);
  for (const [name, path] of [
    ['assets', '/v1/assets:watch'],
    ['routes', '/v1/routing:watch'],
  ]) {
    const leave = new AbortController();
    const watch = await fetch(`${stack.url}${path}`, {
      headers: { ...bearer(watcher.secret!), 'x-request-id': `watch-${name}-${watcher.id}` },
      signal: leave.signal,
    });
    t.is(watch.status, 200);
    const reader = watch.body!.getReader();
    let opening = '';
    while (!opening.includes('event: synced')) opening += new TextDecoder().decode((await reader.read()).value);
    leave.abort();
    await reader.cancel().catch(() => undefined);
    t.is((await accessLine(`watch-${name}-${watcher.id}`))?.['keyId'], watcher.id, `a watch: ${path}`);
  }
  const everything = [...stack.serviceLogLines, ...stack.logLines, await stack.metrics.metrics()].join('\n');
  t.false(everything.includes(key.secret!));
  t.false(everything.includes(key.secret!.slice(3)));
  const database = await readFile(join(stack.dataDir, 'switchyard.sqlite'));
  t.false(database.includes(Buffer.from(key.secret!)));
});

test('lastUsedAt is set by use', async (t) => {
  const workspace = freshWorkspace();
  const admin = await stack.auth(workspace);
  const key = await createKey(workspace, ['routes:read'], admin);
  t.is((await call('/v1/routing', { headers: bearer(key.secret!) })).status, 200);
  // The write follows the call; it is not awaited by it.
  const lastUsedAt = await eventually(async () => (await call(`/v1/keys/${key.id}`, { headers: admin })).json?.['lastUsedAt'], {
    timeout: 10_000,
  });
  t.regex(String(lastUsedAt), /^\d{4}-\d\d-\d\dT/);
});

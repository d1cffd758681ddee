// API keys in every state, on every surface a token is accepted: REST, Connect, gRPC, tus and GET /v1/caller (what
// the console's sign-in asks). A live key and a rolled key's new secret work, and so does the old secret inside its
// grace; a mistyped, revoked or expired key, and an old secret after its grace, are the tokens' 401 everywhere. The
// service runs on fake time, moved by setting it (no timer fires), so expiry and grace end without waiting. Scopes
// beyond the creator's are refused on REST, Connect and gRPC alike, for a person's token and for a key that may make
// keys.
import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { credentials, Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import { newKeySecret } from '@switchyard/core';
import { timeSourceOf } from '@switchyard/core/testing';
import { RouteServiceClient } from '@switchyard/service/gen/switchyard/v1/routes.js';
import { KeyServiceClient } from '@switchyard/service/gen/switchyard/v1/keys.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

const clock = createClock(Date.now());
let stack: Stack;
let grpcRoutes: RouteServiceClient;
let grpcKeys: KeyServiceClient;
test.before(async () => {
  stack = await startStack({}, { time: timeSourceOf(clock) });
  grpcRoutes = new RouteServiceClient(stack.service.address, credentials.createInsecure());
  grpcKeys = new KeyServiceClient(stack.service.address, credentials.createInsecure());
});
test.after.always(async () => {
  grpcRoutes?.close();
  grpcKeys?.close();
  await stack?.stop();
});

const HOUR = 3_600_000;
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
const metadataOf = (secret: string) => {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${secret}`);
  return metadata;
};

/** What each surface answered: `ok`, or the refusal's code. */
type Outcome = string;

async function codeOf(response: Response): Promise<Outcome> {
  if (response.ok) {
    await response.arrayBuffer();
    return 'ok';
  }
  const body = (await response.json()) as { code?: string };
  return `${response.status} ${body.code ?? '?'}`;
}

/** One call with `secret` on each surface. */
const SURFACES: Record<string, (secret: string) => Promise<Outcome>> = {
  rest: async (secret) => codeOf(await fetch(`${stack.url}/v1/routing`, { headers: bearer(secret) })),
  connect: async (secret) =>
    codeOf(
      await fetch(`${stack.url}/switchyard.v1.RouteService/ListRoutes`, {
        method: 'POST',
        headers: { ...bearer(secret), 'content-type': 'application/json', 'connect-protocol-version': '1' },
        body: '{}',
      }),
    ),
  grpc: (secret) =>
    new Promise((resolve) =>
      grpcRoutes.listRoutes({ pageSize: 1, pageToken: '' }, metadataOf(secret), (error: ServiceError | null) =>
        resolve(error ? `grpc ${Status[error.code]}` : 'ok'),
      ),
    ),
  tus: async (secret) =>
    codeOf(
      await fetch(`${stack.url}/v1/uploads`, {
        method: 'POST',
        headers: { ...bearer(secret), 'tus-resumable': '1.0.0', 'upload-length': '10' },
      }),
    ),
  caller: async (secret) => codeOf(await fetch(`${stack.url}/v1/caller`, { headers: bearer(secret) })),
};

const REFUSED: Record<string, Outcome> = {
  rest: '401 unauthenticated',
  connect: '401 unauthenticated',
  grpc: 'grpc UNAUTHENTICATED',
  tus: '401 unauthenticated',
  caller: '401 unauthenticated',
};

async function outcomes(secret: string): Promise<Record<string, Outcome>> {
  const answers: Record<string, Outcome> = {};
  for (const [surface, call] of Object.entries(SURFACES)) answers[surface] = await call(secret);
  return answers;
}

const ALL_OK = Object.fromEntries(Object.keys(SURFACES).map((surface) => [surface, 'ok']));

interface KeyJson {
  id: string;
  secret: string;
}

async function rest(path: string, init: { method?: string; headers: Record<string, string>; body?: unknown }) {
  const response = await fetch(`${stack.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...init.headers, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

async function createKey(admin: Record<string, string>, expiresInMs: number, scopes = ['routes:read', 'assets:write']): Promise<KeyJson> {
  const created = await rest('/v1/keys', {
    method: 'POST',
    headers: admin,
    body: { name: 'matrix', scopes, expiresAt: new Date(clock.now + expiresInMs).toISOString() },
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.json)}`);
  return created.json as unknown as KeyJson;
}

function mistyped(secret: string): string {
  const at = 12;
  return `${secret.slice(0, at)}${secret[at] === 'a' ? 'b' : 'a'}${secret.slice(at + 1)}`;
}

test.serial('live, mistyped, revoked, expired and rolled keys on REST, Connect, gRPC, tus and /v1/caller', async (t) => {
  const workspace = freshWorkspace('states');
  const admin = await stack.auth(workspace);
  const live = await createKey(admin, 30 * 24 * HOUR);
  const expiring = await createKey(admin, HOUR);
  const revoked = await createKey(admin, 30 * 24 * HOUR);
  const rolled = await createKey(admin, 30 * 24 * HOUR);
  // Every key is used (and cached) before it changes: what the service cached must not outlive the change.
  for (const key of [live, expiring, revoked, rolled]) t.deepEqual(await outcomes(key.secret), ALL_OK, key.id);

  t.is((await rest(`/v1/keys/${revoked.id}`, { method: 'DELETE', headers: admin })).status, 204);
  const roll = await rest(`/v1/keys/${rolled.id}:roll`, { method: 'POST', headers: admin, body: { graceSeconds: 600 } });
  t.is(roll.status, 200);
  const rolledNew = roll.json as unknown as KeyJson;

  t.deepEqual(await outcomes(live.secret), ALL_OK, 'live');
  t.deepEqual(await outcomes(mistyped(live.secret)), REFUSED, 'mistyped');
  t.deepEqual(await outcomes(revoked.secret), REFUSED, 'revoked');
  t.deepEqual(await outcomes(rolled.secret), ALL_OK, 'the old secret inside its grace');
  t.deepEqual(await outcomes(rolledNew.secret), ALL_OK, 'the new secret');
  t.deepEqual(await outcomes(expiring.secret), ALL_OK, 'before its expiry');

  // Two hours on: past the expiring key's hour and the old secret's ten minutes.
  clock.setSystemTime(clock.now + 2 * HOUR);
  t.deepEqual(await outcomes(live.secret), ALL_OK, 'live, later');
  t.deepEqual(await outcomes(expiring.secret), REFUSED, 'expired');
  t.deepEqual(await outcomes(rolled.secret), REFUSED, 'the old secret after its grace');
  t.deepEqual(await outcomes(rolledNew.secret), ALL_OK, 'the new secret, later');
  t.deepEqual(await outcomes(revoked.secret), REFUSED, 'revoked, later');

  // Expired and revoked keys stay listed, marked; neither can be rolled (failed_precondition, never a new secret).
  const listed = (await rest('/v1/keys', { headers: admin })).json?.['keys'] as {
    id: string;
    revokedAt: string | null;
    expiresAt: string;
  }[];
  t.deepEqual(listed.map((key) => key.id).sort(), [live.id, expiring.id, revoked.id, rolled.id].sort());
  t.truthy(listed.find((key) => key.id === revoked.id)?.revokedAt);
  t.true(Date.parse(listed.find((key) => key.id === expiring.id)!.expiresAt) < clock.now);
  for (const key of [expiring, revoked]) {
    const refused = await rest(`/v1/keys/${key.id}:roll`, { method: 'POST', headers: admin, body: { graceSeconds: 0 } });
    t.is(refused.status, 400, key.id);
    t.is(refused.json?.['code'], 'failed_precondition');
    t.is(refused.json?.['secret'], undefined);
  }
  const grpcRoll = await new Promise<ServiceError | null>((resolve) =>
    grpcKeys.rollKey({ id: expiring.id, graceSeconds: 0 }, metadataOf(admin['authorization']!.slice(7)), (error) => resolve(error)),
  );
  t.is(grpcRoll?.code, Status.FAILED_PRECONDITION);
});

test.serial('scopes beyond the creator are refused on REST, Connect and gRPC, for a token and for a key that makes keys', async (t) => {
  const workspace = freshWorkspace('beyond');
  const limitedToken = await stack.token(workspace, { scope: 'routes:read workspace:admin' });
  const keyMaker = await createKey(await stack.auth(workspace), 24 * HOUR, ['routes:read', 'workspace:admin']);
  const expiresAt = new Date(clock.now + HOUR);
  for (const [who, secret] of [
    ['a token', limitedToken],
    ['a key', keyMaker.secret],
  ] as const) {
    const body = { name: 'too much', scopes: ['routes:read', 'assets:write'], expiresAt: expiresAt.toISOString() };
    const viaRest = await rest('/v1/keys', { method: 'POST', headers: bearer(secret), body });
    t.is(`${viaRest.status} ${String(viaRest.json?.['code'])}`, '403 permission_denied', `REST, ${who}`);
    const viaConnect = await fetch(`${stack.url}/switchyard.v1.KeyService/CreateKey`, {
      method: 'POST',
      headers: { ...bearer(secret), 'content-type': 'application/json', 'connect-protocol-version': '1' },
      body: JSON.stringify(body),
    });
    t.is(await codeOf(viaConnect), '403 permission_denied', `Connect, ${who}`);
    const viaGrpc = await new Promise<ServiceError | null>((resolve) =>
      grpcKeys.createKey({ name: 'too much', scopes: ['routes:read', 'assets:write'], expiresAt }, metadataOf(secret), (error) =>
        resolve(error),
      ),
    );
    t.is(viaGrpc?.code, Status.PERMISSION_DENIED, `gRPC, ${who}`);
    // Within the creator's scopes it works.
    const within = await rest('/v1/keys', { method: 'POST', headers: bearer(secret), body: { ...body, scopes: ['routes:read'] } });
    t.is(within.status, 201, who);
  }
  const listed = (await rest('/v1/keys', { headers: await stack.auth(workspace) })).json?.['keys'] as { scopes: string[] }[];
  t.false(
    listed.some((key) => key.scopes.includes('assets:write')),
    'no key holds a scope its creator lacked',
  );
});

/** How often the service has looked a key up by its digest (its store's timed calls). */
async function digestLookups(): Promise<number> {
  const text = await stack.metrics.metrics();
  let total = 0;
  for (const line of text.split('\n'))
    if (
      line.startsWith('switchyard_store_operation_seconds_count{') &&
      line.includes('store="key"') &&
      line.includes('operation="findByDigest"')
    )
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

test.serial('a secret whose checksum does not match is refused on every surface without a database read', async (t) => {
  const workspace = freshWorkspace('checksum');
  const live = await createKey(await stack.auth(workspace), HOUR);
  const lastChecksumCharacter = live.secret.length - 1;
  const forged = [
    mistyped(live.secret),
    `${live.secret.slice(0, lastChecksumCharacter)}${live.secret.endsWith('a') ? 'b' : 'a'}`,
    `sy_${'A'.repeat(36)}`,
  ];
  const before = await digestLookups();
  for (const secret of forged) t.deepEqual(await outcomes(secret), REFUSED, secret.slice(0, 6));
  t.is(await digestLookups(), before, 'no lookup for a malformed secret');
  // A well-formed secret of no key is looked up (and refused alike): the count above is not blind.
  t.deepEqual(await outcomes(newKeySecret()), REFUSED);
  t.true((await digestLookups()) > before);
});

// The auth-attack suite of issue 7, item 2, registered by auth-attacks.test.ts
// (HS256, as processes) and auth-attacks-jwks.test.ts (JWKS, in-process), one
// file per deployment so each runs in its own worker within the time budget.
//
// Attacks on authentication and tenancy, on every operation and every wire
// (REST and HEAD, Connect, gRPC-Web on the gateway; gRPC on the service). Each
// must be refused with the contract's code, store nothing, echo nothing, and
// leave no token, secret or Authorization value in any log.
import test from 'ava';
import { Metadata } from '@grpc/grpc-js';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { inProcessDeployment, processDeployment, type AuthDeployment } from './auth-deployments.js';
import {
  ATTACK_BYTES,
  ATTACK_WEBHOOK,
  createTusUpload,
  SCOPE_OF,
  tusState,
  WORKSPACE_WIDE,
  wiresOf,
  type Outcome,
  type Surface,
  type Targets,
  type Wires,
} from './auth-wire.js';
import {
  authenticationAttacks,
  fingerprint,
  hmacIssuer,
  JwksServer,
  misplacedTokens,
  rsaProvider,
  scopeAttacks,
  tokenPieces,
  type Attack,
  type AuthValue,
  type Issuer,
} from './forged-tokens.js';
import { scaled } from './soak.js';
import { storedIn } from './stored.js';
import { keySecretDigest, newKeySecret } from '@switchyard/core';
import { sampleKey } from '@switchyard/core/testing';
import { loadServiceConfig, openStorage } from '@switchyard/service';

/** Rounds of the whole matrix: one in `npm test`, more in the soak run (fresh tokens each round). */
const ROUNDS = scaled(1, 5);
/** Calls in flight at once: enough to be quick, few enough for a 2-CPU machine. */
const PARALLEL = 8;

interface Setup {
  readonly deployment: AuthDeployment;
  readonly issuer: Issuer;
  readonly wires: Wires;
  /** Every Authorization value and token sent, to look for in the logs. */
  readonly sent: Set<string>;
  readonly jwks?: JwksServer;
}

/** Spare assets per seed: enough for every successful delete of one test (4 wires × 2 delete operations × 2 passes). */
const SPARES = 26;
/** Versions per seed that restores may take (4 wires × 2 passes of valid calls in one test). */
const SPARE_VERSIONS = 10;
/** Trashed assets per seed that restores and purges may take (two operations, 4 wires × 2 passes each). */
const SPARE_TRASHED = 18;
/** Spare API keys per seed: every successful revoke of one test (4 wires × 2 passes: a token's and a key's). */
const SPARE_KEYS = 10;
/** Spare webhook endpoints per seed: every successful DeleteWebhook of one test (4 wires × 2 passes). */
const SPARE_WEBHOOKS = 10;

/** What the owner stored; attacks try to overwrite it with other bytes. */
const OWNER_BYTES = Buffer.from('the owner’s bytes, which no attack may change');

/** Spare resumable uploads per seed, for successful terminations and appends (4 wires, two passes of valid calls per test). */
const SPARE_UPLOADS = 10;
/** The length of the owner's resumable upload, which holds OWNER_BYTES so far. */
const OWNER_UPLOAD_LENGTH = 4096;

const workspace = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

/** Creates a route and assets in `ws` with a valid token over gRPC, and resumable uploads over tus; the targets every attack aims at. */
async function seed(s: Setup, ws: string): Promise<Targets> {
  const auth = `Bearer ${await s.issuer.token(ws)}`;
  const matchPath = `/owned-${randomBytes(3).toString('hex')}/1`;
  const route = await s.wires.clients.createRoute(metadataOf(auth), {
    method: 'GET',
    path: matchPath.replace(/1$/, ':id'),
    handler: 'owner',
  });
  const asset = await s.wires.clients.upload(metadataOf(auth), { label: 'owner', filename: 'owner.txt' }, OWNER_BYTES);
  // Each test's successful deletes (valid tokens, and batch deletes that succeed for a stranger) take one each.
  const spares: string[] = [];
  for (let i = 0; i < SPARES; i++)
    spares.push((await s.wires.clients.upload(metadataOf(auth), { label: 'spare', filename: 'spare.txt' }, OWNER_BYTES)).id);
  const spareRoutes: string[] = [];
  for (let i = 0; i < SPARES; i++)
    spareRoutes.push(
      (await s.wires.clients.createRoute(metadataOf(auth), { method: 'GET', path: `${matchPath}/spare-${i}`, handler: 'spare' })).id,
    );
  // A resumable upload part way through (GetUpload's target), and uploads that terminations and appends may take.
  const uploadId = await createTusUpload(s.deployment.url, auth, OWNER_UPLOAD_LENGTH, OWNER_BYTES);
  const spareUploads: string[] = [];
  for (let i = 0; i < SPARE_UPLOADS; i++) spareUploads.push(await createTusUpload(s.deployment.url, auth, OWNER_UPLOAD_LENGTH));
  const freshUploads: string[] = [];
  for (let i = 0; i < SPARE_UPLOADS; i++) freshUploads.push(await createTusUpload(s.deployment.url, auth, 2 * ATTACK_BYTES.length));
  const keyId = (await createKey(s, auth, ws, ALL_SCOPES)).id;
  const spareKeys: string[] = [];
  for (let i = 0; i < SPARE_KEYS; i++) spareKeys.push((await createKey(s, auth, ws, ['routes:read'])).id);
  // Versions (each asset replaced once keeps its first file as one) and trashed assets.
  const versioned = async () => {
    const { id } = await s.wires.clients.upload(metadataOf(auth), { label: 'versioned', filename: 'v1.txt' }, OWNER_BYTES);
    await s.wires.clients.replace(metadataOf(auth), { id, filename: 'v2.txt' }, Buffer.from('the owner’s second file'));
    const { versions } = await restJson<{ versions: { id: string }[] }>(s, auth, 'GET', `/v1/assets/${id}/versions`);
    return { id, versionId: versions[0]!.id };
  };
  const { id: versionedAssetId, versionId } = await versioned();
  const spareVersions: string[] = [];
  for (let i = 0; i < SPARE_VERSIONS; i++) {
    const spare = await versioned();
    spareVersions.push(`${spare.id}/${spare.versionId}`);
  }
  const trashed: string[] = [];
  for (let i = 0; i < SPARE_TRASHED; i++) {
    const { id } = await s.wires.clients.upload(metadataOf(auth), { label: 'trashed', filename: 'trashed.txt' }, OWNER_BYTES);
    await restJson(s, auth, 'DELETE', `/v1/assets/${id}`);
    trashed.push(id);
  }
  // A webhook endpoint with one delivery (a test event) to resend, and endpoints that deletes may take.
  const webhook = () => restJson<{ id: string }>(s, auth, 'POST', '/v1/webhooks', ATTACK_WEBHOOK);
  const webhookId = (await webhook()).id;
  const { id: deliveryId } = await restJson<{ id: string }>(s, auth, 'POST', `/v1/webhooks/${webhookId}:test`);
  const spareWebhooks: string[] = [];
  for (let i = 0; i < SPARE_WEBHOOKS; i++) spareWebhooks.push((await webhook()).id);
  return {
    routeId: route.id,
    matchPath,
    assetId: asset.id,
    spares,
    spareRoutes,
    uploadId,
    spareUploads,
    freshUploads,
    keyId,
    spareKeys,
    versionedAssetId,
    versionId,
    spareVersions,
    trashed,
    webhookId,
    deliveryId,
    spareWebhooks,
  };
}

/** A REST call of the seed that must succeed; its JSON body, if any. */
async function restJson<T>(s: Setup, auth: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${s.deployment.url}${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`seeding: ${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

const ALL_SCOPES = ['routes:read', 'routes:write', 'assets:read', 'assets:write', 'workspace:admin'];

/** An API key of `ws` made over REST by `auth` (a person's token with workspace:admin); its secret is recorded as sent. */
async function createKey(s: Setup, auth: string, ws: string, scopes: readonly string[]): Promise<{ id: string; secret: string }> {
  const response = await fetch(`${s.deployment.url}/v1/keys`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `seed ${ws}`, scopes, expiresAt: new Date(Date.now() + 86_400_000).toISOString() }),
  });
  const body = (await response.json()) as { id: string; secret: string };
  if (response.status !== 201) throw new Error(`creating a key: ${response.status} ${JSON.stringify(body)}`);
  record(s, `Bearer ${body.secret}`);
  return body;
}

/**
 * Forged and dead API keys of `ws` (docs/tokens.md): a wrong checksum or a
 * mistyped character (refused before any database read), the prefix and a
 * right checksum with no such key, a revoked key, an expired one (written
 * straight into the database: a key cannot be made in the past), the old
 * secret of a key rolled without grace, and live keys sent the wrong way.
 */
async function keyAttacks(s: Setup, ws: string): Promise<Attack[]> {
  const admin = `Bearer ${await s.issuer.token(ws)}`;
  const live = (await createKey(s, admin, ws, ALL_SCOPES)).secret;
  const revoked = await createKey(s, admin, ws, ALL_SCOPES);
  const revoke = await fetch(`${s.deployment.url}/v1/keys/${revoked.id}`, { method: 'DELETE', headers: { authorization: admin } });
  if (revoke.status !== 204) throw new Error(`revoking a key: ${revoke.status}`);
  const rolled = await createKey(s, admin, ws, ALL_SCOPES);
  const roll = await fetch(`${s.deployment.url}/v1/keys/${rolled.id}:roll`, {
    method: 'POST',
    headers: { authorization: admin, 'content-type': 'application/json' },
    body: '{"graceSeconds":0}',
  });
  if (roll.status !== 200) throw new Error(`rolling a key: ${roll.status}`);
  record(s, `Bearer ${((await roll.json()) as { secret: string }).secret}`);
  const expired = newKeySecret();
  const writer = await openStorage(loadServiceConfig({ DATA_DIR: s.deployment.dataDir }).storage, { migrate: false });
  try {
    const day = 86_400_000;
    await writer.keyStore.insert(
      sampleKey(ws, {
        scopes: ALL_SCOPES as never,
        createdAt: new Date(Date.now() - 2 * day),
        expiresAt: new Date(Date.now() - day),
        secretDigest: keySecretDigest(expired),
      }),
    );
  } finally {
    await writer.close();
  }
  const flip = (secret: string, at: number) => `${secret.slice(0, at)}${secret[at] === 'a' ? 'b' : 'a'}${secret.slice(at + 1)}`;
  const bearer = (secret: string) => `Bearer ${secret}`;
  return [
    { name: 'API key with a wrong checksum', authorization: bearer(flip(live, live.length - 1)) },
    { name: 'API key mistyped (one character of its random part)', authorization: bearer(flip(live, 10)) },
    { name: 'API key with the prefix and a right checksum but no such key', authorization: bearer(newKeySecret()) },
    { name: 'API key of the prefix alone', authorization: 'Bearer sy_' },
    { name: 'API key revoked', authorization: bearer(revoked.secret) },
    { name: 'API key expired', authorization: bearer(expired) },
    { name: "API key's old secret after a roll without grace", authorization: bearer(rolled.secret) },
    { name: 'API key without its prefix', authorization: bearer(live.slice(3)) },
    { name: 'API key with its prefix in capitals', authorization: bearer(`SY_${live.slice(3)}`) },
    { name: 'API key cut short', authorization: bearer(live.slice(0, -1)) },
    { name: 'API key with a character more', authorization: bearer(`${live}A`) },
    { name: 'valid API key under another scheme', authorization: `Token ${live}` },
    { name: 'valid API key without a scheme', authorization: live },
    { name: 'two API keys in one header', authorization: `Bearer ${live} ${live}` },
    { name: 'valid API key then a second Authorization header', authorization: [bearer(live), 'Bearer garbage-token-b7f3e1'] },
  ];
}

function metadataOf(authorization: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', authorization);
  return metadata;
}

/**
 * Node's HTTP/2 (grpc-js and node:http2 alike) refuses to send two `authorization`
 * fields, so several Authorization headers are tried on the gateway's wires only.
 * (Node's HTTP/2 server keeps the first of such fields; see the report.)
 */
function canSend(surface: Surface, authorization: AuthValue): boolean {
  return !(surface.transport === 'grpc' && Array.isArray(authorization) && authorization.length > 1);
}

/** Runs `work` over `items`, `PARALLEL` at a time. */
async function inParallel<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

function record(s: Setup, value: AuthValue): void {
  for (const piece of tokenPieces(value)) s.sent.add(piece);
}

/**
 * What is wrong with `outcome` for a call that must be refused with `code`: another
 * code, a body outside the contract's shape, the token repeated back, a REST 401
 * without its `WWW-Authenticate: Bearer` challenge (RFC 9110 §11.6.1, RFC 6750 §3).
 */
function refusalProblems(surface: Surface, attack: Attack, outcome: Outcome, code: string): string[] {
  const where = `${surface.name} × ${attack.name}`;
  const problems: string[] = [];
  if (outcome.code !== code) problems.push(`${where}: ${outcome.code} (${outcome.message}), expected ${code}`);
  if (outcome.shapeProblem) problems.push(`${where}: ${outcome.shapeProblem}`);
  for (const piece of tokenPieces(attack.authorization)) {
    if (outcome.raw.includes(piece)) problems.push(`${where}: the response repeats part of the token (${fingerprint(piece)})`);
  }
  if (outcome.code === 'unauthenticated' && (surface.transport === 'rest' || surface.transport === 'rest-head')) {
    if (!/^Bearer\b/.test(outcome.challenge ?? '')) problems.push(`${where}: a 401 without a Bearer WWW-Authenticate challenge`);
  }
  return problems;
}

export type Mode = 'hmac-processes' | 'hmac-in-process' | 'jwks-in-process';

/**
 * The deployment of `mode`: service and gateway as processes (real gRPC between
 * them) with the secret they generate, in one process over the in-process
 * channel with a shared secret, or in-process against an RSA provider's JWKS on loopback.
 */
async function setUp(mode: Mode): Promise<Setup> {
  if (mode === 'hmac-processes') {
    const deployment = await processDeployment(mode);
    return {
      deployment,
      issuer: hmacIssuer(deployment.secret),
      wires: wiresOf(deployment.url, deployment.serviceAddress),
      sent: new Set<string>(),
    };
  }
  if (mode === 'hmac-in-process') {
    const secret = randomBytes(32).toString('base64url');
    const deployment = await inProcessDeployment(mode, { AUTH_SECRET: secret });
    return { deployment, issuer: hmacIssuer(secret), wires: wiresOf(deployment.url, deployment.serviceAddress), sent: new Set<string>() };
  }
  const provider = await rsaProvider();
  const jwks = await JwksServer.start(() => provider.jwks);
  const deployment = await inProcessDeployment(mode, { AUTH_JWKS_URL: jwks.url });
  return { deployment, issuer: provider, wires: wiresOf(deployment.url, deployment.serviceAddress), sent: new Set<string>(), jwks };
}

/** Registers every test of the suite against the deployment of `name`. */
export function authAttackSuite(name: Mode): void {
  let pending: Promise<Setup> | undefined;
  const setup = (mode: Mode) => (pending ??= setUp(mode));

  test.after.always(async () => {
    if (!pending) return;
    const { deployment, wires, jwks } = await pending;
    wires.close();
    await deployment.stop();
    await jwks?.close();
  });

  test.serial(`${name}: every authentication attack on every operation and wire is unauthenticated and changes nothing`, async (t) => {
    const s = await setup(name);
    const ws = workspace('auth');
    const targets = await seed(s, ws);
    let calls = 0;
    const problems: string[] = [];
    const started = performance.now();
    const liveKey = (await createKey(s, `Bearer ${await s.issuer.token(ws)}`, ws, ALL_SCOPES)).secret;
    const before = await storedIn(s.deployment.dataDir);
    for (let round = 0; round < ROUNDS; round++) {
      const attacks = [...(await authenticationAttacks(s.issuer, ws)), ...(await keyAttacks(s, ws))];
      const cases = attacks.flatMap((attack) =>
        s.wires.surfaces.filter((surface) => canSend(surface, attack.authorization)).map((surface) => ({ attack, surface })),
      );
      await inParallel(cases, async ({ attack, surface }) => {
        record(s, attack.authorization);
        problems.push(...refusalProblems(surface, attack, await surface.call(attack.authorization, targets), 'unauthenticated'));
        calls += 1;
      });
    }
    t.deepEqual(problems, [], `${problems.length} of ${calls} refusals went wrong`);
    const after = await storedIn(s.deployment.dataDir);
    // The keys the attacks were made from are the only keys added (each round makes its own), none changed.
    t.deepEqual({ ...after, keys: after.keys.filter((line) => before.keys.includes(line)) }, before, 'no attack stored a record or a byte');
    // The same calls with a valid token, and with a valid key, do go through: the refusals above are the attacks', not the calls'.
    const valid = `Bearer ${await s.issuer.token(ws)}`;
    record(s, valid);
    for (const surface of s.wires.surfaces) t.is((await surface.call(valid, targets)).code, 'ok', `${surface.name} with a valid token`);
    for (const surface of s.wires.surfaces)
      t.is((await surface.call(`Bearer ${liveKey}`, targets)).code, 'ok', `${surface.name} with a valid API key`);
    t.log(`${name}: ${calls} refused calls (${ROUNDS} round(s)) in ${Math.round(performance.now() - started)} ms`);
  });

  test.serial(`${name}: a valid token without the needed scope is permission_denied on every operation and wire`, async (t) => {
    const s = await setup(name);
    const ws = workspace('scope');
    const targets = await seed(s, ws);
    const cases: Array<{ surface: Surface; attack: Attack }> = [];
    // A key holding every scope but one, per scope: a key's scopes bind it as a token's do.
    const admin = `Bearer ${await s.issuer.token(ws)}`;
    const keyWithout = new Map<string, string>();
    for (const scope of ALL_SCOPES)
      keyWithout.set(
        scope,
        (
          await createKey(
            s,
            admin,
            ws,
            ALL_SCOPES.filter((other) => other !== scope),
          )
        ).secret,
      );
    const before = await storedIn(s.deployment.dataDir);
    for (const surface of s.wires.surfaces) {
      const needed = SCOPE_OF[surface.operation];
      for (const attack of await scopeAttacks(s.issuer, ws, needed)) cases.push({ surface, attack });
      cases.push({
        surface,
        attack: { name: `an API key with every scope but ${needed}`, authorization: `Bearer ${keyWithout.get(needed)}` },
      });
    }
    const problems: string[] = [];
    await inParallel(cases, async ({ surface, attack }) => {
      record(s, attack.authorization);
      problems.push(...refusalProblems(surface, attack, await surface.call(attack.authorization, targets), 'permission_denied'));
    });
    t.deepEqual(problems, []);
    t.deepEqual(await storedIn(s.deployment.dataDir), before, 'no refused call stored anything');
    const only = async (surface: Surface) => `Bearer ${await s.issuer.token(ws, { scope: SCOPE_OF[surface.operation] })}`;
    for (const surface of s.wires.surfaces)
      t.is((await surface.call(await only(surface), targets)).code, 'ok', `${surface.name} with ${SCOPE_OF[surface.operation]} alone`);
  });

  test.serial(`${name}: a token anywhere but the Authorization header is ignored`, async (t) => {
    const s = await setup(name);
    const ws = workspace('misplaced');
    const targets = await seed(s, ws);
    const token = await s.issuer.token(ws);
    record(s, token);
    const gatewaySurfaces = s.wires.surfaces.filter((surface) => surface.transport !== 'grpc');
    const cases = misplacedTokens(token).flatMap((place) => gatewaySurfaces.map((surface) => ({ place, surface })));
    const problems: string[] = [];
    await inParallel(cases, async ({ place, surface }) => {
      const outcome = await surface.call(undefined, targets, {
        ...(place.query ? { query: place.query } : {}),
        ...(place.headers ? { headers: place.headers } : {}),
      });
      problems.push(...refusalProblems(surface, { name: place.name, authorization: `Bearer ${token}` }, outcome, 'unauthenticated'));
    });
    t.deepEqual(problems, []);
    // And on the service, metadata entries other than `authorization`.
    for (const surface of s.wires.surfaces.filter((x) => x.transport === 'grpc')) {
      const metadata = new Metadata();
      for (const key of ['token', 'access_token', 'x-access-token', 'proxy-authorization', 'cookie'])
        metadata.set(key, key === 'proxy-authorization' ? `Bearer ${token}` : token);
      await t.throwsAsync(s.wires.clients.getRoute(metadata, targets.routeId), { message: /UNAUTHENTICATED/ }, surface.name);
    }
  });

  test.serial(`${name}: another workspace's records do not exist for the caller, on every operation and wire`, async (t) => {
    const s = await setup(name);
    const owner = workspace('owner');
    const targets = await seed(s, owner);
    const ownerAuth = `Bearer ${await s.issuer.token(owner)}`;
    const grpcGet = s.wires.surfaces.find((x) => x.transport === 'grpc' && x.operation === 'GetAsset')!;
    const original = (await grpcGet.call(ownerAuth, targets)).value!;
    // Strangers: another workspace, and the same name in another case (workspaces compare exactly).
    for (const stranger of [workspace('stranger'), owner.toUpperCase()]) {
      const auth = `Bearer ${await s.issuer.token(stranger)}`;
      record(s, auth);
      const before = await storedIn(s.deployment.dataDir);
      const problems: string[] = [];
      for (const surface of s.wires.surfaces) {
        const outcome = await surface.call(auth, targets);
        const attack = { name: `workspace ${stranger}`, authorization: auth };
        if (WORKSPACE_WIDE.has(surface.operation)) t.is(outcome.code, 'ok', `${surface.name}: the stranger works in its own workspace`);
        else problems.push(...refusalProblems(surface, attack, outcome, 'not_found'));
      }
      t.deepEqual(problems, []);
      const after = await storedIn(s.deployment.dataDir);
      t.true(
        after.routeRows > before.routeRows &&
          after.assetRows > before.assetRows &&
          after.uploads.length > before.uploads.length &&
          after.keys.length > before.keys.length,
        'the stranger created in its own workspace',
      );
      // The owner's keys are as they were: none revoked, none rolled.
      const ownerKeys = (stored: { keys: readonly string[] }) => stored.keys.filter((line) => line.split(' ')[1] === owner);
      t.deepEqual(ownerKeys(after), ownerKeys(before), 'the owner’s keys are unchanged');
      // The owner's webhooks are as they were: none updated, rotated or deleted, and no delivery queued for them.
      const ownerWebhooks = (stored: { webhooks: readonly string[] }) => stored.webhooks.filter((line) => line.split(' ')[1] === owner);
      t.deepEqual(ownerWebhooks(after), ownerWebhooks(before), 'the owner’s webhooks are unchanged');
      const { deliveries } = await restJson<{ deliveries: unknown[] }>(s, ownerAuth, 'GET', `/v1/webhooks/${targets.webhookId}/deliveries`);
      t.is(deliveries.length, 1, 'the owner’s webhook has its one test delivery, and no other');
      // The owner's resumable uploads are where they were: no append landed, no termination took one.
      t.like(
        await tusState(s.deployment.url, ownerAuth, targets.uploadId),
        { status: 200, offset: OWNER_BYTES.length, length: OWNER_UPLOAD_LENGTH },
        'the owner’s upload is unchanged',
      );
      t.like(
        await tusState(s.deployment.url, ownerAuth, targets.freshUploads[0]!),
        { status: 200, offset: 0 },
        'the upload the appends aimed at is still at 0',
      );
      t.like(
        await tusState(s.deployment.url, ownerAuth, targets.spareUploads[0]!),
        { status: 200, offset: 0 },
        'the upload the terminations aimed at is still there',
      );
      // The owner's records are as they were: the replaces never landed.
      t.deepEqual((await grpcGet.call(ownerAuth, targets)).value, original, 'the owner’s asset is unchanged');
      // The owner's versions and trash are as they were: no restore or purge landed.
      const inTrash = (await restJson<{ assets: { id: string }[] }>(s, ownerAuth, 'GET', '/v1/trash?pageSize=1000')).assets.map(
        (x) => x.id,
      );
      t.deepEqual(
        targets.trashed.filter((id) => !inTrash.includes(id)),
        [],
        'the owner’s trash is unchanged',
      );
      for (const [id, versionId] of [
        [targets.versionedAssetId, targets.versionId],
        ...targets.spareVersions.map((pair) => pair.split('/')),
      ]) {
        const { versions } = await restJson<{ versions: { id: string }[] }>(s, ownerAuth, 'GET', `/v1/assets/${id!}/versions`);
        t.true(
          versions.some((version) => version.id === versionId),
          `the owner’s version ${versionId!} is still a version`,
        );
      }
      const match = await s.wires.surfaces.find((x) => x.transport === 'grpc' && x.operation === 'MatchRoute')!.call(ownerAuth, targets);
      t.is((match.value?.['route'] as { id?: string } | undefined)?.id, targets.routeId, 'the owner still matches its own route');
      // The stranger's own route on the same path matches for the stranger only.
      const strangerRoute = await s.wires.clients.createRoute(metadataOf(auth), {
        method: 'GET',
        path: targets.matchPath.replace(/1$/, ':id'),
        handler: 'stranger',
      });
      const strangerMatch = await s.wires.clients.matchRoute(metadataOf(auth), 'GET', targets.matchPath);
      t.is(strangerMatch.route?.id, strangerRoute.id);
      const ownerMatch = await s.wires.clients.matchRoute(metadataOf(ownerAuth), 'GET', targets.matchPath);
      t.is(ownerMatch.route?.id, targets.routeId);
    }
    const file = await fetch(String(original['url']).replace(/^https?:\/\/[^/]+/, s.deployment.url));
    t.is(file.status, 200);
    t.true(Buffer.from(await file.arrayBuffer()).equals(OWNER_BYTES), 'the served bytes are the owner’s');
  });

  test.after('no token, secret or Authorization value ever reaches a log or the processes’ output', async (t) => {
    if (!pending) return;
    const s = await pending;
    const logs = s.deployment.logs();
    t.true(logs.length > 1000, `${s.deployment.name}: the deployment did log`);
    t.regex(logs, /unauthenticated|UNAUTHENTICATED/, `${s.deployment.name}: refusals are logged`);
    let leaks = 0;
    for (const piece of s.sent) {
      if (logs.includes(piece)) {
        leaks += 1;
        if (leaks <= 5) t.fail(`${s.deployment.name}: the log holds part of a token (${fingerprint(piece)}) near: ${context(logs, piece)}`);
      }
    }
    t.is(leaks, 0, `${s.deployment.name}: ${leaks} of ${s.sent.size} token pieces appear in the logs`);
    for (const secret of s.issuer.secrets) t.false(logs.includes(secret), `${s.deployment.name}: the log holds a secret`);
    t.false(/eyJ[A-Za-z0-9_-]{8,}/.test(logs), `${s.deployment.name}: the log holds something JWT-shaped`);
    t.false(/bearer\s+\S/i.test(logs), `${s.deployment.name}: the log holds an Authorization value`);
  });
}

/** Where a leak sits in the log, with the leaked piece masked. */
function context(logs: string, piece: string): string {
  const at = logs.indexOf(piece);
  return logs.slice(Math.max(0, at - 120), at).concat('<token>', logs.slice(at + piece.length, at + piece.length + 60));
}

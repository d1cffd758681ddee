// Issue 7, item 2, JWKS mode: the identity provider's key set down, broken,
// empty or stalled. Policy (docs/tokens.md, docs/security.md): when the keys cannot be had, a caller's
// token is not at fault, so the answer is 503 `unavailable` (retry later), not
// 401; an empty or foreign key set is the token's problem (401). Keys once
// fetched keep working through an outage; the service recovers without a
// restart, never crashes, and unknown `kid`s cannot make it hammer the provider.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { inProcessDeployment, type AuthDeployment } from './support/auth-deployments.js';
import { wiresOf, type Surface, type Targets, type Wires } from './support/auth-wire.js';
import { claimsFor, JwksServer, rsaProvider, tokenPieces, type RsaProvider } from './support/forged-tokens.js';
import { scaled } from './support/soak.js';

/** Calls per behaviour and wire: a handful in `npm test`, more in the soak run. */
const REPEATS = scaled(1, 10);
/** jose's JWKS fetch timeout is 5 s; a stalled provider must cost a caller no more than that and some slack. */
const STALL_BOUND_MS = 8_000;

let provider: RsaProvider;
let jwks: JwksServer;
let deployment: AuthDeployment;
let wires: Wires;
const sent = new Set<string>();

test.before(async () => {
  provider = await rsaProvider();
  jwks = await JwksServer.start(() => provider.jwks);
  // Broken from the start: the service has never seen a key.
  await jwks.set('garbage');
  deployment = await inProcessDeployment('jwks-faults', { AUTH_JWKS_URL: jwks.url });
  wires = wiresOf(deployment.url, deployment.serviceAddress);
});

test.after.always(async () => {
  wires?.close();
  await deployment?.stop();
  await jwks?.close();
});

/** One surface per wire for each operation kind (a unary read, a unary write, an upload stream). */
function sample(): Surface[] {
  return wires.surfaces.filter((surface) => ['GetRoute', 'CreateRoute', 'UploadAsset'].includes(surface.operation));
}

const targets: Targets = {
  routeId: 'rt_00000000000000000000000000',
  matchPath: '/nothing',
  assetId: 'as_00000000000000000000000000',
  spares: [],
  spareRoutes: [],
  uploadId: 'up_00000000000000000000000000',
  spareUploads: [],
  freshUploads: [],
  keyId: 'key_00000000000000000000000000',
  spareKeys: [],
  versionedAssetId: 'as_00000000000000000000000000',
  versionId: 'ver_00000000000000000000000000',
  spareVersions: [],
  trashed: [],
  webhookId: 'wh_00000000000000000000000000',
  deliveryId: 'dlv_00000000000000000000000000',
  spareWebhooks: [],
};

async function expectEverywhere(
  t: import('ava').ExecutionContext,
  token: string,
  expected: string | ((surface: Surface) => string),
  why: string,
): Promise<void> {
  const authorization = `Bearer ${token}`;
  for (const piece of tokenPieces(authorization)) sent.add(piece);
  for (let i = 0; i < REPEATS; i++) {
    for (const surface of sample()) {
      const outcome = await surface.call(authorization, targets);
      const want = typeof expected === 'string' ? expected : expected(surface);
      // A valid token reaching a well-formed unknown id is 404: authenticated.
      t.is(outcome.code, want, `${why}: ${surface.name} → ${outcome.code} (${outcome.message})`);
      if (outcome.shapeProblem) t.fail(`${why}: ${surface.name}: ${outcome.shapeProblem}`);
    }
  }
}

const authenticated = (surface: Surface) => (surface.operation === 'GetRoute' ? 'not_found' : 'ok');

test.serial('keys that cannot be had are 503 unavailable on every wire', async (t) => {
  const workspace = `jwks-${randomBytes(4).toString('hex')}`;
  const token = await provider.token(workspace);
  for (const behaviour of ['garbage', 'http-500', 'wrong-type', 'down'] as const) {
    await jwks.set(behaviour);
    await expectEverywhere(t, token, 'unavailable', `JWKS ${behaviour}`);
  }
  // REST callers are told to retry, not to log in again.
  const rest = wires.surfaces.find((surface) => surface.transport === 'rest' && surface.operation === 'GetRoute')!;
  const answer = await rest.call(`Bearer ${token}`, targets);
  t.is(answer.status, 503);
  t.is(answer.challenge, undefined, 'a 503 asks for no new credential');
  t.notRegex(answer.message, /127\.0\.0\.1|ECONNREFUSED|jwks\.json/, 'the provider’s address stays internal');
  // Tokens that fail before any key is needed are 401 even now: no fetch is wasted on them.
  await expectEverywhere(t, 'garbage.token.value', 'unauthenticated', 'garbage while the provider is down');
});

test('an empty key set is 401: the token names no key the provider offers (its own provider, so the cached empty set stays out of the other tests)', async (t) => {
  const own = await rsaProvider();
  const server = await JwksServer.start(() => ({ keys: [] }));
  const alone = await inProcessDeployment('jwks-empty', { AUTH_JWKS_URL: server.url });
  const aloneWires = wiresOf(alone.url, alone.serviceAddress);
  t.teardown(async () => {
    aloneWires.close();
    await alone.stop();
    await server.close();
  });
  const token = await own.token(`empty-${randomBytes(4).toString('hex')}`);
  for (const surface of aloneWires.surfaces.filter((x) => x.operation === 'GetRoute' || x.operation === 'UploadAsset')) {
    const outcome = await surface.call(`Bearer ${token}`, targets);
    t.is(outcome.code, 'unauthenticated', `${surface.name}: ${outcome.message}`);
  }
});

test.serial('a stalled provider costs a caller a bounded wait, then 503; calls in the meantime share the one fetch', async (t) => {
  const token = await provider.token(`stall-${randomBytes(4).toString('hex')}`);
  await jwks.set('stall');
  const before = jwks.requests;
  const rest = wires.surfaces.filter((surface) => surface.operation === 'GetRoute');
  const started = performance.now();
  const outcomes = await Promise.all(rest.map((surface) => surface.call(`Bearer ${token}`, targets)));
  const elapsed = performance.now() - started;
  t.deepEqual(
    outcomes.map((outcome) => outcome.code),
    rest.map(() => 'unavailable'),
  );
  t.true(elapsed < STALL_BOUND_MS, `answered after ${Math.round(elapsed)} ms`);
  t.true(jwks.requests - before <= 2, `${jwks.requests - before} fetches for ${rest.length} concurrent calls`);
  t.log(
    `stalled provider: ${rest.length} concurrent calls answered 503 after ${Math.round(elapsed)} ms with ${jwks.requests - before} fetch(es)`,
  );
});

test.serial('the provider back: valid tokens work without a restart; fetched keys then survive an outage', async (t) => {
  const workspace = `back-${randomBytes(4).toString('hex')}`;
  const token = await provider.token(workspace);
  await jwks.set('ok');
  await expectEverywhere(t, token, authenticated, 'provider back');
  await jwks.set('down');
  await expectEverywhere(t, await provider.token(workspace), authenticated, 'provider down, keys cached');
  await expectEverywhere(t, 'garbage.token.value', 'unauthenticated', 'garbage while the provider is down');
  const stranger = await rsaProvider(provider.kid);
  await expectEverywhere(t, await stranger.token(workspace), 'unauthenticated', 'forged with the provider’s kid while it is down');
  await jwks.set('ok');
});

test.serial('tokens naming unknown kids cannot make the service hammer the provider', async (t) => {
  await jwks.set('ok');
  const workspace = `kids-${randomBytes(4).toString('hex')}`;
  // Keys are cached by now (previous test); each forged kid would trigger a refetch without jose's cooldown.
  await expectEverywhere(t, await provider.token(workspace), authenticated, 'warm');
  const before = jwks.requests;
  const stranger = await rsaProvider();
  const forged = await Promise.all(
    Array.from({ length: scaled(40, 400) }, (_, i) =>
      stranger.signRaw(claimsFor(workspace), { kid: `kid-${i}-${randomBytes(3).toString('hex')}` }),
    ),
  );
  const rest = wires.surfaces.find((surface) => surface.transport === 'rest' && surface.operation === 'GetRoute')!;
  const grpc = wires.surfaces.find((surface) => surface.transport === 'grpc' && surface.operation === 'GetRoute')!;
  const outcomes = await Promise.all(forged.map((token, i) => (i % 2 === 0 ? rest : grpc).call(`Bearer ${token}`, targets)));
  for (const token of forged) for (const piece of tokenPieces(`Bearer ${token}`)) sent.add(piece);
  t.deepEqual([...new Set(outcomes.map((outcome) => outcome.code))], ['unauthenticated']);
  t.true(jwks.requests - before <= 1, `${jwks.requests - before} JWKS fetches for ${forged.length} unknown kids`);
});

test.serial('after every fault the service still serves, and no token reached the log', async (t) => {
  const health = await fetch(`${deployment.url}/healthz`);
  t.is(health.status, 200);
  const logs = deployment.logs();
  t.regex(logs, /dependency unavailable|token signing keys unavailable/, 'the outage is logged');
  for (const piece of sent) if (logs.includes(piece)) t.fail('a token reached the log');
  t.false(/bearer\s+\S/i.test(logs));
  for (const secret of provider.secrets) t.false(logs.includes(secret));
});

import test from 'ava';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { SwitchyardError } from '../errors.js';
import { createManualClock } from '../testing/manual-clock.js';
import { createHmacTokenVerifier, signToken } from './tokens.js';
import { assertRefused, base64url, claims, NOW, NOW_SECONDS, SECRET, secretBytes, signRaw, unsignedToken } from './token-test-support.js';

const clock = createManualClock(NOW);
const verifier = createHmacTokenVerifier(SECRET, { clock });
const key = secretBytes(SECRET);

test('a valid token becomes a principal', async (t) => {
  const principal = await verifier.verify(await signRaw(claims(), key));
  t.is(principal.subject, 'alice');
  t.is(principal.workspace, 'acme');
  t.deepEqual([...principal.scopes].sort(), ['assets:write', 'routes:read']);
  t.true(Object.isFrozen(principal));
});

test('tokens from signToken verify, with its defaults: subject dev, all scopes, one hour', async (t) => {
  const token = await signToken(SECRET, { workspace: 'acme', now: NOW });
  const principal = await verifier.verify(token);
  t.is(principal.subject, 'dev');
  t.deepEqual([...principal.scopes].sort(), ['assets:read', 'assets:write', 'routes:read', 'routes:write', 'workspace:admin']);
  const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
  t.deepEqual(Object.keys(payload).sort(), ['exp', 'iat', 'scope', 'sub', 'workspace']);
  t.is(payload['iat'], NOW_SECONDS);
  t.is(payload['exp'], NOW_SECONDS + 3600);
  t.deepEqual(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()), { alg: 'HS256', typ: 'JWT' });
});

test('a secret given as bytes or as its UTF-8 string is the same key', async (t) => {
  const token = await signToken(key, { workspace: 'acme', now: NOW, subject: 'bob' });
  t.is((await verifier.verify(token)).subject, 'bob');
});

test('unknown scopes are ignored; no scope claim means no scopes', async (t) => {
  const some = await verifier.verify(await signRaw(claims({ scope: '  routes:write  admin:all openid ' }), key));
  t.deepEqual([...some.scopes], ['routes:write']);
  const none = await verifier.verify(await signRaw(claims({ scope: undefined }), key));
  t.is(none.scopes.size, 0);
});

test('alg none is refused, however it is spelled', async (t) => {
  for (const alg of ['none', 'None', 'NONE']) {
    const token = unsignedToken(claims(), alg);
    await assertRefused(t, verifier.verify(token), token, 'token algorithm not accepted');
    const withSignature = `${token}${base64url('sig')}`;
    await assertRefused(t, verifier.verify(withSignature), withSignature, 'token algorithm not accepted');
  }
});

test('expiry: valid one second before exp, expired at exp, tolerance honoured', async (t) => {
  const token = await signToken(SECRET, { workspace: 'acme', now: NOW, ttlSeconds: 60 });
  const at = (seconds: number) => createManualClock(NOW.getTime() + seconds * 1000);
  await t.notThrowsAsync(createHmacTokenVerifier(SECRET, { clock: at(59) }).verify(token));
  await assertRefused(t, createHmacTokenVerifier(SECRET, { clock: at(60) }).verify(token), token, 'token expired');
  await assertRefused(t, createHmacTokenVerifier(SECRET, { clock: at(3600) }).verify(token), token, 'token expired');
  await t.notThrowsAsync(createHmacTokenVerifier(SECRET, { clock: at(80), clockToleranceSeconds: 30 }).verify(token));
});

test('a verified token is reused, but never past its exp (plus tolerance)', async (t) => {
  const token = await signToken(SECRET, { workspace: 'acme', now: NOW, ttlSeconds: 60 });
  const moving = createManualClock(NOW);
  const reusing = createHmacTokenVerifier(SECRET, { clock: moving });
  const first = await reusing.verify(token);
  moving.advance(59_000);
  t.is(await reusing.verify(token), first, 'the same principal, from the cache');
  moving.advance(1_000);
  await assertRefused(t, reusing.verify(token), token, 'token expired');

  const tolerant = createHmacTokenVerifier(SECRET, { clock: createManualClock(NOW), clockToleranceSeconds: 30 });
  await t.notThrowsAsync(tolerant.verify(token));
  const later = createManualClock(NOW.getTime() + 89_000);
  const tolerantLater = createHmacTokenVerifier(SECRET, { clock: later, clockToleranceSeconds: 30 });
  await t.notThrowsAsync(tolerantLater.verify(token));
  later.advance(1_000);
  await assertRefused(t, tolerantLater.verify(token), token, 'token expired');
});

test('a cached token does not vouch for a tampered copy', async (t) => {
  const token = await signToken(SECRET, { workspace: 'acme', now: NOW });
  const reusing = createHmacTokenVerifier(SECRET, { clock });
  await reusing.verify(token);
  const [header, payload] = token.split('.');
  const forged = `${header}.${base64url({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), workspace: 'other' })}.${token.split('.')[2]}`;
  await assertRefused(t, reusing.verify(forged), forged, 'invalid token signature');
});

test('a token is refused before its nbf', async (t) => {
  const token = await signRaw(claims({ nbf: NOW_SECONDS + 120 }), key);
  await assertRefused(t, verifier.verify(token), token, 'token not yet valid');
  const later = createHmacTokenVerifier(SECRET, { clock: createManualClock(NOW.getTime() + 120_000) });
  await t.notThrowsAsync(later.verify(token), 'valid from nbf on');
});

test('a token issued more than a minute in the future (iat) is refused as not yet valid', async (t) => {
  const farAhead = await signRaw(claims({ iat: NOW_SECONDS + 600, exp: NOW_SECONDS + 4200 }), key);
  await assertRefused(t, verifier.verify(farAhead), farAhead, 'token not yet valid');
  const slightlyAhead = await signRaw(claims({ iat: NOW_SECONDS + 60 }), key);
  await t.notThrowsAsync(verifier.verify(slightlyAhead), 'an issuer clock up to a minute ahead is tolerated');
  const beyondSkew = await signRaw(claims({ iat: NOW_SECONDS + 61 }), key);
  await assertRefused(t, verifier.verify(beyondSkew), beyondSkew, 'token not yet valid');
  await t.notThrowsAsync(
    createHmacTokenVerifier(SECRET, { clock, clockToleranceSeconds: 30 }).verify(await signRaw(claims({ iat: NOW_SECONDS + 90 }), key)),
    'the clock tolerance adds to it',
  );
  await t.notThrowsAsync(
    createHmacTokenVerifier(SECRET, { clock: createManualClock(NOW.getTime() + 600_000) }).verify(farAhead),
    'valid once its iat is reached',
  );
  const stringIat = await signRaw(claims({ iat: String(NOW_SECONDS) }), key);
  await assertRefused(t, verifier.verify(stringIat), stringIat, /token iat claim is invalid|malformed token/);
});

test('a token without exp is refused', async (t) => {
  const token = await signRaw(claims({ exp: undefined }), key);
  await assertRefused(t, verifier.verify(token), token, 'token has no exp claim');
});

test('a token signed with another secret, or tampered with, has an invalid signature', async (t) => {
  const other = await signRaw(claims(), secretBytes('another-secret-that-is-long-enough-too'));
  await assertRefused(t, verifier.verify(other), other, 'invalid token signature');
  const [header, , signature] = (await signRaw(claims(), key)).split('.');
  const tampered = `${header}.${base64url(claims({ workspace: 'victim' }))}.${signature}`;
  await assertRefused(t, verifier.verify(tampered), tampered, 'invalid token signature');
});

test('only HS256: RS256 and HS512 tokens are refused', async (t) => {
  const { privateKey } = await generateKeyPair('RS256');
  const rs256 = await signRaw(claims(), privateKey, { alg: 'RS256' });
  await assertRefused(t, verifier.verify(rs256), rs256, 'token algorithm not accepted');
  const hs512 = await signRaw(claims(), new Uint8Array(64).fill(7), { alg: 'HS512' });
  await assertRefused(t, verifier.verify(hs512), hs512, 'token algorithm not accepted');
});

test('a public key PEM used as the HMAC secret is just a wrong secret', async (t) => {
  const { publicKey } = await generateKeyPair('RS256');
  const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(secretBytes(await exportSPKI(publicKey)));
  await assertRefused(t, verifier.verify(token), token, 'invalid token signature');
});

const badClaims: Array<[string, Record<string, unknown>, string]> = [
  ['missing sub', { sub: undefined }, 'token has no valid subject'],
  ['empty sub', { sub: '' }, 'token has no valid subject'],
  ['blank sub', { sub: '   ' }, 'token has no valid subject'],
  ['sub too long', { sub: 'x'.repeat(257) }, 'token has no valid subject'],
  ['sub not a string', { sub: 7 }, 'token has no valid subject'],
  ['missing workspace', { workspace: undefined }, 'token has no valid workspace'],
  ['empty workspace', { workspace: '' }, 'token has no valid workspace'],
  ['workspace with a path', { workspace: '../etc' }, 'token has no valid workspace'],
  ['workspace with a space', { workspace: 'ac me' }, 'token has no valid workspace'],
  ['workspace too long', { workspace: 'w'.repeat(65) }, 'token has no valid workspace'],
  ['workspace not a string', { workspace: 42 }, 'token has no valid workspace'],
  ['workspace an array', { workspace: ['acme'] }, 'token has no valid workspace'],
  ['scope an array', { scope: ['routes:read'] }, 'token scope must be a space-separated string'],
  ['scope a number', { scope: 1 }, 'token scope must be a space-separated string'],
];

for (const [title, overrides, reason] of badClaims) {
  test(`refuses a token with ${title}`, async (t) => {
    const token = await signRaw(claims(overrides), key);
    await assertRefused(t, verifier.verify(token), token, reason);
  });
}

const garbage = [
  '',
  'abc',
  'a.b',
  'a.b.c',
  '...',
  'a.b.c.d',
  `${base64url('not json')}.${base64url(claims())}.sig`,
  `${base64url({ alg: 'HS256' })}.${base64url('not json')}.c2ln`,
  `${base64url({ alg: 'HS256' })}.${base64url([1, 2])}.c2ln`,
  `${base64url({})}.${base64url(claims())}.c2ln`,
  'ü.ö.ä',
  'x'.repeat(10_000),
  `${base64url({ alg: 'HS256', crit: ['exp'] })}.${base64url(claims())}.c2ln`,
];

test('garbage is unauthenticated, never a crash', async (t) => {
  for (const token of garbage) await assertRefused(t, verifier.verify(token), token, /token/);
  await assertRefused(t, verifier.verify(undefined as unknown as string), '', /token/);
});

test('issuer and audience, when configured, must match', async (t) => {
  const strict = createHmacTokenVerifier(SECRET, { clock, issuer: 'https://id.example', audience: 'switchyard' });
  const good = await signRaw(claims({ iss: 'https://id.example', aud: ['other', 'switchyard'] }), key);
  t.is((await strict.verify(good)).workspace, 'acme');
  const wrongIssuer = await signRaw(claims({ iss: 'https://evil.example', aud: 'switchyard' }), key);
  await assertRefused(t, strict.verify(wrongIssuer), wrongIssuer, 'token issuer not accepted');
  const wrongAudience = await signRaw(claims({ iss: 'https://id.example', aud: 'other' }), key);
  await assertRefused(t, strict.verify(wrongAudience), wrongAudience, 'token audience not accepted');
  const noIssuer = await signRaw(claims({ aud: 'switchyard' }), key);
  await assertRefused(t, strict.verify(noIssuer), noIssuer, 'token has no iss claim');
});

test('bad verifier configuration is invalid_argument', (t) => {
  for (const secret of ['', 'short', new Uint8Array(31)]) {
    t.throws(() => createHmacTokenVerifier(secret), { instanceOf: SwitchyardError, message: /at least 32 bytes/ });
  }
  t.throws(() => createHmacTokenVerifier(SECRET, { clockToleranceSeconds: -1 }), { instanceOf: SwitchyardError });
});

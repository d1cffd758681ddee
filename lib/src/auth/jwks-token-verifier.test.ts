import test from 'ava';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { createManualClock } from '../testing/manual-clock.js';
import { createJwksTokenVerifier } from './tokens.js';
import { assertRefused, claims, NOW, secretBytes, signRaw, unsignedToken } from './token-test-support.js';

const clock = createManualClock(NOW);
const rsa = await generateKeyPair('RS256', { extractable: true });
const ec = await generateKeyPair('ES256', { extractable: true });
const stranger = await generateKeyPair('RS256', { extractable: true });
const jwks = {
  keys: [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256' },
  ],
};

interface JwksServer {
  readonly url: string;
  readonly requests: () => number;
  close(): Promise<void>;
}

/** A real identity provider stand-in on loopback: answers `/jwks.json` with `body` and `status`. */
async function serveJwks(body: string = JSON.stringify(jwks), status = 200): Promise<JwksServer> {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    requests += 1;
    if (request.url !== '/jwks.json') return void response.writeHead(404).end();
    response.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const provider = await serveJwks();
test.after.always(() => provider.close());
const verifier = createJwksTokenVerifier(provider.url, { clock });

test('RS256 and ES256 tokens signed by the provider become principals', async (t) => {
  const fromRsa = await verifier.verify(await signRaw(claims(), rsa.privateKey, { alg: 'RS256', kid: 'rsa-1' }));
  t.is(fromRsa.workspace, 'acme');
  const fromEc = await verifier.verify(await signRaw(claims({ sub: 'bob' }), ec.privateKey, { alg: 'ES256', kid: 'ec-1' }));
  t.is(fromEc.subject, 'bob');
  const noKid = await verifier.verify(await signRaw(claims(), ec.privateKey, { alg: 'ES256' }));
  t.is(noKid.subject, 'alice', 'a token without kid finds the one key of its type');
});

test('the JWKS is fetched once and cached across verifications', async (t) => {
  const own = await serveJwks();
  t.teardown(() => own.close());
  const cached = createJwksTokenVerifier(new URL(own.url), { clock });
  for (let i = 0; i < 3; i++) await cached.verify(await signRaw(claims(), rsa.privateKey, { alg: 'RS256', kid: 'rsa-1' }));
  t.is(own.requests(), 1);
});

test('key confusion: an HS256 token keyed with the public key PEM is refused', async (t) => {
  const pem = await exportSPKI(rsa.publicKey);
  for (const kid of [undefined, 'rsa-1']) {
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', ...(kid ? { kid } : {}) }).sign(secretBytes(pem));
    await assertRefused(t, verifier.verify(token), token, 'token algorithm not accepted');
  }
});

test('alg none is refused', async (t) => {
  const token = unsignedToken();
  await assertRefused(t, verifier.verify(token), token, 'token algorithm not accepted');
});

test('a token signed by an unknown key is refused: same kid → bad signature, unknown kid → no key', async (t) => {
  const sameKid = await signRaw(claims(), stranger.privateKey, { alg: 'RS256', kid: 'rsa-1' });
  await assertRefused(t, verifier.verify(sameKid), sameKid, 'invalid token signature');
  const otherKid = await signRaw(claims(), stranger.privateKey, { alg: 'RS256', kid: 'rsa-9' });
  await assertRefused(t, verifier.verify(otherKid), otherKid, 'no known key matches the token');
  const rs512 = await generateKeyPair('RS512');
  const wrongAlgForKey = await signRaw(claims(), rs512.privateKey, { alg: 'RS512', kid: 'rsa-1' });
  await assertRefused(t, verifier.verify(wrongAlgForKey), wrongAlgForKey, 'no known key matches the token');
});

test('expired, not yet valid and claim-less tokens are refused as with HMAC', async (t) => {
  const sign = (overrides: Record<string, unknown>) => signRaw(claims(overrides), rsa.privateKey, { alg: 'RS256', kid: 'rsa-1' });
  const expired = await sign({ exp: NOW.getTime() / 1000 - 1 });
  await assertRefused(t, verifier.verify(expired), expired, 'token expired');
  const early = await sign({ nbf: NOW.getTime() / 1000 + 60 });
  await assertRefused(t, verifier.verify(early), early, 'token not yet valid');
  const issuedLater = await sign({ iat: NOW.getTime() / 1000 + 600 });
  await assertRefused(t, verifier.verify(issuedLater), issuedLater, 'token not yet valid');
  const noWorkspace = await sign({ workspace: undefined });
  await assertRefused(t, verifier.verify(noWorkspace), noWorkspace, 'token has no valid workspace');
});

test('a JWKS that cannot be fetched or read makes verification unavailable', async (t) => {
  const token = await signRaw(claims(), rsa.privateKey, { alg: 'RS256', kid: 'rsa-1' });
  const closed = await serveJwks();
  await closed.close();
  const broken = [await serveJwks('oops', 500), await serveJwks('not json'), await serveJwks(JSON.stringify({ keys: 'nope' }))];
  t.teardown(() => Promise.all(broken.map((server) => server.close())).then(() => undefined));
  for (const url of [closed.url, ...broken.map((server) => server.url), `${provider.url}-missing`]) {
    await assertRefused(t, createJwksTokenVerifier(url, { clock }).verify(token), token, 'token signing keys unavailable', 'unavailable');
  }
});

test('garbage never reaches the network and is unauthenticated', async (t) => {
  const own = await serveJwks();
  t.teardown(() => own.close());
  const lazy = createJwksTokenVerifier(own.url, { clock });
  for (const token of ['', 'a.b.c', 'x'.repeat(9000)]) await assertRefused(t, lazy.verify(token), token, /token/);
  t.is(own.requests(), 0);
});

// Tokens as an attacker would craft them, written independently of the library:
// unsigned, re-signed with the wrong key or algorithm, tampered, expired, with
// missing or mistyped claims, and header values that are not a bearer token.
import { createHash, createHmac, generateKeyPairSync, randomBytes, sign as rsaSign, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK, JWTPayload } from 'jose';

export const ALL_SCOPES = 'routes:read routes:write assets:read assets:write workspace:admin';

/** What a request carries as `Authorization`: nothing, one value, or several header lines. */
export type AuthValue = string | readonly string[] | undefined;

/** Signs whatever claims and header it is given, as the deployment's real issuer would. */
export interface Issuer {
  readonly mode: 'hmac' | 'jwks';
  /** A token the deployment accepts: sub, workspace, all scopes, iat now, exp in an hour; `overrides` replace or (undefined) remove claims. */
  token(workspace: string, overrides?: Record<string, unknown>): Promise<string>;
  /** Signs `payload` exactly as given (no defaults), with the issuer's real key. */
  signRaw(payload: JWTPayload, header?: Record<string, unknown>): Promise<string>;
  /** Strings that must never appear in a log: the secret, private key material. */
  readonly secrets: readonly string[];
  /** The public key as PEM (for key confusion; for HMAC, a key the attacker might try). */
  readonly publicPem: string;
  readonly publicJwk: JWK;
}

const now = (): number => Math.floor(Date.now() / 1000);

/** Valid claims for `workspace`, with `overrides` applied (an undefined override removes the claim). */
export function claimsFor(workspace: string, overrides: Record<string, unknown> = {}): JWTPayload {
  const base: Record<string, unknown> = { sub: 'attacker-test', workspace, scope: ALL_SCOPES, iat: now(), exp: now() + 3600, ...overrides };
  return Object.fromEntries(Object.entries(base).filter(([, value]) => value !== undefined));
}

/**
 * Signs by hand (node:crypto, no JWT library): any header, including ones a
 * library would refuse to produce (unknown `crit`, `alg` against the key).
 * HS* take the key bytes; RS256 takes a private key.
 */
async function sign(payload: unknown, key: Uint8Array | KeyObject, header: Record<string, unknown>): Promise<string> {
  const alg = String(header['alg']);
  const input = `${base64url({ typ: 'JWT', ...header })}.${base64url(payload)}`;
  let signature: Buffer;
  if (/^HS(256|384|512)$/.test(alg) && key instanceof Uint8Array)
    signature = createHmac(`sha${alg.slice(2)}`, key)
      .update(input)
      .digest();
  else if (alg === 'RS256' && !(key instanceof Uint8Array)) signature = rsaSign('sha256', Buffer.from(input), key);
  else throw new Error(`cannot sign ${alg} with this key`);
  return `${input}.${signature.toString('base64url')}`;
}

export function hmacIssuer(secret: string): Issuer {
  const key = new TextEncoder().encode(secret);
  // A key pair the deployment has never seen, to try RS256 against an HS256 deployment.
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = stranger.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    mode: 'hmac',
    token: (workspace, overrides) => sign(claimsFor(workspace, overrides), key, { alg: 'HS256' }),
    signRaw: (payload, header = {}) => sign(payload, key, { alg: 'HS256', ...header }),
    secrets: [secret],
    publicPem,
    publicJwk: stranger.publicKey.export({ format: 'jwk' }),
  };
}

/** An RSA identity provider: its private key signs, its JWKS is served by `JwksServer`. */
export interface RsaProvider extends Issuer {
  readonly kid: string;
  readonly jwks: { keys: JWK[] };
}

export async function rsaProvider(kid = `rsa-${randomBytes(4).toString('hex')}`): Promise<RsaProvider> {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pkcs8 = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const privateKey = pair.privateKey;
  const publicJwk = { ...(pair.publicKey.export({ format: 'jwk' }) as JWK), kid, alg: 'RS256', use: 'sig' };
  const privateJwk = pair.privateKey.export({ format: 'jwk' }) as JWK;
  const publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    mode: 'jwks',
    kid,
    jwks: { keys: [publicJwk] },
    token: (workspace, overrides) => sign(claimsFor(workspace, overrides), privateKey, { alg: 'RS256', kid }),
    signRaw: (payload, header = {}) => sign(payload, privateKey, { alg: 'RS256', kid, ...header }),
    secrets: [pkcs8.split('\n').slice(1, -2).join(''), privateJwk.d!, privateJwk.p!, privateJwk.q!],
    publicPem,
    publicJwk,
  };
}

export function base64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** One way of attacking authentication: the `Authorization` value(s) it sends, and a marker the logs must never show. */
export interface Attack {
  readonly name: string;
  readonly authorization: AuthValue;
}

/**
 * Every attack on authentication the contract says is 401 `unauthenticated`,
 * against a deployment whose real issuer is `issuer`. The claims name
 * `workspace`, which holds records: were any attack let in, the call would
 * succeed instead of being refused.
 */
export async function authenticationAttacks(issuer: Issuer, workspace: string): Promise<Attack[]> {
  const valid = await issuer.token(workspace);
  const [validHeader, validPayload, validSignature] = valid.split('.') as [string, string, string];
  const header = JSON.parse(Buffer.from(validHeader, 'base64url').toString()) as Record<string, unknown>;
  const claims = claimsFor(workspace);
  const strangerSecret = randomBytes(32).toString('base64url');
  const stranger = await rsaProvider(issuer.mode === 'jwks' ? (header['kid'] as string) : 'rsa-stranger');
  const unsigned = (alg: string, payload: JWTPayload = claims, signature = '') =>
    `${base64url({ alg, typ: 'JWT' })}.${base64url(payload)}.${signature}`;
  const raw = (payload: JWTPayload, extraHeader: Record<string, unknown> = {}) => issuer.signRaw(payload, extraHeader);
  const hs = (alg: 'HS256' | 'HS384' | 'HS512', secret: string | Uint8Array, extra: Record<string, unknown> = {}) =>
    sign(claims, typeof secret === 'string' ? new TextEncoder().encode(secret) : new Uint8Array(secret), { alg, ...extra });
  const bearer = (token: string) => `Bearer ${token}`;
  const t = now();

  const list: Array<[string, AuthValue | Promise<AuthValue>]> = [
    // ── the header itself ──
    ['no Authorization header', undefined],
    ['empty Authorization header', ''],
    ['scheme without token', 'Bearer'],
    ['garbage token', 'Bearer garbage-token-b7f3e1'],
    ['Basic credentials', `Basic ${Buffer.from('attacker:password-b7f3e1').toString('base64')}`],
    ['valid token under another scheme', `Token ${valid}`],
    ['valid token without a scheme', valid],
    ['two tokens in one header', `Bearer ${valid} ${valid}`],
    ['a list of credentials in one header', `Bearer ${valid}, Bearer garbage-token-b7f3e1`],
    ['valid token then a second Authorization header', [bearer(valid), 'Bearer garbage-token-b7f3e1']],
    ['garbage then a second Authorization header with a valid token', ['Bearer garbage-token-b7f3e1', bearer(valid)]],
    ['tab between scheme and token', `Bearer\t${valid}`],
    ['a latin-1 byte after a valid token', `Bearer ${valid}\u00ff`],
    ['latin-1 token', 'Bearer \u00e9t\u00e9-b7f3e1'],
    ['token over 8 KiB', bearer(`${validHeader}.${'A'.repeat(9000)}.${validSignature}`)],
    ['two-part token', bearer(`${validHeader}.${validPayload}`)],
    ['five-part (JWE-shaped) token', bearer(`${validHeader}.${validPayload}.${validSignature}.AAAA.BBBB`)],
    ['header that is not JSON', bearer(`${base64url('not json')}.${validPayload}.${validSignature}`)],
    ['payload that is not JSON', bearer(`${validHeader}.${base64url('not json')}.${validSignature}`)],
    // ── the signature ──
    ['alg none, no signature', bearer(unsigned('none'))],
    ['alg None, no signature', bearer(unsigned('None'))],
    ['alg NONE, no signature', bearer(unsigned('NONE'))],
    ['alg none keeping the real signature', bearer(unsigned('none', claims, validSignature))],
    ['payload swapped under the real signature', bearer(`${validHeader}.${base64url(claimsFor('someone-else'))}.${validSignature}`)],
    ['signature stripped', bearer(`${validHeader}.${validPayload}.`)],
    [
      'signature of another token',
      bearer(`${validHeader}.${validPayload}.${(await issuer.token(workspace, { sub: 'other' })).split('.')[2]}`),
    ],
    ['HS256 signed with another secret', bearer(await hs('HS256', strangerSecret))],
    ['RS256 signed by an unknown key', bearer(await stranger.signRaw(claims))],
    [
      'HS256 keyed with the RSA public key PEM (key confusion)',
      bearer(await hs('HS256', issuer.publicPem, issuer.mode === 'jwks' ? { kid: header['kid'] } : {})),
    ],
    ['HS256 keyed with the public JWK JSON (key confusion)', bearer(await hs('HS256', JSON.stringify(issuer.publicJwk)))],
    ['HS256 keyed with the RSA modulus bytes (key confusion)', bearer(await hs('HS256', Buffer.from(issuer.publicJwk.n!, 'base64url')))],
    [
      'HS512 (an algorithm not offered)',
      bearer(issuer.mode === 'hmac' ? await raw(claims, { alg: 'HS512' }) : await hs('HS512', issuer.publicPem)),
    ],
    [
      'HS384 (an algorithm not offered)',
      bearer(issuer.mode === 'hmac' ? await raw(claims, { alg: 'HS384' }) : await hs('HS384', issuer.publicPem)),
    ],
    ['embedded jwk header naming the attacker key', bearer(await stranger.signRaw(claims, { jwk: stranger.publicJwk }))],
    [
      'jku header pointing at an attacker JWKS',
      bearer(await stranger.signRaw(claims, { jku: 'http://127.0.0.1:9/jwks.json', x5u: 'http://127.0.0.1:9/cert.pem' })),
    ],
    ['kid with path traversal', bearer(await stranger.signRaw(claims, { kid: '../../../../dev/null' }))],
    ['kid with SQL', bearer(await stranger.signRaw(claims, { kid: "' OR '1'='1" }))],
    ['unknown critical header', bearer(await raw(claims, { crit: ['x-must-understand'], 'x-must-understand': true }))],
    // ── time ──
    ['expired an hour ago', bearer(await raw(claimsFor(workspace, { iat: t - 7200, exp: t - 3600 })))],
    ['expired a second ago', bearer(await raw(claimsFor(workspace, { iat: t - 600, exp: t - 1 })))],
    ['not valid before ten minutes from now (nbf)', bearer(await raw(claimsFor(workspace, { nbf: t + 600 })))],
    ['issued ten minutes in the future (iat)', bearer(await raw(claimsFor(workspace, { iat: t + 600, exp: t + 4200 })))],
    ['no exp', bearer(await raw(claimsFor(workspace, { exp: undefined })))],
    ['exp as a string', bearer(await raw(claimsFor(workspace, { exp: String(t + 3600) })))],
    ['nbf as a string', bearer(await raw(claimsFor(workspace, { nbf: String(t - 60) })))],
    ['iat as a string', bearer(await raw(claimsFor(workspace, { iat: String(t) })))],
    // ── claims ──
    ['no workspace', bearer(await raw(claimsFor(workspace, { workspace: undefined })))],
    ['empty workspace', bearer(await raw(claimsFor(workspace, { workspace: '' })))],
    ['workspace as a number', bearer(await raw(claimsFor(workspace, { workspace: 42 })))],
    ['workspace as a list', bearer(await raw(claimsFor(workspace, { workspace: [workspace] })))],
    ['workspace as an object', bearer(await raw(claimsFor(workspace, { workspace: { name: workspace } })))],
    ['workspace with traversal', bearer(await raw(claimsFor(workspace, { workspace: `../${workspace}` })))],
    ['workspace with a NUL', bearer(await raw(claimsFor(workspace, { workspace: `${workspace}\u0000` })))],
    ['workspace of 65 characters', bearer(await raw(claimsFor(workspace, { workspace: 'w'.repeat(65) })))],
    ['no sub', bearer(await raw(claimsFor(workspace, { sub: undefined })))],
    ['empty sub', bearer(await raw(claimsFor(workspace, { sub: '' })))],
    ['blank sub', bearer(await raw(claimsFor(workspace, { sub: '   ' })))],
    ['sub as a number', bearer(await raw(claimsFor(workspace, { sub: 7 })))],
    ['sub of 257 characters', bearer(await raw(claimsFor(workspace, { sub: 's'.repeat(257) })))],
    ['scope as a list', bearer(await raw(claimsFor(workspace, { scope: ALL_SCOPES.split(' ') })))],
    ['scope as an object', bearer(await raw(claimsFor(workspace, { scope: { all: true } })))],
    ['claims that are a JSON list', bearer(await raw([claims] as unknown as JWTPayload))],
    ['claims that are a JSON string', bearer(await raw(JSON.stringify(JSON.stringify(claims)) as unknown as JWTPayload))],
  ];
  const attacks: Attack[] = [];
  for (const [name, value] of list) attacks.push({ name, authorization: await value });
  return attacks;
}

/**
 * Valid tokens that lack the scope an operation needs: 403
 * `permission_denied`, never a success and never a 401.
 */
export async function scopeAttacks(issuer: Issuer, workspace: string, needed: string): Promise<Attack[]> {
  const others = ALL_SCOPES.split(' ')
    .filter((scope) => scope !== needed)
    .join(' ');
  const variants: Array<[string, unknown]> = [
    [`every scope but ${needed}`, others],
    ['no scope claim', undefined],
    ['an empty scope', ''],
    ['admin and wildcard scopes', 'admin * routes:* assets:*'],
    [`${needed} in upper case`, needed.toUpperCase()],
    [`${needed} with a suffix`, `${needed}x`],
    [`${needed} glued to another scope`, `${others.replace(/ /g, ',')},${needed}`],
  ];
  const attacks: Attack[] = [];
  for (const [name, scope] of variants) attacks.push({ name, authorization: `Bearer ${await issuer.token(workspace, { scope })}` });
  return attacks;
}

/** Places other than the Authorization header where a token must be ignored. */
export function misplacedTokens(token: string): Array<{ name: string; query?: string; headers?: Record<string, string> }> {
  const encoded = encodeURIComponent(token);
  return [
    { name: 'access_token query parameter', query: `access_token=${encoded}` },
    { name: 'token query parameter', query: `token=${encoded}` },
    { name: 'authorization query parameter', query: `authorization=${encodeURIComponent(`Bearer ${token}`)}` },
    { name: 'cookie', headers: { cookie: `access_token=${token}; token=${token}` } },
    { name: 'X-Access-Token header', headers: { 'x-access-token': token } },
    { name: 'Proxy-Authorization header', headers: { 'proxy-authorization': `Bearer ${token}` } },
    { name: 'X-Forwarded-Authorization header', headers: { 'x-forwarded-authorization': `Bearer ${token}` } },
  ];
}

/** Pieces of a token long enough to identify it: the whole, each part, the signature. */
export function tokenPieces(value: AuthValue): string[] {
  const values = value === undefined ? [] : typeof value === 'string' ? [value] : [...value];
  const pieces = new Set<string>();
  for (const item of values) {
    const token = item.replace(/^\S+\s+/, '');
    for (const piece of [token, ...token.split(/[.\s,]+/)]) if (piece.length >= 16) pieces.add(piece);
    // An API key's secret without its prefix is as much a leak.
    for (const key of token.match(/sy_[0-9A-Za-z]{16,}/g) ?? []) pieces.add(key.slice(3));
    // The marker of the short forged values, with its hyphen: six hex digits alone turn up in random trace and request ids.
    if (/-b7f3e1/.test(item)) pieces.add('-b7f3e1');
  }
  return [...pieces];
}

/** A short fingerprint for messages, so a failing assertion does not print the token either. */
export function fingerprint(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 12);
}

export type JwksBehaviour = 'ok' | 'down' | 'garbage' | 'http-500' | 'no-keys' | 'stall' | 'wrong-type';

/**
 * An identity provider's JWKS endpoint on loopback whose behaviour the test
 * switches: the keys, refused connections (port closed), garbage, 500, an
 * empty set, a stall (no answer at all), or keys of the wrong shape.
 */
export class JwksServer {
  #server: Server | undefined;
  #port = 0;
  #behaviour: JwksBehaviour = 'ok';
  #stalled: ServerResponse[] = [];
  requests = 0;

  private constructor(readonly keys: () => { keys: JWK[] }) {}

  static async start(keys: () => { keys: JWK[] }): Promise<JwksServer> {
    const server = new JwksServer(keys);
    await server.#listen();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/.well-known/jwks.json`;
  }

  async set(behaviour: JwksBehaviour): Promise<void> {
    if (behaviour === 'down' && this.#server) await this.#close();
    if (behaviour !== 'down' && !this.#server) await this.#listen();
    this.#behaviour = behaviour;
  }

  async close(): Promise<void> {
    await this.#close();
  }

  async #listen(): Promise<void> {
    const server = createServer((request, response) => {
      this.requests += 1;
      if (request.url !== '/.well-known/jwks.json') return void response.writeHead(404).end();
      const json = (status: number, body: string) => response.writeHead(status, { 'content-type': 'application/json' }).end(body);
      switch (this.#behaviour) {
        case 'ok':
          return json(200, JSON.stringify(this.keys()));
        case 'garbage':
          return json(200, '{"keys": [ this is not json');
        case 'http-500':
          return json(500, '{"error":"internal"}');
        case 'no-keys':
          return json(200, '{"keys":[]}');
        case 'wrong-type':
          return json(200, JSON.stringify({ keys: 'rsa' }));
        case 'stall':
          this.#stalled.push(response);
          return;
        case 'down':
          return void response.destroy();
      }
    });
    // Reuse the port, so the URL the service was given stays right across down and up.
    server.listen(this.#port, '127.0.0.1');
    await once(server, 'listening');
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async #close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    for (const response of this.#stalled.splice(0)) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

import { SignJWT } from 'jose';

export const BENCH_WORKSPACE = 'bench';
const ALL_SCOPES = 'routes:read routes:write assets:read assets:write';

/** A bearer token as docs/tokens.md describes it (HS256 over AUTH_SECRET), accepted by ours and the baselines alike. */
export async function benchToken(secret: string, workspace = BENCH_WORKSPACE, scope = ALL_SCOPES): Promise<string> {
  return new SignJWT({ workspace, scope })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('bench')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(secret));
}

/** An API key of the bench workspace for `scopes`, made through ours' REST with an admin token (docs/tokens.md); its secret. */
export async function benchKey(url: string, secret: string, scopes: readonly string[]): Promise<string> {
  const admin = await benchToken(secret, BENCH_WORKSPACE, 'workspace:admin assets:read');
  const response = await fetch(`${url}/v1/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes, expiresAt: new Date(Date.now() + 86_400_000).toISOString() }),
  });
  const body = (await response.json()) as { secret?: string };
  if (response.status !== 201 || !body.secret) throw new Error(`creating a key failed: ${response.status} ${JSON.stringify(body)}`);
  return body.secret;
}

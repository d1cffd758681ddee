import { SignJWT } from 'jose';

export const BENCH_WORKSPACE = 'bench';
const ALL_SCOPES = 'routes:read routes:write assets:read assets:write';

/** A bearer token as docs/tokens.md describes it (HS256 over AUTH_SECRET), accepted by ours and the baselines alike. */
export async function benchToken(secret: string, workspace = BENCH_WORKSPACE): Promise<string> {
  return new SignJWT({ workspace, scope: ALL_SCOPES })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('bench')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(secret));
}

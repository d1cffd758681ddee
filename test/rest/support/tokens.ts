import { SignJWT, UnsecuredJWT } from 'jose';

export const ALL_SCOPES = 'routes:read routes:write assets:read assets:write workspace:admin';

export interface Claims {
  readonly workspace?: string | undefined;
  readonly subject?: string | undefined;
  readonly scope?: string | undefined;
  /** Seconds from now; negative for an expired token. */
  readonly expiresIn?: number | undefined;
  readonly notBefore?: number | undefined;
}

/** A token as docs/tokens.md describes it (HS256 JWT: sub, workspace, scope, iat, exp), minted independently of the library. */
export async function mintToken(secret: string, claims: Claims = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = { scope: claims.scope ?? ALL_SCOPES };
  if (claims.workspace !== undefined) payload['workspace'] = claims.workspace;
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.subject ?? 'tester')
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.expiresIn ?? 3600));
  if (claims.notBefore !== undefined) jwt.setNotBefore(now + claims.notBefore);
  return jwt.sign(new TextEncoder().encode(secret));
}

export function unsignedToken(workspace: string): string {
  const now = Math.floor(Date.now() / 1000);
  return new UnsecuredJWT({ workspace, scope: ALL_SCOPES })
    .setSubject('tester')
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .encode();
}

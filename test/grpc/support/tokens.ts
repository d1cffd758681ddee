import { SignJWT, UnsecuredJWT } from 'jose';

export const ALL_SCOPES = 'routes:read routes:write assets:read assets:write workspace:admin';

export interface TokenClaims {
  readonly workspace?: string | undefined;
  readonly subject?: string | undefined;
  readonly scope?: string | undefined;
  /** Seconds from now; negative for an expired token. */
  readonly expiresIn?: number | undefined;
  /** Seconds from now before which the token is not valid. */
  readonly notBefore?: number | undefined;
}

/**
 * Mints tokens exactly as docs/tokens.md describes them (HS256 JWT with sub,
 * workspace, scope, iat, exp), independently of the library's own signer, so
 * the service is tested against the contract rather than against itself.
 */
export async function mintToken(secret: string, claims: TokenClaims = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ ...(claims.workspace === undefined ? {} : { workspace: claims.workspace }), scope: claims.scope ?? ALL_SCOPES })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.expiresIn ?? 3600));
  if (claims.subject !== '') jwt.setSubject(claims.subject ?? 'tester');
  if (claims.notBefore !== undefined) jwt.setNotBefore(now + claims.notBefore);
  return jwt.sign(new TextEncoder().encode(secret));
}

/** An `alg: none` token carrying valid-looking claims. */
export function unsignedToken(workspace: string): string {
  const now = Math.floor(Date.now() / 1000);
  return new UnsecuredJWT({ workspace, scope: ALL_SCOPES })
    .setSubject('tester')
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .encode();
}

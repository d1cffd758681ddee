import type { IncomingMessage } from 'node:http';
import { jwtVerify } from 'jose';

/** The same check ours makes: HS256 bearer token with a workspace and the needed scope. */
export function createAuth(secret: string) {
  // Imported once, as ours should too: handing jose raw bytes re-imports the key on every verify.
  const key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  return async function authorize(
    req: Pick<IncomingMessage, 'headers'> | { headers: { authorization?: string | undefined } },
    scope: string,
  ): Promise<{ workspace: string } | { status: 401 | 403 }> {
    const header = req.headers.authorization;
    if (!header?.startsWith('Bearer ')) return { status: 401 };
    try {
      const { payload } = await jwtVerify(header.slice(7), await key, { algorithms: ['HS256'], requiredClaims: ['exp'] });
      if (typeof payload.workspace !== 'string' || typeof payload.sub !== 'string') return { status: 401 };
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
      return scopes.includes(scope) ? { workspace: payload.workspace } : { status: 403 };
    } catch {
      return { status: 401 };
    }
  };
}

export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

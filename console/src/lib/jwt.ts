// Reads a bearer token's claims in the browser. Nothing here verifies the
// signature (only the server can): the claims only shape what the console
// shows and enables, and every call is still checked by the server.

export interface TokenClaims {
  readonly subject: string;
  readonly workspace: string;
  readonly scopes: readonly string[];
  /** Seconds since the epoch, or undefined when the token never expires. */
  readonly expiresAt: number | undefined;
}

/** The claims of a JWT, or a reason why the text is not one. */
export function decodeToken(token: string): TokenClaims | string {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] === '' || parts[1] === '') return 'This is not a JWT: a token has three parts separated by dots.';
  let payload: unknown;
  try {
    payload = JSON.parse(base64UrlDecode(parts[1]!));
  } catch {
    return 'This is not a JWT: its payload is not base64url-encoded JSON.';
  }
  if (typeof payload !== 'object' || payload === null) return 'This is not a JWT: its payload is not a JSON object.';
  const claims = payload as Record<string, unknown>;
  const workspace = typeof claims['workspace'] === 'string' ? claims['workspace'] : '';
  if (workspace === '') return 'The token names no workspace (claim "workspace").';
  return {
    subject: typeof claims['sub'] === 'string' ? claims['sub'] : '',
    workspace,
    scopes: typeof claims['scope'] === 'string' ? claims['scope'].split(' ').filter(Boolean) : [],
    expiresAt: typeof claims['exp'] === 'number' ? claims['exp'] : undefined,
  };
}

function base64UrlDecode(text: string): string {
  const base64 = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=');
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

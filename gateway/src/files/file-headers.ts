/** Files are addressed by content (a new upload or replace gets a new url), so every cache may keep them for good. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Private files (signed urls): never in a shared cache; a browser revalidates, and a revoked or expired link then fails. */
export const PRIVATE_FILE = 'private, no-cache';
/** `?download` of a public file: cached, but revalidated, since a rename changes its Content-Disposition and not its url. */
export const DOWNLOAD = 'public, no-cache';
export const SANDBOX_POLICY = "sandbox; default-src 'none'";

/**
 * Types a browser may show inline in our origin: they cannot carry script.
 * Everything else (HTML, SVG, XML, XHTML, unknown bytes, office documents…) is
 * sent as a download. An allow list, so a type nobody thought of is safe too.
 */
const INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'text/plain',
  'text/csv',
  'application/json',
  'application/pdf',
]);
const INLINE_PREFIXES = ['audio/', 'video/'];

export function isInlineType(type: string): boolean {
  const bare = type.split(';')[0]!.trim().toLowerCase();
  return INLINE_TYPES.has(bare) || INLINE_PREFIXES.some((prefix) => bare.startsWith(prefix));
}

/**
 * Headers that keep an uploaded file from running script in the gateway's
 * origin: no sniffing, a sandbox policy (no script, no plugins, an opaque
 * origin) on everything but PDF, whose viewers refuse to run sandboxed, and
 * `attachment` for every type not known to be inert.
 */
export function safetyHeaders(type: string): Record<string, string> {
  const headers: Record<string, string> = { 'x-content-type-options': 'nosniff', 'cross-origin-resource-policy': 'cross-origin' };
  if (type.toLowerCase() !== 'application/pdf') headers['content-security-policy'] = SANDBOX_POLICY;
  if (!isInlineType(type)) headers['content-disposition'] = 'attachment';
  return headers;
}

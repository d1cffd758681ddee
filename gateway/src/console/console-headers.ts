/**
 * The headers of every console response (CONTRACT.md, "Console and API
 * reference"): a CSP that runs only the console's own scripts and styles and
 * loads images and media from the CDN too (thumbnails, previews, signed
 * links), no framing, no referrer (a signed url in a link must not leak).
 */
export function consoleSecurityHeaders(cdnUrl: string): Readonly<Record<string, string>> {
  const cdn = new URL(cdnUrl).origin;
  const directives = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' blob: data: ${cdn}`,
    `media-src 'self' blob: ${cdn}`,
    `connect-src 'self' ${cdn}`,
    "font-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ];
  return Object.freeze({ 'content-security-policy': directives.join('; '), 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' });
}

/** Vite names what it builds by content hash under assets/: such a file never changes, so it is cached for good. */
export function consoleCacheControl(path: string): string {
  return /(^|\/)assets\/[^/]+-[A-Za-z0-9_-]{8,}(\.[a-z0-9]+)+$/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

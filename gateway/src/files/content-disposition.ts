/**
 * `Content-Disposition: attachment` naming the file (RFC 6266): `filename*`
 * carries the name in UTF-8, percent-encoded (RFC 8187), and every current
 * browser takes it; `filename` is an ASCII stand-in for older clients. The
 * whole value is printable ASCII, so no name (cleaned of control characters
 * already) can end the header or start another one.
 */
export function attachmentNamed(name: string): string {
  return `attachment; filename="${asciiFallback(name)}"; filename*=UTF-8''${encodeExtValue(name)}`;
}

/**
 * RFC 8187 `value-chars`: every byte of the UTF-8 but `attr-char` percent-
 * encoded. encodeURIComponent leaves `'()*` as they are, which attr-char
 * does not allow; a lone surrogate (which it would throw on) becomes U+FFFD.
 */
function encodeExtValue(name: string): string {
  return encodeURIComponent(name.replace(/\p{Cs}/gu, '\ufffd')).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * The name in printable ASCII for a quoted-string: accents dropped
 * (`Grüße` → `Gruße`), every other character outside ASCII, and `"`, `\` and
 * `%` (which some clients decode), replaced by `_`.
 */
function asciiFallback(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]|["\\%]/gu, '_');
}

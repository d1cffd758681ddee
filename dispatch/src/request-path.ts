/**
 * The path of a request target or absolute URL, without query or fragment,
 * read in place (no URL object on the hot path): `/users/42?x=1` and
 * `http://host/users/42?x=1` both give `/users/42`.
 */
export function pathOf(url: string): string {
  let start = 0;
  if (url.charCodeAt(0) !== 0x2f /* "/" */) {
    const scheme = url.indexOf('://');
    start = scheme === -1 ? -1 : url.indexOf('/', scheme + 3);
    if (start === -1) return '/';
  }
  let end = url.indexOf('?', start);
  if (end === -1) end = url.length;
  const hash = url.indexOf('#', start);
  if (hash !== -1 && hash < end) end = hash;
  return start === 0 && end === url.length ? url : url.slice(start, end);
}

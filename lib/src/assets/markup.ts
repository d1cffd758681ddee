/** What may come before the root element: whitespace, `<?…?>`, comments, a doctype (with an internal subset). */
const PROLOG_ITEM = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)/i;
const ROOT_ELEMENT = /^<([A-Za-z_][\w.:-]*)/;
const HTML_DOCTYPE = /^<!DOCTYPE\s+html\b/i;
const XML_DECLARATION = /^<\?xml\s/;

/**
 * Tags that make a document without an XML declaration HTML, after the
 * WHATWG MIME sniffing algorithm ("identifying a resource with an unknown MIME type").
 */
const HTML_ROOTS = new Set([
  'html',
  'head',
  'body',
  'script',
  'iframe',
  'h1',
  'div',
  'font',
  'table',
  'a',
  'style',
  'title',
  'b',
  'br',
  'p',
]);

/**
 * SVG (root element `svg`, in any namespace prefix), HTML (an HTML doctype or
 * an HTML root tag) or other XML (an XML declaration); `undefined` for
 * anything else. Only the start of the document is needed.
 */
export function markupType(text: string): 'image/svg+xml' | 'text/html' | 'application/xml' | undefined {
  let rest = text.trimStart();
  if (!rest.startsWith('<')) return undefined;
  const isXml = XML_DECLARATION.test(rest);
  for (let item = PROLOG_ITEM.exec(rest); item; item = PROLOG_ITEM.exec(rest)) {
    if (HTML_DOCTYPE.test(item[0])) return 'text/html';
    rest = rest.slice(item[0].length);
  }
  const name = ROOT_ELEMENT.exec(rest)?.[1]?.toLowerCase();
  if (name !== undefined) {
    const localName = name.slice(name.lastIndexOf(':') + 1);
    if (localName === 'svg') return 'image/svg+xml';
    if (localName === 'html' || (!isXml && HTML_ROOTS.has(name))) return 'text/html';
  }
  return isXml ? 'application/xml' : undefined;
}

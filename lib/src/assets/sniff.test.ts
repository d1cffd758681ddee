import test from 'ava';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { OCTET_STREAM, SNIFF_HEAD_BYTES, sniffMediaType } from './sniff.js';
import { FIXTURE_TYPES, readFixture } from './test-support.js';

const sniffText = (text: string, totalSize?: number): Promise<string> => {
  const bytes = Buffer.from(text);
  return sniffMediaType(bytes, totalSize ?? bytes.length);
};

for (const [name, type] of Object.entries(FIXTURE_TYPES)) {
  test(`fixture ${name} is sniffed as ${type}`, async (t) => {
    const bytes = await readFixture(name);
    t.is(await sniffMediaType(bytes, bytes.length), type);
  });
}

test('every file in test/fixtures has an expected type (media/ has its own test, describe-media.test.ts)', async (t) => {
  const entries = await readdir(fileURLToPath(new URL('../../../test/fixtures/', import.meta.url)), { withFileTypes: true });
  t.deepEqual(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort(),
    Object.keys(FIXTURE_TYPES).sort(),
  );
});

test('the DOCX is still recognised when the head is only the start of a larger file', async (t) => {
  const bytes = await readFixture('document.docx');
  t.is(await sniffMediaType(bytes, 50 * 1024 * 1024), FIXTURE_TYPES['document.docx']!);
});

test('only the first SNIFF_HEAD_BYTES count: text after them does not matter', async (t) => {
  const head = Buffer.concat([Buffer.from('plain words '.repeat(SNIFF_HEAD_BYTES / 12 + 1)), Buffer.from([0, 1, 2])]);
  t.is(await sniffMediaType(head, head.length), 'text/plain');
});

test('empty and binary content are application/octet-stream', async (t) => {
  t.is(await sniffMediaType(new Uint8Array(0), 0), OCTET_STREAM);
  t.is(await sniffMediaType(Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x80]), 6), OCTET_STREAM);
  t.is(await sniffText('text with a NUL\0 inside'), OCTET_STREAM);
  t.is(await sniffMediaType(Buffer.from([0xc3, 0x28, 0x41]), 3), OCTET_STREAM, 'invalid UTF-8');
});

test('a character cut at the end of a head is still text; a cut at the end of a whole file is not', async (t) => {
  const text = Buffer.from('déjà vu');
  const cut = text.subarray(0, 2); // "d" and half of "é"
  t.is(await sniffMediaType(cut, 100), 'text/plain');
  t.is(await sniffMediaType(cut, cut.length), OCTET_STREAM);
});

test('UTF-8 with a byte order mark is text', async (t) => {
  t.is(await sniffText('\uFEFFhello'), 'text/plain');
});

test('SVG: with or without prolog, doctype and comments, with a namespace prefix', async (t) => {
  t.is(await sniffText('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml');
  t.is(await sniffText('  \n<!-- c --><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd"><svg>'), 'image/svg+xml');
  t.is(
    await sniffText('<?xml version="1.0"?>\n<!DOCTYPE svg [ <!ENTITY a "b"> ]>\n<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>'),
    'image/svg+xml',
  );
  t.is(await sniffText('<svgx/>'), 'text/plain');
});

test('HTML: doctype or an HTML root tag', async (t) => {
  t.is(await sniffText('<!doctype html><p>hi'), 'text/html');
  t.is(await sniffText('<HTML><body>hi</body></HTML>'), 'text/html');
  t.is(await sniffText('\n<!-- lead --><head><title>x</title></head>'), 'text/html');
  t.is(await sniffText('<div>fragment</div>'), 'text/html');
  t.is(await sniffText('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"/>'), 'text/html');
});

test('XML: an XML declaration with any other root', async (t) => {
  t.is(await sniffText('<?xml version="1.0" encoding="UTF-8"?><feed><entry/></feed>'), 'application/xml');
  t.is(await sniffText('<?xml version="1.0"?><div/>'), 'application/xml', 'an XML div is not HTML');
  t.is(await sniffText('<feed><entry/></feed>'), 'text/plain', 'no declaration, no known root: just text');
});

test('JSON: objects and arrays that parse; scalars and broken JSON are text', async (t) => {
  t.is(await sniffText('{"a": [1, 2.5e3, true, null, "x\\n"]}'), 'application/json');
  t.is(await sniffText('  [ ]\n'), 'application/json');
  t.is(await sniffText('{"a": 1,}'), 'text/plain');
  t.is(await sniffText('{"a": 1} trailing'), 'text/plain');
  t.is(await sniffText('42'), 'text/plain');
  t.is(await sniffText('"just a string"'), 'text/plain');
});

test('JSON: the head of a larger file only needs to start like JSON', async (t) => {
  t.is(await sniffText('{"items": [{"id": 1, "name": "a long str', 1e6), 'application/json');
  t.is(await sniffText('[1, 2, 3, -0.', 1e6), 'application/json');
  t.is(await sniffText('{"ok": tr', 1e6), 'application/json');
  t.is(await sniffText('{"escape": "\\u00', 1e6), 'application/json');
  t.is(await sniffText('{"a" 1', 1e6), 'text/plain', 'missing colon');
  t.is(await sniffText('{"a": 1]', 1e6), 'text/plain', 'mismatched bracket');
  t.is(await sniffText('{"a": nope', 1e6), 'text/plain', 'not a literal');
  t.is(await sniffText('{"a": nope, "b": 1', 1e6), 'text/plain', 'not a literal, inside');
  t.is(await sniffText('{"a": 01, "b": 1', 1e6), 'text/plain', 'not a number');
  t.is(await sniffText('{"a": "bad \\x escape', 1e6), 'text/plain', 'not an escape');
  t.is(await sniffText('[1, 2, 3', 3), 'text/plain', 'a complete file must parse');
});

test('CSV: a consistent delimiter count over at least two records', async (t) => {
  t.is(await sniffText('a,b,c\n1,2,3\n'), 'text/csv');
  t.is(await sniffText('a;b\r\n1;2\r\n\r\n'), 'text/csv', 'semicolons, CRLF, trailing blank line');
  t.is(
    await sniffText('name,note\nx,"line one\nline two, still quoted"\ny,"say ""hi"""\n'),
    'text/csv',
    'quoted delimiters and line breaks',
  );
  t.is(await sniffText('a\tb\n1\t2\n'), 'text/tab-separated-values');
  t.is(await sniffText('a,b,c\n1,2\n'), 'text/plain', 'inconsistent counts');
  t.is(await sniffText('a,b\n\n1,2\n'), 'text/plain', 'a blank line in between');
  t.is(await sniffText('a,b,c\n'), 'text/plain', 'a single record');
  t.is(await sniffText('a,"b\n1,2\n'), 'text/plain', 'an unclosed quote');
  t.is(await sniffText('a,b\n1,2\n3,4,5,6,7', 1e6), 'text/csv', 'the cut last record of a head is ignored');
});

test('the declared name or type plays no part: only bytes are given', async (t) => {
  const png = await readFixture('png-named.txt');
  t.is(await sniffMediaType(png, png.length), 'image/png');
});

test('UTF-16 with a byte-order mark is text, HTML or SVG, never the MP3 its FF FE would suggest', async (t) => {
  const utf16le = (text: string): Buffer => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  const utf16be = (text: string): Buffer => utf16le(text).swap16();
  const sniff = (bytes: Buffer): Promise<string> => sniffMediaType(bytes, bytes.length);
  t.is(await sniff(utf16le('Hello, world.\nSecond line.\n')), 'text/plain');
  t.is(await sniff(utf16be('Hello, world.\n')), 'text/plain');
  t.is(await sniff(utf16le('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>')), 'text/html');
  t.is(await sniff(utf16le('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')), 'image/svg+xml');
  // A byte-order mark followed by binary is not text.
  t.not(await sniff(Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00])), 'text/plain');
});

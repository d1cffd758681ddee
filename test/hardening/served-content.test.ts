// What the files path serves to a browser, under attack: active content (HTML, SVG, XML, XHTML, script,
// MHTML, polyglots) never renders as a document in our origin; traversal and odd keys are JSON 404s;
// abusive Range headers get the whole file, one range, or 416, never a multiplied response.
// The ordinary cases (fixtures, single ranges, 304s) are in test/rest/files.test.ts.
import test from 'ava';
import fc from 'fast-check';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';
import { errorBodyViolation } from './support/error-shape.js';
import { failureReport } from './support/fuzz-report.js';
import { hostileSegment, type Targets } from './support/hostile-http.js';
import { sendRaw, type RawHttpResponse } from './support/raw-http.js';
import { scaled } from './support/soak.js';
import { quietPeriod } from '../support/eventually.js';

let stack: Stack;
let auth: Record<string, string>;
let targets: Targets;
/** The seed file: its path and bytes. */
let file: { path: string; bytes: Buffer };

test.before(async () => {
  stack = await startStack({ RATE_LIMIT_PER_SECOND: '0' });
  auth = await stack.auth(freshWorkspace('served'));
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(4, '0')}\n`).join(''));
  const asset = await upload(bytes, 'seed.txt', 'text/plain');
  file = { path: new URL(asset.url).pathname, bytes };
  targets = {
    authorization: auth.authorization!,
    routeId: 'rt_00000000000000000000000000',
    assetId: asset.id,
    filePath: file.path,
    uploadId: 'up_00000000000000000000000000',
    webhookId: 'wh_00000000000000000000000000',
    deliveryId: 'dlv_00000000000000000000000000',
  };
});
test.after.always(async () => stack?.stop());

async function upload(bytes: Buffer, filename: string, declaredType: string): Promise<{ id: string; url: string; type: string }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: declaredType }), filename);
  const response = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers: auth, body: form });
  if (response.status !== 201) throw new Error(`upload of ${filename}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string; url: string; type: string };
}

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawHttpResponse> {
  const lines = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return sendRaw(stack.url, Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${lines}\r\n`, 'latin1'), {
    head: method === 'HEAD',
  });
}

// ---------------------------------------------------------------- active content

/**
 * Types a browser shows without running script, written out here (not taken
 * from the gateway): only these may be served without `attachment`.
 */
const INERT =
  /^(image\/(png|jpeg|gif|webp|avif|bmp)|text\/plain|text\/csv|application\/json|application\/pdf|audio\/[\w.+-]+|video\/[\w.+-]+)$/;

const UTF8_BOM = '\ufeff';
const ACTIVE: readonly (readonly [string, string | Buffer])[] = [
  ['html5', '<!doctype html><html><body><script>alert(document.domain)</script></body></html>'],
  ['html no doctype', '<html><script>alert(1)</script></html>'],
  ['html fragment', '<script>alert(1)</script>'],
  ['html after whitespace and comment', '  \n<!-- hi --><IFRAME src="javascript:alert(1)"></IFRAME>'],
  ['html with BOM', `${UTF8_BOM}<html><body onload=alert(1)>`],
  ['html upper case', '<HTML><BODY ONLOAD=alert(1)>'],
  ['html body tag', '<body onload=alert(1)>'],
  ['html img onerror', '<p><img src=x onerror=alert(1)></p>'],
  ['html in UTF-16', Buffer.from(`\ufeff<html><script>alert(1)</script></html>`, 'utf16le')],
  ['svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'],
  [
    'svg with xml declaration and doctype',
    '<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
  ],
  ['svg namespaced root', '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:script>alert(1)</svg:script></svg:svg>'],
  ['xml', '<?xml version="1.0"?><root><x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script></root>'],
  ['xhtml', '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>'],
  ['xml with stylesheet', '<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="evil.xsl"?><doc/>'],
  [
    'xslt',
    '<?xml version="1.0"?><xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/"><script>alert(1)</script></xsl:template></xsl:stylesheet>',
  ],
  ['rss', '<?xml version="1.0"?><rss version="2.0"><channel><title>x</title></channel></rss>'],
  ['javascript', 'alert(document.cookie);\nfetch("/v1/assets")'],
  ['css', 'body { background: url("javascript:alert(1)") }'],
  [
    'mhtml',
    'MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary="b"\r\n\r\n--b\r\nContent-Type: text/html\r\n\r\n<script>alert(1)</script>\r\n--b--\r\n',
  ],
  ['json with html', '{"x":"<script>alert(1)</script>"}'],
  [
    'png then html (polyglot)',
    Buffer.concat([
      Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'),
      Buffer.from('<html><script>alert(1)</script></html>'),
    ]),
  ],
  ['gif then script (polyglot)', Buffer.from('GIF89a/*\x01\x00\x01\x00\x00\xff\x00,*/=alert(1);', 'latin1')],
  ['pdf header then html', '%PDF-1.4\n<html><script>alert(1)</script></html>'],
  ['flash', Buffer.concat([Buffer.from('FWS'), Buffer.from([10, 0x20, 0, 0, 0]), Buffer.alloc(32)])],
  ['octet junk with html', Buffer.concat([Buffer.from([0, 1, 2, 3]), Buffer.from('<html><script>alert(1)</script>')])],
];
/** Names and declared types a hostile uploader would choose: none of them may matter. */
const DISGUISES = [
  ['page.html', 'text/html'],
  ['image.svg', 'image/svg+xml'],
  ['photo.png', 'image/png'],
  ['notes.txt', 'text/plain'],
] as const;

test('active content never renders as a document in our origin: nosniff, the sandbox policy, and attachment unless the type is inert', async (t) => {
  const types = new Map<string, Set<string>>();
  for (const [name, content] of ACTIVE) {
    for (const [filename, declared] of DISGUISES) {
      const asset = await upload(Buffer.isBuffer(content) ? content : Buffer.from(content), filename, declared);
      types.set(asset.type, (types.get(asset.type) ?? new Set()).add(name));
      const label = `${name} uploaded as ${filename} (${declared}) → ${asset.type}, ${asset.url}`;
      for (const method of ['GET', 'HEAD']) {
        const response = await get(new URL(asset.url).pathname, {}, method);
        t.is(response.status, 200, label);
        const type = response.header('content-type') ?? '';
        t.is(response.header('x-content-type-options'), 'nosniff', label);
        t.is(response.headers['content-type']?.length, 1, `${label}: exactly one content type`);
        if (type !== 'application/pdf') t.regex(response.header('content-security-policy') ?? '', /^sandbox\b/, `${label}: sandbox`);
        if (!INERT.test(type)) t.regex(response.header('content-disposition') ?? '', /^attachment\b/, `${label}: attachment for ${type}`);
        // Declared types and file names are hints at most: a file with markup in it is never served as an inert image.
        if (typeof content === 'string' && /^image\/(png|jpeg|gif|webp|avif|bmp)$/.test(type))
          t.fail(`${label}: markup served as ${type}, the declared type was believed`);
      }
    }
  }
  t.log([...types].map(([type, names]) => `${type}: ${[...names].join(', ')}`).join('\n'));
});

test('files path responses of every kind (errors, 304, 416) carry nosniff', async (t) => {
  const etag = (await get(file.path)).header('etag')!;
  const answers = [
    await get(`${file.path}x`),
    await get('/files/a/b/c'),
    await get('/files/%3Cscript%3E/x'),
    await get(file.path, { 'if-none-match': etag }),
    await get(file.path, { range: 'bytes=999999-' }),
    await get(file.path, {}, 'PUT'),
  ];
  for (const answer of answers) t.is(answer.header('x-content-type-options'), 'nosniff', `${answer.status}`);
});

// ---------------------------------------------------------------- traversal and odd keys

test('traversal and odd keys under the files path are JSON 404s, and never serve another file', async (t) => {
  const secret = await readFile(join(stack.dataDir, 'auth-secret')).catch(() => Buffer.from(stack.secret));
  const [, files, assetId, fileName] = file.path.split('/');
  // Segments that make a valid request target (percent-encoded, no raw spaces or control characters).
  const segment = hostileSegment(targets).filter((s) => /^[\x21-\x7e]*$/.test(s) && !s.includes('?') && !s.includes('#'));
  const path = fc.oneof(
    fc.tuple(segment, segment).map(([a, b]) => `/${files}/${a}/${b}`),
    segment.map((s) => `/${files}/${assetId}/${s}`),
    segment.map((s) => `/${files}/${s}/${fileName}`),
    segment.map((s) => `/${files}/${assetId}/${fileName}${s}`),
    segment.map((s) => `/${files}/${s}`),
    fc.tuple(segment, segment, segment).map(([a, b, c]) => `/${files}/${a}/${b}/${c}`),
    fc.constantFrom(
      `/${files}/${assetId}/${fileName!.toUpperCase()}`,
      `/${files}/${assetId!.toUpperCase()}/${fileName}`,
      `/${files}/${assetId}/${fileName}/`,
      `/${files}//${assetId}/${fileName}`,
      `/${files}/${assetId}//${fileName}`,
      `/${files}/${assetId}/${fileName}%00.html`,
      `/${files}/${assetId}/${fileName}%2f..%2f..%2fauth-secret`,
      `/${files}/${assetId}/..%2f..%2f..%2fauth-secret`,
      `/${files}/${assetId}/%2e%2e/%2e%2e/auth-secret`,
      `/${files}/${assetId}/${fileName!.replace('.txt', '.html')}`,
      `/${files}/${assetId}%2f${fileName}`,
      `/${files}/${assetId}/${'a'.repeat(8_000)}.txt`,
      `/${files}/..%c0%af..%c0%afauth-secret/x`,
      `/${files}/${assetId}/${fileName!.replace('.txt', '%2etxt')}`,
    ),
  );
  const seen = new Map<number, number>();
  const outcome = await fc.check(
    // Targets past the 16 KiB header limit are 431 before any routing (the fuzzers check that); these stay under it.
    fc.asyncProperty(
      path.filter((target) => target.length < 12_000),
      fc.constantFrom('GET', 'HEAD'),
      async (target, method) => {
        const shown = target.length > 200 ? `${target.slice(0, 200)}…(${target.length} chars)` : target;
        // Percent-encoding that spells the real path exactly is the real file; everything else is not a file.
        let decoded: string | undefined;
        try {
          decoded = decodeURIComponent(target);
        } catch {
          decoded = undefined;
        }
        const answer = await get(target, {}, method);
        seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
        if (decoded === file.path && !target.includes('%2f') && !target.includes('%2F')) return;
        if (answer.status !== 404) throw new Error(`${method} ${shown}: ${answer.status} ${answer.body.subarray(0, 200).toString()}`);
        if (method === 'GET') {
          const problem = errorBodyViolation(404, JSON.parse(answer.body.toString()));
          if (problem !== undefined) throw new Error(`${shown}: ${problem}`);
          if ((JSON.parse(answer.body.toString()) as { code: string }).code !== 'not_found') throw new Error(`${shown}: not not_found`);
          if (answer.body.includes(secret) || answer.body.includes(file.bytes.subarray(0, 40))) throw new Error(`${shown}: leaked bytes`);
        }
      },
    ),
    { numRuns: scaled(300, 5_000), ...(process.env['FUZZ_SEED'] ? { seed: Number(process.env['FUZZ_SEED']) } : {}) },
  );
  if (outcome.failed) return void t.fail(failureReport(outcome));
  t.log(`statuses ${[...seen].map(([s, n]) => `${s}×${n}`).join(' ')}`);
  t.pass();
});

// ---------------------------------------------------------------- Range abuse

/** Range header values from the grammar and around it: many, overlapping, huge, malformed. */
const rangeHeader: fc.Arbitrary<string> = (() => {
  const number = fc.oneof(
    fc.nat({ max: 20_000 }),
    fc.constantFrom(0, 1, 11_999, 12_000, 12_001),
    fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n }).map(String),
  );
  const spec = fc.oneof(
    fc.tuple(number, number).map(([a, b]) => `${a}-${b}`),
    number.map((a) => `${a}-`),
    number.map((b) => `-${b}`),
    fc.constantFrom('-', '', '0-0', '0-', '-0', '1-0', 'x-y', '0x10-0x20', '1e3-2', ' 0 - 1 ', '00000000000000000000001-2', '-1-2', '+1-2'),
  );
  return fc.oneof(
    spec.map((s) => `bytes=${s}`),
    fc.array(spec, { minLength: 2, maxLength: 40 }).map((specs) => `bytes=${specs.join(',')}`),
    fc.integer({ min: 50, max: 1_500 }).map((n) => `bytes=${Array.from({ length: n }, (_, i) => `${i}-${i}`).join(',')}`),
    fc.integer({ min: 50, max: 1_500 }).map((n) => `bytes=${Array.from({ length: n }, () => '0-').join(',')}`),
    fc.integer({ min: 50, max: 1_500 }).map((n) => `bytes=${Array.from({ length: n }, () => '-12000').join(', ')}`),
    fc.tuple(fc.constantFrom('BYTES', 'Bytes', 'items', 'bytes ', 'bytes=bytes=', ''), spec).map(([unit, s]) => `${unit}=${s}`),
  );
})();

test('abusive Range headers get the whole file, one satisfiable range, or 416: never several parts or more bytes than the file', async (t) => {
  const size = file.bytes.length;
  const seen = new Map<number, number>();
  const outcome = await fc.check(
    fc.asyncProperty(rangeHeader, fc.boolean(), async (range, twice) => {
      // Repeated Range headers reach the server joined into one list.
      const answer = await sendRaw(
        stack.url,
        Buffer.from(
          `GET ${file.path} HTTP/1.1\r\nHost: localhost\r\nRange: ${range}\r\n${twice ? `Range: ${range}\r\n` : ''}\r\n`,
          'latin1',
        ),
      );
      seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
      const fail = (why: string): never => {
        throw new Error(`Range: ${range.slice(0, 200)}${twice ? ' (twice)' : ''} → ${answer.status}: ${why}`);
      };
      if (/multipart/i.test(answer.header('content-type') ?? '')) fail('a multipart response');
      if (answer.body.length > size) fail(`${answer.body.length} bytes for a file of ${size}`);
      if (answer.status === 200) {
        if (!answer.body.equals(file.bytes)) fail('not the whole file');
      } else if (answer.status === 206) {
        const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(answer.header('content-range') ?? '');
        if (!match) fail(`content-range ${answer.header('content-range')}`);
        const [start, end, total] = [Number(match![1]), Number(match![2]), Number(match![3])];
        if (total !== size || end >= size || start > end) fail(`content-range ${answer.header('content-range')}`);
        if (!answer.body.equals(file.bytes.subarray(start, end + 1))) fail('wrong bytes');
      } else if (answer.status === 416) {
        if (answer.header('content-range') !== `bytes */${size}`) fail(`content-range ${answer.header('content-range')}`);
        const problem = errorBodyViolation(416, JSON.parse(answer.body.toString()));
        if (problem !== undefined) fail(problem);
      } else if (answer.status !== 431) {
        // 431: a Range header over the 16 KiB header limit is refused before it is parsed.
        fail('unexpected status');
      }
    }),
    { numRuns: scaled(400, 5_000), ...(process.env['FUZZ_SEED'] ? { seed: Number(process.env['FUZZ_SEED']) } : {}) },
  );
  if (outcome.failed) return void t.fail(failureReport(outcome));
  t.log(`statuses ${[...seen].map(([s, n]) => `${s}×${n}`).join(' ')}`);
  t.pass();
});

test('a range request costs the service one bounded read: hundreds of overlapping ranges are answered quickly with the file once', async (t) => {
  const many = `bytes=${Array.from({ length: 1_500 }, () => '0-').join(',')}`;
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: 20 }, () => get(file.path, { range: many })));
  const elapsedMs = performance.now() - started;
  for (const answer of answers) {
    t.is(answer.status, 200);
    t.is(Number(answer.header('content-length')), file.bytes.length);
  }
  t.true(elapsedMs < 5_000, `${Math.round(elapsedMs)} ms`);
});

test('a file request whose rest turns out malformed is answered once (400) and logs no error', async (t) => {
  stack.logLines.length = 0;
  for (const method of ['HEAD', 'GET']) {
    const answer = await sendRaw(
      stack.url,
      Buffer.from(`${method} ${file.path} HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`),
      { head: method === 'HEAD' },
    );
    t.is(answer.status, 400, method);
  }
  // A negative check: no error line may follow, even a moment after the answers.
  await quietPeriod(300);
  t.deepEqual(
    stack.logLines.filter((line) => /"level":(5|6)0\b/.test(line)),
    [],
  );
});

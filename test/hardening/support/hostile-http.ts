// fast-check generators of malformed and hostile HTTP requests against the gateway.
import fc from 'fast-check';

/** What the generators aim at: real ids and a real file (so a hostile variant is one step from something that exists) and a valid token. */
export interface Targets {
  readonly authorization: string;
  readonly routeId: string;
  readonly assetId: string;
  /** `/files/<asset id>/<file name>` of the asset's current file. */
  readonly filePath: string;
  /** An unfinished resumable upload (`up_…`) of SEEDED_UPLOAD_LENGTH bytes, at /v1/uploads/<id>. */
  readonly uploadId: string;
  /** A webhook endpoint (`wh_…`, at a loopback port nothing listens on) and one of its deliveries (`dlv_…`). */
  readonly webhookId: string;
  readonly deliveryId: string;
}

/** The length of the seeded resumable upload: below every fuzzed stack's upload limit. */
export const SEEDED_UPLOAD_LENGTH = 16 * 1024;

/** A request as bytes will carry it: nothing is checked or normalised. */
export interface HostileRequest {
  readonly kind: string;
  readonly method: string;
  /** The request-target, sent as UTF-8 (raw non-ASCII, control characters and all). */
  readonly target: string;
  /** Sent as latin1, so a value may carry any byte. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
  /** `length`: a correct Content-Length; `chunked`: chunked framing; `none`: no framing header (the generator may add its own). */
  readonly framing: 'length' | 'chunked' | 'none';
}

export function encodeRequest(request: HostileRequest): Buffer {
  const framing: [string, string][] =
    request.framing === 'length'
      ? [['Content-Length', String(request.body.length)]]
      : request.framing === 'chunked'
        ? [['Transfer-Encoding', 'chunked']]
        : [];
  const headers = [['Host', 'localhost'], ...request.headers, ...framing].map(([name, value]) => `${name}: ${value}\r\n`).join('');
  const body = request.framing === 'chunked' ? chunked(request.body) : request.body;
  return Buffer.concat([
    Buffer.from(`${request.method} `),
    Buffer.from(request.target, 'utf8'),
    Buffer.from(` HTTP/1.1\r\n`),
    Buffer.from(headers, 'latin1'),
    Buffer.from('\r\n'),
    body,
  ]);
}

function chunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let offset = 0; offset < body.length; offset += 4096) {
    const piece = body.subarray(offset, offset + 4096);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** A short description for a failure message (bodies and long values cut). */
export function describeRequest(request: HostileRequest): string {
  const cut = (text: string, max = 160): string => (text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text);
  const headers = request.headers.map(([name, value]) => `${cut(name, 40)}: ${cut(JSON.stringify(value), 80)}`).join(' | ');
  return `[${request.kind}] ${request.method} ${cut(JSON.stringify(request.target))} {${cut(headers, 600)}} body ${request.body.length} B ${cut(JSON.stringify(request.body.subarray(0, 200).toString('latin1')), 200)} (${request.framing})`;
}

// ---------------------------------------------------------------- strings

const repeat = (unit: string, min: number, max: number): fc.Arbitrary<string> => fc.integer({ min, max }).map((n) => unit.repeat(n));

/** Strings no handler expects: control characters, NUL, lone surrogates, huge ones, unicode look-alikes, zero-width and bidi marks. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    'x\ud83d',
    '\u202e',
    '\u200b',
    '\ufeff',
    'ſ',
    'K',
    'İ',
    '../..',
    '..\\..',
    '%00',
    '<script>alert(1)</script>',
    '${7*7}',
    '{{7*7}}',
    "'; DROP TABLE routes; --",
  ),
  repeat('a', 1_000, 70_000),
  repeat('\u0001', 100, 5_000),
  repeat('\u{1F4A9}', 100, 5_000),
);

/** Object keys that attack JavaScript objects and our schemas. */
const nastyKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'id',
  'createdAt',
  'method',
  'path',
  'handler',
  'middleware',
  'middlewares',
  '',
  'METHOD',
);

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(nastyString, { maxLength: 40 }),
  fc.array(fc.constantFrom('auth', 'auth', 'cors', 'x'), { maxLength: 40 }),
  fc.dictionary(nastyKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Plausible values, so that some bodies get past the shape checks into the service. */
const goodishRoute = fc.record({
  method: fc.constantFrom('GET', 'post', 'PUT', 'TRACE', ' GET', 'GET\u0000'),
  path: fc.oneof(
    fc.constantFrom('/a', '/users/:id', '/a/../b', '/%2e%2e/x', '/:a/:a', '/\u0000', '//', '/x?y', '/*'),
    nastyString.map((s) => `/${s}`),
  ),
  handler: fc.oneof(fc.constantFrom('h', 'users.get', 'a-b:c'), nastyString),
  middleware: fc.oneof(fc.constant([] as string[]), fc.array(fc.oneof(fc.constantFrom('auth', 'log'), nastyString), { maxLength: 40 })),
});

/** A JSON object as text, keys included literally (so `__proto__` is an own key of what the server parses). */
function objectText(entries: readonly (readonly [string, unknown])[]): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`).join(',')}}`;
}

/** Bodies for POST /v1/routing. */
export const routeBody: fc.Arbitrary<Buffer> = fc.oneof(
  // Wrong types and extra or hostile keys around a plausible route.
  fc
    .tuple(goodishRoute, fc.array(fc.tuple(nastyKey, wrongValue), { maxLength: 4 }))
    .map(([route, extra]) => Buffer.from(objectText([...Object.entries(route), ...extra]))),
  fc.array(fc.tuple(nastyKey, wrongValue), { maxLength: 6 }).map((entries) => Buffer.from(objectText(entries))),
  // Any JSON at all (arrays, scalars, deep objects).
  fc.jsonValue({ maxDepth: 8 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
  // Deep nesting, balanced or not.
  fc.tuple(fc.integer({ min: 50, max: 40_000 }), fc.constantFrom('[', '{"a":'), fc.boolean()).map(([depth, open, close]) => {
    const closer = open === '[' ? ']' : '}';
    return Buffer.from(open.repeat(depth) + (open === '[' ? '' : '1') + (close ? closer.repeat(depth) : ''));
  }),
  // Broken JSON: valid text cut short, or with a byte put in.
  fc.tuple(goodishRoute, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.boolean()).map(([route, at, byte, cut]) => {
    const text = Buffer.from(JSON.stringify(route));
    const position = at % (text.length + 1);
    return cut ? text.subarray(0, position) : Buffer.concat([text.subarray(0, position), Buffer.from([byte]), text.subarray(position)]);
  }),
  // Not UTF-8, UTF-16, a BOM, empty, whitespace, over the 64 KiB limit.
  fc.constantFrom(
    Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
    Buffer.from('\ufeff{"method":"GET","path":"/a","handler":"h"}'),
    Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d]),
    Buffer.from('{"method":"\ud800"}'),
    Buffer.from(''),
    Buffer.from('   \n\t '),
    Buffer.from('null'),
    Buffer.from('{"a":1,"a":2}'),
    Buffer.from('{"__proto__":{"polluted":true},"method":"GET","path":"/p","handler":"h"}'),
    Buffer.from('{"constructor":{"prototype":{"polluted":true}}}'),
  ),
  fc.integer({ min: 65_000, max: 200_000 }).map((n) => Buffer.from(`{"path":"${'a'.repeat(n)}"}`)),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
);

/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Webhook URLs a fuzzer may send: loopback ones (tests name no other address,
 * nor a host name to resolve) that pass or fail the service's checks, and
 * hostile text under a loopback origin.
 */
export const hostileWebhookUrl: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'http://127.0.0.1:9/fuzz',
    'https://127.0.0.1:9/fuzz',
    'http://user:secret@127.0.0.1:9/fuzz',
    'ftp://127.0.0.1/fuzz',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'http://127.0.0.1:0/',
    'http://127.0.0.1:99999/',
    'http://127.1:9/fuzz',
    'http://2130706433:9/fuzz',
    '',
  ),
  // A lone surrogate cannot be percent-encoded (encodeURIComponent throws): U+FFFD stands in for it.
  nastyString.map((s) => `http://127.0.0.1:9/${encodeURIComponent(s.replace(LONE_SURROGATE, '\uFFFD'))}`),
  nastyString.map((s) => `http://127.0.0.1:9/?q=${s}`),
);

/** Webhook event lists: known types, patterns, unknown and hostile ones. */
export const hostileWebhookEvents: fc.Arbitrary<string[]> = fc.array(
  fc.oneof(
    fc.constantFrom('asset.created', 'route.deleted', 'asset.*', 'route.*', '*', 'webhook.test', 'asset.', '.*', '**', 'ASSET.CREATED', ''),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
  ),
  { maxLength: 60 },
);

/** Plausible values of the asset lifecycle's bodies (PATCH, signed-url, policy, batch delete), so some get past the shape checks. */
const goodishApiFields = fc.record(
  {
    label: fc.oneof(fc.constantFrom('x', '', 'a'.repeat(200), 'a'.repeat(201)), nastyString),
    name: fc.oneof(
      fc.constantFrom('a.txt', '', 'a'.repeat(255), 'a'.repeat(256), '"; filename*=x', '\r\nSet-Cookie: a=b', '\ud800'),
      nastyString,
    ),
    visibility: fc.oneof(fc.constantFrom('public', 'private', 'PRIVATE', '', 'hidden'), nastyString),
    expiresIn: fc.oneof(
      fc.constantFrom(0, 1, 60, 604_800, 604_801, -1, 1.5, 1e300, Number.MAX_SAFE_INTEGER + 2),
      fc.integer(),
      fc.constant('60'),
    ),
    transform: fc.oneof(
      fc.record({ w: fc.integer(), h: fc.double(), fit: nastyString, q: fc.integer() }, { requiredKeys: [] }),
      wrongValue,
    ),
    allowedTypes: fc.oneof(
      fc.array(fc.oneof(fc.constantFrom('image/*', 'image/png', '*/*', 'IMAGE/PNG', 'a/b/c', ''), nastyString), { maxLength: 120 }),
      wrongValue,
    ),
    maxUploadBytes: fc.oneof(fc.constantFrom(0, 1, 131_072, 131_073, -1, 0.5, 2 ** 63, 1e300), fc.integer()),
    defaultVisibility: fc.oneof(fc.constantFrom('public', 'private', 'x'), nastyString),
    ids: fc.oneof(
      fc.array(fc.oneof(fc.constantFrom('as_00000000000000000000000000', 'as_x', ''), nastyString), { maxLength: 1_100 }),
      wrongValue,
    ),
    // Webhooks' fields (issue 42).
    url: fc.oneof(hostileWebhookUrl, wrongValue),
    events: fc.oneof(hostileWebhookEvents, wrongValue),
    description: fc.oneof(fc.constantFrom('', 'a'.repeat(500), 'a'.repeat(501)), nastyString, wrongValue),
    enabled: fc.oneof(fc.boolean(), wrongValue),
    since: fc.oneof(
      fc.constantFrom('2026-01-01T00:00:00Z', '2999-01-01T00:00:00Z', 'yesterday', '', '1970-01-01T00:00:00Z', '2026-02-30T00:00:00Z'),
      nastyString,
      wrongValue,
    ),
  },
  { requiredKeys: [] },
);

/** Bodies for the asset lifecycle's JSON calls: plausible fields with hostile extras, any JSON, and the route bodies' broken bytes. */
const apiBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc
    .tuple(goodishApiFields, fc.array(fc.tuple(nastyKey, wrongValue), { maxLength: 3 }))
    .map(([fields, extra]) => Buffer.from(objectText([...Object.entries(fields), ...extra]))),
  routeBody,
);

const jsonContentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON; Charset="UTF-8"',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json;;;charset',
    'application/json; charset=',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '',
    'application/json\u0001',
  ),
  repeat('a', 1_000, 12_000).map((s) => `application/json; x=${s}`),
);

// ---------------------------------------------------------------- ids and paths

/** Path segments that try to escape, confuse a decoder or hide a real id. */
export function hostileSegment(targets: Targets): fc.Arbitrary<string> {
  const real = [targets.routeId, targets.assetId, targets.uploadId, targets.webhookId, targets.deliveryId];
  return fc.oneof(
    fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '%2E%2e',
      '.%2e',
      '..%2f..%2fauth-secret',
      '..%5c..%5cauth-secret',
      '%2f',
      '%5c',
      '%00',
      'a%00b',
      '%25',
      '%',
      '%zz',
      '%u002e',
      '%C0%AE%C0%AE',
      '%C0%AF',
      '%E0%80%AE',
      '%C1%9C',
      '%F0%80%80%AF',
      '%ED%A0%80',
      '%F4%90%80%80',
      '%FF%FE',
      '%EF%BC%8F',
      '%E2%80%AE',
      'ＡＢＣ',
      '\u{1F4A9}',
      'é',
      'rt_',
      'as_',
      'rt_00000000000000000000000000',
      'as_00000000000000000000000000',
      'rt_0000000000000000000000000O',
      'RT_00000000000000000000000000',
      'auth-secret',
      'switchyard.sqlite',
      '.tmp',
      'CON',
      'nul',
      'a;b',
      'a,b',
      '~',
      '$',
      '*',
      ':match',
      "'",
      '"',
      '<>',
    ),
    fc
      .constantFrom(...real)
      .chain((id) =>
        fc.constantFrom(
          id,
          `${id}%00`,
          `${id}%00.txt`,
          id.toUpperCase(),
          id.slice(0, -1),
          `${id}x`,
          `${id}/..`,
          ` ${id}`,
          `${id}%20`,
          `${id}%0a`,
          `%${id}`,
          encodeURIComponent(`${id}\u0000`),
          `${id};x`,
          `..%2f${id}`,
        ),
      ),
    fc.string({ unit: 'binary', maxLength: 30 }).map(encodeURIComponent),
    fc.string({ unit: 'grapheme', maxLength: 10 }),
    fc.string({ unit: fc.constantFrom('%', '.', '/', '\\', '2', 'e', 'f', 'C', '0', 'A', 'a', '_'), maxLength: 24 }),
    repeat('a', 100, 9_000),
    repeat('%2e', 10, 2_000),
  );
}

function hostilePath(targets: Targets): fc.Arbitrary<string> {
  const segment = hostileSegment(targets);
  const [, files, assetId] = targets.filePath.split('/');
  return fc.oneof(
    segment.map((s) => `/v1/routing/${s}`),
    segment.map((s) => `/v1/assets/${s}`),
    segment.map((s) => `/v1/assets/${s}/replace`),
    fc.tuple(segment, segment).map(([a, b]) => `/${files}/${a}/${b}`),
    segment.map((s) => `/${files}/${assetId}/${s}`),
    segment.map((s) => `${targets.filePath}${s}`),
    fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => `/${parts.join('/')}`),
    fc
      .tuple(fc.constantFrom('method', 'path', 'method=GET&path', '__proto__', 'constructor'), segment, segment)
      .map(([name, a, b]) => `/v1/routing:match?${name}=${a}&path=/${b}&path=${b}`),
    // A watch with a revision that is never valid (a valid one would stream forever): the refusal must be JSON.
    fc.tuple(fc.constantFrom('-', 'x', '1.', '0x', ' '), segment).map(([prefix, s]) => `/v1/routing:watch?sinceRevision=${prefix}${s}`),
    fc.tuple(fc.constantFrom('-', 'x', '1.', '0x', ' '), segment).map(([prefix, s]) => `/v1/assets:watch?sinceRevision=${prefix}${s}`),
    segment.map((s) => `/v1/assets/${s}/history`),
    segment.map((s) => `/v1/assets/${assetId}/history?pageToken=${s}`),
    fc.constantFrom(
      '/v1/routing?pageSize=0',
      '/v1/routing?pageSize=1001',
      '/v1/routing?pageToken=MS4x',
      '/v1/routing?pageSize=1&pageSize=2',
      '/v1/routing:watch/x',
      '/v1/routing::watch',
    ),
    segment.map((s) => `/v1/assets/${s}/signed-url`),
    segment.map((s) => `/v1/assets/${s}/signed-urls`),
    // Versions and trash (issue 43).
    segment.map((s) => `/v1/assets/${s}/versions`),
    segment.map((s) => `/v1/assets/${assetId}/versions/${s}/content`),
    segment.map((s) => `/v1/assets/${s}/versions/ver_00000000000000000000000000/content`),
    segment.map((s) => `/v1/assets/${assetId}/versions/${s}:restore`),
    segment.map((s) => `/v1/trash/${s}`),
    segment.map((s) => `/v1/trash/${s}:restore`),
    segment.map((s) => `/v1/trash?pageSize=${s}`),
    segment.map((s) => `/v1/trash?pageToken=${s}`),
    segment.map((s) => `/v1/assets/${assetId}?purge=${s}`),
    // Webhooks (issue 42).
    segment.map((s) => `/v1/webhooks/${s}`),
    segment.map((s) => `/v1/webhooks/${s}:rotateSecret`),
    segment.map((s) => `/v1/webhooks/${s}:test`),
    segment.map((s) => `/v1/webhooks/${s}:recover`),
    segment.map((s) => `/v1/webhooks/${s}/deliveries`),
    segment.map((s) => `/v1/webhooks/${targets.webhookId}/deliveries?status=${s}`),
    segment.map((s) => `/v1/webhooks/${targets.webhookId}/deliveries?pageSize=${s}`),
    segment.map((s) => `/v1/webhooks/${targets.webhookId}/deliveries?pageToken=${s}`),
    segment.map((s) => `/v1/webhooks/${targets.webhookId}/deliveries/${s}:resend`),
    segment.map((s) => `/v1/webhooks/${s}/deliveries/${targets.deliveryId}:resend`),
    fc.constantFrom(
      '/v1/workspace/policy',
      '/v1/workspace/usage',
      '/v1/assets:batchDelete',
      '/v1/assets',
      '/v1/workspace',
      '/v1/workspace/',
      '/v1/assets:batchDelete/x',
    ),
    // Listing with hostile query values, repeated names included.
    fc
      .array(
        fc.tuple(
          fc.constantFrom('pageSize', 'pageToken', 'type', 'label', 'q', 'pageSize', '__proto__'),
          fc.oneof(
            segment,
            fc.constantFrom(
              '0',
              '1',
              '1000',
              '1001',
              '-1',
              '1e3',
              '50.5',
              'image/*',
              '*/*',
              'image',
              'MS4x',
              'MS5hc18wMWo.x',
              '%25',
              '_',
              '%00',
              'x'.repeat(256),
              '%F0%9F%93%B7',
              '%ED%A0%80',
            ),
          ),
        ),
        { maxLength: 5 },
      )
      .map((pairs) => `/v1/assets?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`),
    // A file url with hostile signature parameters.
    fc.tuple(segment, segment, segment).map(([expires, kid, sig]) => `${targets.filePath}?expires=${expires}&kid=${kid}&sig=${sig}`),
    // ?download, alone, valued, repeated, or beside transform and signature parameters.
    fc
      .tuple(
        fc.constantFrom(
          'download',
          'download=',
          'download=1',
          'download&download',
          'DOWNLOAD',
          'download&w=16',
          'w=16&download&format=webp',
          'download&sig=x',
        ),
        segment,
      )
      .map(([query, s]) => `${targets.filePath}?${query}&${s}`),
    fc.constantFrom(
      '*',
      '/',
      '',
      '//v1//routing',
      '/v1/routing/',
      '/v1/assets/',
      '/v1/assets/upload/',
      '/v1/./routing',
      '/v1/routing/../assets/upload',
      'http://evil.example/v1/routing',
      '/v1/routing?__proto__[x]=1',
      '/v1/routing#frag',
      '/healthz?x',
      '/v1/openapi.json/..',
      '/connect/../v1/routing',
      '/switchyard.v1.RouteService/GetRoute',
      '/switchyard.v1.RouteService/../AssetService/GetAsset',
    ),
  );
}

const anyMethod = fc.constantFrom(
  'GET',
  'GET',
  'GET',
  'HEAD',
  'POST',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'get',
  'FOO',
  'M-SEARCH',
  'PROPFIND',
);

// ---------------------------------------------------------------- headers

/** Headers beside the request's own: repeated, huge, odd names, control bytes, conflicting framing. */
function extraHeaders(targets: Targets): fc.Arbitrary<[string, string][]> {
  const none = fc.constant([] as [string, string][]);
  const one: fc.Arbitrary<[string, string][]> = fc.oneof(
    none,
    none,
    fc
      .tuple(
        fc.integer({ min: 2, max: 300 }),
        fc.constantFrom(
          'X-Repeat',
          'Authorization',
          'Content-Type',
          'Range',
          'X-Request-Id',
          'Cookie',
          'Accept',
          'If-None-Match',
          'Origin',
        ),
      )
      .map(([n, name]) =>
        Array.from(
          { length: n },
          (_, i) => [name, name === 'Authorization' ? (i % 2 ? 'Bearer garbage' : targets.authorization) : `v${i}`] as [string, string],
        ),
      ),
    fc
      .tuple(
        fc.integer({ min: 1_000, max: 40_000 }),
        fc.constantFrom('X-Big', 'Authorization', 'Cookie', 'Range', 'X-Request-Id', 'Accept-Language'),
      )
      .map(([n, name]) => [[name, 'a'.repeat(n)]] as [string, string][]),
    fc.integer({ min: 100, max: 2_500 }).map((n) => Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v'] as [string, string])),
    fc.constantFrom<[string, string][]>(
      [['X-Ctl', 'a\u0001b']],
      [['X-Latin', 'caf\u00e9 \u00ff']],
      [['X-Nul', 'a\u0000b']],
      [['Bad Name', 'x']],
      [['X-Empty', '']],
      [
        ['Content-Length', '5'],
        ['Content-Length', '6'],
      ],
      [['Content-Length', '-1']],
      [['Content-Length', '99999999999999999999']],
      [['Transfer-Encoding', 'gzip, chunked']],
      [['Transfer-Encoding', 'identity']],
      [['Expect', '100-continue']],
      [['Expect', 'the-unexpected']],
      [
        ['Connection', 'Upgrade'],
        ['Upgrade', 'websocket'],
      ],
      [
        ['Connection', 'Upgrade'],
        ['Upgrade', 'h2c'],
        ['HTTP2-Settings', 'AAMAAABkAAQAAP__'],
      ],
      [['X-HTTP-Method-Override', 'DELETE']],
      [['X-Forwarded-For', '127.0.0.1, ::1']],
      [['Host', 'evil.example']],
      [['Range', 'bytes=0-0,1-1,2-2']],
      [['If-Range', 'W/"x"']],
      [['Accept-Encoding', 'gzip;q=' + '9'.repeat(500)]],
      [['Content-Encoding', 'gzip']],
      [['Authorization', 'Bearer ']],
      [['Authorization', `Bearer ${'a'.repeat(10_000)}`]],
      [['Authorization', `${targets.authorization}\u0000`]],
      [['X-Request-Id', '\u00ff\u00fe']],
    ),
  );
  return fc.array(one, { maxLength: 2 }).map((lists) => lists.flat());
}

// ---------------------------------------------------------------- multipart

interface Part {
  readonly name: string;
  readonly filename: string | undefined;
  readonly type: string | undefined;
  readonly extraHeaders: readonly string[];
  readonly body: Buffer;
}

const hostileFilename = fc.oneof(
  fc.constantFrom(
    'a.txt',
    '../../../../etc/passwd',
    '..\\..\\windows\\win.ini',
    '/etc/passwd',
    'C:\\x.txt',
    'a\u0000.png',
    '%2e%2e%2fx',
    '....//x',
    '.',
    '..',
    '',
    ' ',
    'a.html',
    'a.svg',
    'x.php',
    '\u202etxt.exe',
    'CON',
    'a"b',
    'a;b=c',
    'ü.png',
    '\u{1F4A9}.png',
  ),
  nastyString,
);

const partBody = fc.oneof(
  fc
    .constantFrom(
      'hello',
      '<html><script>alert(1)</script></html>',
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
      '<?xml version="1.0"?><x/>',
      '',
      '\r\n--b0undary\r\n',
    )
    .map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)),
);

const part: fc.Arbitrary<Part> = fc.record({
  name: fc.oneof(
    fc.constantFrom('file', 'file', 'file', 'label', 'other', '', 'FILE', '__proto__', 'constructor', 'file\u0000', 'file[]'),
    nastyString,
  ),
  filename: fc.option(hostileFilename, { nil: undefined }),
  type: fc.option(
    fc.constantFrom(
      'text/plain',
      'text/html',
      'image/svg+xml',
      'application/octet-stream',
      '',
      'x',
      'image/png; charset=utf-8',
      'a'.repeat(3_000),
    ),
    { nil: undefined },
  ),
  extraHeaders: fc.oneof(
    fc.constant([]),
    fc.constant([]),
    fc.integer({ min: 1_000, max: 200_000 }).map((n) => [`X-Pad: ${'a'.repeat(n)}`]),
    fc.integer({ min: 2, max: 200 }).map((n) => Array.from({ length: n }, (_, i) => `X-P${i}: v`)),
    fc.constantFrom(
      ['Content-Disposition: form-data; name="file"; filename="second.txt"'],
      ['Content-Transfer-Encoding: base64'],
      ['no colon here'],
      [': empty name'],
      ['Content-Disposition: attachment'],
    ),
  ),
  body: partBody,
});

const boundaryArb = fc.oneof(
  fc.constantFrom('b0undary', 'b0undary', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'a', '"quoted"', ' spaced ', "'", '--', '\u00ff'),
  fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.=+/:'.split('')), minLength: 1, maxLength: 70 }),
  repeat('b', 71, 3_000),
);

function multipartRequest(targets: Targets, path: fc.Arbitrary<string>): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      path,
      boundary: boundaryArb,
      declaredBoundary: fc.constantFrom('same', 'same', 'same', 'other', 'missing', 'empty', 'twice', 'mixed-type', 'no-type'),
      parts: fc.oneof(
        fc.array(part, { maxLength: 6 }),
        fc.integer({ min: 20, max: 3_000 }).map((n) =>
          Array.from(
            { length: n },
            (_, i): Part => ({
              name: i === 0 ? 'file' : 'label',
              filename: i === 0 ? 'x.txt' : undefined,
              type: undefined,
              extraHeaders: [],
              body: Buffer.from('v'),
            }),
          ),
        ),
        fc.integer({ min: 2, max: 50 }).map((n) =>
          Array.from(
            { length: n },
            (_, i): Part => ({
              name: 'file',
              filename: `f${i}.txt`,
              type: 'text/plain',
              extraHeaders: [],
              body: Buffer.from(`part ${i}`),
            }),
          ),
        ),
      ),
      close: fc.constantFrom('close', 'close', 'close', 'none', 'no-crlf', 'garbage-after'),
      lineEnding: fc.constantFrom('\r\n', '\r\n', '\r\n', '\n'),
      preamble: fc.constantFrom('', '', 'preamble junk\r\n', '--b0undary-not\r\n'),
      framing: fc.constantFrom<HostileRequest['framing']>('length', 'length', 'chunked'),
      auth: fc.constantFrom(true, true, true, false),
      headers: extraHeaders(targets),
    })
    .map((r): HostileRequest => {
      const eol = r.lineEnding;
      const chunks: Buffer[] = [Buffer.from(r.preamble)];
      for (const p of r.parts) {
        const disposition = `Content-Disposition: form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
        const lines = [`--${r.boundary}`, disposition, ...(p.type === undefined ? [] : [`Content-Type: ${p.type}`]), ...p.extraHeaders];
        chunks.push(Buffer.from(lines.join(eol) + eol + eol, 'utf8'), p.body, Buffer.from(eol));
      }
      if (r.close === 'close') chunks.push(Buffer.from(`--${r.boundary}--${eol}`));
      if (r.close === 'no-crlf') chunks.push(Buffer.from(`--${r.boundary}--`));
      if (r.close === 'garbage-after') chunks.push(Buffer.from(`--${r.boundary}--${eol}epilogue \u0000 junk`));
      const declared = {
        same: `multipart/form-data; boundary=${r.boundary}`,
        other: `multipart/form-data; boundary=not-${r.boundary}`,
        missing: 'multipart/form-data',
        empty: 'multipart/form-data; boundary=',
        twice: `multipart/form-data; boundary=x; boundary=${r.boundary}`,
        'mixed-type': `multipart/mixed; boundary=${r.boundary}`,
        'no-type': undefined,
      }[r.declaredBoundary];
      const headers: [string, string][] = [
        ...(r.auth ? [['Authorization', targets.authorization] as [string, string]] : []),
        ...(declared === undefined ? [] : [['Content-Type', declared] as [string, string]]),
        ...r.headers,
      ];
      return { kind: 'multipart', method: 'POST', target: r.path, headers, body: Buffer.concat(chunks), framing: r.framing };
    });
}

// ---------------------------------------------------------------- requests

/** Every kind of hostile request, weighted towards the ones that reach deepest. */
export function hostileRequest(targets: Targets): fc.Arbitrary<HostileRequest> {
  const auth = fc.constantFrom(true, true, true, false);
  const headers = extraHeaders(targets);
  const withAuth = (yes: boolean, rest: [string, string][]): [string, string][] =>
    yes ? [['Authorization', targets.authorization], ...rest] : rest;

  const json: fc.Arbitrary<HostileRequest> = fc
    .record({
      body: routeBody,
      type: fc.option(jsonContentType, { nil: undefined }),
      auth,
      headers,
      framing: fc.constantFrom<HostileRequest['framing']>('length', 'length', 'chunked'),
    })
    .map((r) => ({
      kind: 'json',
      method: 'POST',
      target: '/v1/routing',
      headers: withAuth(r.auth, [...(r.type === undefined ? [] : [['Content-Type', r.type] as [string, string]]), ...r.headers]),
      body: r.body,
      framing: r.framing,
    }));

  const lookup: fc.Arbitrary<HostileRequest> = fc
    .record({
      method: anyMethod,
      path: hostilePath(targets),
      auth,
      headers,
      body: fc.constantFrom(Buffer.alloc(0), Buffer.alloc(0), Buffer.from('{}')),
    })
    .map((r) => ({
      kind: 'path',
      method: r.method,
      target: r.path,
      headers: withAuth(r.auth, r.headers),
      body: r.body,
      framing: r.body.length > 0 ? 'length' : 'none',
    }));

  const uploadPath = fc.oneof(
    fc.constant('/v1/assets/upload'),
    fc.constant('/v1/assets/upload'),
    fc.constant(`/v1/assets/${targets.assetId}/replace`),
    hostileSegment(targets).map((s) => `/v1/assets/${s}/replace`),
  );

  const lifecycle: fc.Arbitrary<HostileRequest> = fc
    .record({
      call: fc.oneof(
        fc.constant(['PATCH', `/v1/assets/${targets.assetId}`] as const),
        hostileSegment(targets).map((s) => ['PATCH', `/v1/assets/${s}`] as const),
        fc.constant(['POST', `/v1/assets/${targets.assetId}/signed-url`] as const),
        fc.constant(['PUT', '/v1/workspace/policy'] as const),
        fc.constant(['PATCH', `/v1/routing/${targets.routeId}`] as const),
        hostileSegment(targets).map((s) => ['PATCH', `/v1/routing/${s}`] as const),
        fc.constant(['POST', '/v1/assets:batchDelete'] as const),
        fc.constant(['POST', '/v1/webhooks'] as const),
        fc.constant(['PATCH', `/v1/webhooks/${targets.webhookId}`] as const),
        hostileSegment(targets).map((s) => ['PATCH', `/v1/webhooks/${s}`] as const),
        fc.constant(['POST', `/v1/webhooks/${targets.webhookId}:recover`] as const),
      ),
      body: apiBody,
      type: fc.option(jsonContentType, { nil: undefined }),
      auth,
      headers,
      framing: fc.constantFrom<HostileRequest['framing']>('length', 'length', 'chunked'),
    })
    .map((r) => ({
      kind: 'json',
      method: r.call[0],
      target: r.call[1],
      headers: withAuth(r.auth, [...(r.type === undefined ? [] : [['Content-Type', r.type] as [string, string]]), ...r.headers]),
      body: r.body,
      framing: r.framing,
    }));

  const file: fc.Arbitrary<HostileRequest> = fc
    .record({ path: fc.constant(targets.filePath), headers, method: fc.constantFrom('GET', 'HEAD') })
    .map((r) => ({
      kind: 'file',
      method: r.method,
      target: r.path,
      headers: r.headers,
      body: Buffer.alloc(0),
      framing: 'none',
    }));

  return fc.oneof(
    { arbitrary: json, weight: 3 },
    { arbitrary: lookup, weight: 3 },
    { arbitrary: lifecycle, weight: 2 },
    { arbitrary: multipartRequest(targets, uploadPath), weight: 3 },
    { arbitrary: file, weight: 1 },
    { arbitrary: tusRequest(targets), weight: 3 },
  );
}

// ---------------------------------------------------------------- tus

/** Header values without CR or LF: a hostile value, not a second request smuggled into the first. */
const headerValue = (value: string): string => value.replace(/[\r\n]/g, ' ');

/**
 * A nasty string now and then: most carry control characters that Node's
 * parser refuses before any handler runs, so the tus values are mostly ones
 * that get through to the tus code.
 */
const rarelyNasty = { arbitrary: nastyString, weight: 1 };

/** What a tus size header (`Upload-Length`, `Upload-Offset`) might say: plausible, off by a little, or not a number at all. */
const tusSize = fc.oneof(
  fc.constantFrom(
    '0',
    '0',
    '1',
    String(SEEDED_UPLOAD_LENGTH),
    String(SEEDED_UPLOAD_LENGTH - 1),
    String(SEEDED_UPLOAD_LENGTH + 1),
    '4096',
    '131072',
    '131073',
  ),
  fc.nat({ max: 300_000 }).map(String),
  fc.constantFrom(
    '-1',
    '-0',
    '1.5',
    '1e3',
    '0x10',
    ' 5',
    '5 ',
    '+5',
    '05',
    '00000000000000001',
    '99999999999999999999',
    '9007199254740991',
    '9007199254740992',
    '18446744073709551616',
    '',
    ' ',
    'abc',
    '1,2',
    '1, 1',
    'NaN',
    'Infinity',
    '１２',
    '\u0000',
    '5\u0000',
  ),
  rarelyNasty,
);

/** `Upload-Metadata`: pairs with keys and values good and bad, and things that are not pairs at all. */
function tusMetadata(targets: Targets): fc.Arbitrary<string> {
  const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');
  const key = fc.constantFrom(
    'filename',
    'filename',
    'label',
    'visibility',
    'replace',
    'name',
    'filetype',
    '',
    'a b',
    'kéy',
    '__proto__',
    'constructor',
    'FILENAME',
  );
  const value = fc.oneof(
    fc.constantFrom(
      '',
      b64('a.txt'),
      b64('public'),
      b64('private'),
      b64('secret'),
      b64(targets.assetId),
      b64('as_00000000000000000000000000'),
      b64('../../auth-secret'),
    ),
    nastyString.map(b64),
    fc.constantFrom(
      '=',
      'a',
      'a===',
      'QQ',
      'QQ=',
      '!!!!',
      'Zg==Zg==',
      b64(Buffer.from([0xff, 0xfe])),
      b64(Buffer.from([0xc0, 0xae])),
      b64(Buffer.from([0xed, 0xa0, 0x80])),
      b64('a\u0000b'),
      b64('x'.repeat(300)),
    ),
    rarelyNasty,
  );
  const pair = fc.tuple(key, value, fc.constantFrom(' ', ' ', '  ', '\t', '')).map(([k, v, gap]) => (v === '' ? k : `${k}${gap}${v}`));
  return fc.oneof(
    fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join(',')),
    fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join(', ')),
    fc.constantFrom(
      ',',
      ',,',
      'filename',
      `filename ${b64('a')},filename ${b64('b')}`,
      `label ${b64('x'.repeat(201))}`,
      `replace ${b64('not-an-id')}`,
      `visibility ${b64('PUBLIC')}`,
    ),
    fc.integer({ min: 8_000, max: 20_000 }).map((n) => `filename ${'QUFB'.repeat(Math.ceil(n / 4))}`),
    rarelyNasty,
  );
}

/** `Upload-Concat`: partial, final with urls of this server and others, broken urls, too many urls. */
function tusConcat(targets: Targets): fc.Arbitrary<string> {
  const own = `/v1/uploads/${targets.uploadId}`;
  return fc.oneof(
    fc.constantFrom(
      'partial',
      'partial',
      'Partial',
      'final',
      'final;',
      'final; ',
      `final;${own}`,
      `final;http://localhost${own}`,
      `final;https://evil.example${own}`,
      `final;${own} ${own}`,
      `final;${own}/x`,
      'final;/v1/uploads/',
      'final;/v1/uploads',
      'final;%zz',
      'final;http://[::1',
      'final;http://',
      `final;${own}?x=1#y`,
      `final; ${own}`,
      `partial;${own}`,
    ),
    fc
      .array(hostileSegment(targets), { minLength: 1, maxLength: 5 })
      .map((segments) => `final;${segments.map((segment) => `/v1/uploads/${segment}`).join(' ')}`),
    fc.integer({ min: 900, max: 1_100 }).map((n) => `final;${Array.from({ length: n }, () => own).join(' ')}`),
    { arbitrary: nastyString.map((text) => `final;${text}`), weight: 1 },
  );
}

/** `Upload-Checksum`: the algorithms the server takes and others, digests of the wrong size or not base64. */
const tusChecksum = fc.oneof(
  fc
    .tuple(fc.constantFrom('sha1', 'sha256'), fc.uint8Array({ minLength: 20, maxLength: 32 }))
    .map(([algorithm, digest]) => `${algorithm} ${Buffer.from(digest).toString('base64')}`),
  fc.constantFrom(
    'sha1',
    'sha256 ',
    'md5 1B2M2Y8AsgTpgAmY7PhCfg==',
    'crc32 AAAAAA==',
    'SHA1 2jmj7l5rSw0yVb/vlWAYkK/YBwk=',
    'sha1 2jmj7l5rSw0yVb/vlWAYkK/YBwk',
    'sha1  2jmj7l5rSw0yVb/vlWAYkK/YBwk=',
    'sha1 2jmj7l5rSw0yVb/vlWAYkK/YBwk= extra',
    'sha256 !!!!',
    '',
  ),
  // The sha1 and sha256 of no bytes: right for an empty body.
  fc.constantFrom('sha1 2jmj7l5rSw0yVb/vlWAYkK/YBwk=', 'sha256 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='),
  rarelyNasty,
);

const tusVersion = fc.oneof(
  { arbitrary: fc.constant('1.0.0'), weight: 12 },
  fc.constantFrom('0.2.2', '1.0', '1.0.0 ', '1.0.0, 1.0.0', '1.0.1', 'v1.0.0', '', '*'),
  rarelyNasty,
);

const tusContentType = fc.oneof(
  { arbitrary: fc.constant('application/offset+octet-stream'), weight: 6 },
  fc.constantFrom(
    'application/offset+octet-stream; charset=utf-8',
    'APPLICATION/OFFSET+OCTET-STREAM',
    ' application/offset+octet-stream',
    'application/octet-stream',
    'application/json',
    'multipart/form-data; boundary=x',
    'text/plain',
    '',
    ';',
    'application/offset+octet-stream\u0001',
  ),
  repeat('a', 1_000, 12_000).map((text) => `application/offset+octet-stream; x=${text}`),
);

/** Bytes: none, a few, past the seeded upload's length, past the stack's upload limit. */
const tusBody = fc.oneof(
  fc.constant(Buffer.alloc(0)),
  fc.constant(Buffer.alloc(0)),
  fc.uint8Array({ maxLength: 4_096 }).map((bytes) => Buffer.from(bytes)),
  fc.integer({ min: SEEDED_UPLOAD_LENGTH - 10, max: SEEDED_UPLOAD_LENGTH + 4_096 }).map((n) => Buffer.alloc(n, 0x61)),
  fc.integer({ min: 128 * 1024, max: 200 * 1024 }).map((n) => Buffer.alloc(n, 0x62)),
);

/**
 * Hostile tus 1.0 requests at /v1/uploads: a plausible request of each kind
 * (creation, with and without bytes, append, HEAD, termination; OPTIONS and
 * methods tus does not use too), aimed at the seeded upload, a new one or a
 * hostile url, and then up to three of its tus headers malformed, dropped or
 * repeated: sizes that are not numbers, broken metadata and concatenations,
 * wrong checksums, wrong content types and versions, huge values, bodies
 * past the length.
 */
export function tusRequest(targets: Targets): fc.Arbitrary<HostileRequest> {
  const own = `/v1/uploads/${targets.uploadId}`;
  const target = fc.oneof(
    { arbitrary: fc.constant('/v1/uploads'), weight: 4 },
    { arbitrary: fc.constant(own), weight: 6 },
    hostileSegment(targets).map((segment) => `/v1/uploads/${segment}`),
    fc.constantFrom(
      '/v1/uploads/',
      '/v1/uploads//',
      `${own}/`,
      `${own}/x`,
      '/v1/uploads?Upload-Length=1',
      `${own}?Upload-Offset=0`,
      '/v1/uploads/up_00000000000000000000000000',
      `/v1/uploads/${targets.uploadId.toUpperCase()}`,
      `/v1/uploads/${targets.assetId}`,
      '/v1/uploads/%2e%2e',
      '/v1//uploads',
      '/v1/uploads:x',
    ),
  );
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  // What a well-behaved client would send with each method.
  const plausible = fc.oneof(
    {
      arbitrary: fc
        .record({
          length: fc.constantFrom(0, 1, 100, SEEDED_UPLOAD_LENGTH),
          metadata: fc.constantFrom(
            undefined,
            `filename ${b64('a.txt')},label ${b64('fuzz')}`,
            `filename ${b64('p.txt')},visibility ${b64('private')}`,
          ),
          partial: fc.boolean(),
          withBytes: fc.boolean(),
        })
        .map((r) => ({
          method: 'POST',
          headers: [
            ['Upload-Length', String(r.length)],
            ...(r.metadata ? [['Upload-Metadata', r.metadata]] : []),
            ...(r.partial ? [['Upload-Concat', 'partial']] : []),
            ...(r.withBytes ? [['Content-Type', 'application/offset+octet-stream']] : []),
          ] as [string, string][],
          bytes: r.withBytes,
        })),
      weight: 4,
    },
    { arbitrary: fc.constant({ method: 'POST', headers: [['Upload-Defer-Length', '1']] as [string, string][], bytes: false }), weight: 1 },
    {
      arbitrary: fc.constant({ method: 'POST', headers: [['Upload-Concat', `final;${own}`]] as [string, string][], bytes: false }),
      weight: 1,
    },
    {
      arbitrary: fc.constantFrom('0', '0', '0', '1', '100').map((offset) => ({
        method: 'PATCH',
        headers: [
          ['Upload-Offset', offset],
          ['Content-Type', 'application/offset+octet-stream'],
        ] as [string, string][],
        bytes: true,
      })),
      weight: 6,
    },
    {
      arbitrary: fc
        .constantFrom('HEAD', 'HEAD', 'DELETE', 'OPTIONS', 'GET', 'PUT', 'patch', 'FOO')
        .map((method) => ({ method, headers: [] as [string, string][], bytes: false })),
      weight: 3,
    },
  );
  const hostileValue: Readonly<Record<string, fc.Arbitrary<string>>> = {
    'Tus-Resumable': tusVersion,
    'Upload-Length': tusSize,
    'Upload-Offset': tusSize,
    'Upload-Defer-Length': fc.constantFrom('1', '0', '2', 'true', '', ' 1', '1, 1'),
    'Upload-Metadata': tusMetadata(targets),
    'Upload-Concat': tusConcat(targets),
    'Upload-Checksum': tusChecksum,
    'Content-Type': tusContentType,
    'X-HTTP-Method-Override': fc.constantFrom('PATCH', 'DELETE', 'HEAD', 'GET'),
  };
  const mutation = fc
    .constantFrom(...Object.keys(hostileValue))
    .chain((name) =>
      fc.oneof(
        { arbitrary: hostileValue[name]!.map((value) => ({ name, change: 'set' as const, value })), weight: 6 },
        fc.constant({ name, change: 'drop' as const, value: '' }),
        fc.constant({ name, change: 'repeat' as const, value: '' }),
      ),
    );
  return fc
    .record({
      plausible,
      target,
      auth: fc.constantFrom(true, true, true, true, true, false),
      mutations: fc.array(mutation, { maxLength: 3 }),
      body: tusBody,
      // Terminations mostly aim elsewhere, so the seeded upload lives long enough for appends to reach it.
      spareSeed: fc.nat(9),
      framing: fc.constantFrom<HostileRequest['framing']>('length', 'length', 'length', 'chunked'),
      headers: fc.oneof({ arbitrary: fc.constant([] as [string, string][]), weight: 4 }, extraHeaders(targets)),
    })
    .map((r): HostileRequest => {
      const { method } = r.plausible;
      // Creation goes to the collection, everything else to an upload's url (mostly).
      const path =
        method === 'DELETE' && r.target === own && r.spareSeed > 0
          ? '/v1/uploads/up_00000000000000000000000000'
          : method === 'POST' && r.target === own
            ? '/v1/uploads'
            : method !== 'POST' && r.target === '/v1/uploads' && r.spareSeed > 2
              ? own
              : r.target;
      let tus: [string, string][] = [['Tus-Resumable', '1.0.0'], ...r.plausible.headers];
      for (const { name, change, value } of r.mutations) {
        const at = tus.findIndex(([existing]) => existing === name);
        if (change === 'set')
          tus = at === -1 ? [...tus, [name, headerValue(value)]] : tus.map((header, i) => (i === at ? [name, headerValue(value)] : header));
        else if (change === 'drop') tus = tus.filter(([existing]) => existing !== name);
        else if (at !== -1) tus.push(tus[at]!);
      }
      const headers: [string, string][] = [
        ...(r.auth ? [['Authorization', targets.authorization] as [string, string]] : []),
        ...tus,
        ...r.headers,
      ];
      const body = r.plausible.bytes || r.mutations.length > 0 ? (method === 'HEAD' ? Buffer.alloc(0) : r.body) : Buffer.alloc(0);
      return {
        kind: 'tus',
        method,
        target: path,
        headers,
        body,
        framing: body.length === 0 && method !== 'POST' && method !== 'PATCH' ? 'none' : r.framing,
      };
    });
}

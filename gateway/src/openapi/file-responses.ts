// The answers of the public file urls: bytes, not JSON, so described by hand,
// and their query parameters (read by the handler, never validated by Fastify).

const errorBody = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const fileHeaders = {
  ETag: { description: 'The quoted SHA-256 of the bytes.', schema: { type: 'string' } },
  'Last-Modified': { schema: { type: 'string' } },
  'Cache-Control': {
    description:
      '`public, max-age=31536000, immutable`: a url changes with its content. `private, no-cache` for a private file (signed url); `public, no-cache` for `?download` (a rename keeps the url, so caches revalidate).',
    schema: { type: 'string' },
  },
  'Accept-Ranges': { schema: { const: 'bytes' } },
  'X-Content-Type-Options': { schema: { const: 'nosniff' } },
  'Content-Security-Policy': { description: "`sandbox; default-src 'none'` on every type but PDF.", schema: { type: 'string' } },
  'Content-Disposition': {
    description:
      "With `?download`: `attachment; filename=\"<ASCII stand-in>\"; filename*=UTF-8''<percent-encoded name>` (RFC 6266, RFC 8187), the name being the asset's, or its id and the extension of its type when it has none. Without: `attachment` for every type that is not known to be inert (HTML, SVG, XML, unknown…).",
    schema: { type: 'string' },
  },
};

const common = {
  '304': { description: 'Not modified (`If-None-Match` / `If-Modified-Since`).' },
  '403': errorBody('`permission_denied`: a private file whose url has no valid signature (missing, wrong, expired or revoked).'),
  '404': errorBody('`not_found`: no current file of any asset has this path (unknown, malformed, replaced or deleted).'),
  '412': errorBody('`failed_precondition`: `If-Match` or `If-Unmodified-Since` does not hold.'),
  '501': errorBody('`unimplemented`: `?frame` on a server without ffmpeg (the file itself is served without it).'),
  '503': errorBody(
    '`unavailable`: the service or its blob store does not answer, or the transformation queue is full (`Retry-After`); retry later.',
  ),
};

const query = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});

/** The query parameters a file url takes (the same for GET and HEAD). */
export const FILE_PARAMETERS: readonly Record<string, unknown>[] = [
  query(
    'download',
    'Any value, or none (`?download`): the file comes as an attachment named after the asset (`Content-Disposition`). Not a transform parameter, and outside url signatures: it may be added to a signed url.',
    { type: 'string' },
  ),
  query('w', 'Derived image: width in pixels, one of TRANSFORM_SIZES.', { type: 'integer' }),
  query('h', 'Derived image: height in pixels, one of TRANSFORM_SIZES.', { type: 'integer' }),
  query('fit', 'Derived image: `cover`, `contain`, `inside` (default) or `fill`.', {
    type: 'string',
    enum: ['cover', 'contain', 'inside', 'fill'],
  }),
  query('format', 'Derived image: `jpeg`, `png`, `webp`, `avif`, or `auto` (from `Accept`).', {
    type: 'string',
    enum: ['jpeg', 'png', 'webp', 'avif', 'auto'],
  }),
  query('q', 'Derived image: quality, 1-100.', { type: 'integer', minimum: 1, maximum: 100 }),
  query(
    'frame',
    "A video's poster: `?frame` (the first frame) or `?frame=<ms>`, a JPEG unless `format` says otherwise; `w`, `h`, `fit`, `format` and `q` apply. Made once and stored. 400 for a file that is not a video or a time past its end; 501 `unimplemented` where the server has no ffmpeg; 503 with `Retry-After` beyond TRANSFORM_CONCURRENCY's queue.",
    { type: 'string', pattern: '^[0-9]{0,9}$' },
  ),
  query('expires', 'Signed url: unix seconds from which it is refused.', { type: 'integer' }),
  query('kid', 'Signed url: the id of the key that signed it.', { type: 'string' }),
  query('sig', 'Signed url: the signature over the path and every other parameter but `download`.', { type: 'string' }),
];

export const FILE_RESPONSES: Readonly<Record<string, Record<string, Record<string, unknown>>>> = {
  getFile: {
    '200': { description: 'The file.', headers: fileHeaders, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
    '206': {
      description:
        'The requested range (a single `Range: bytes=…`; several ranges get the whole file); `Content-Range: bytes <first>-<last>/<size>`.',
      headers: { ...fileHeaders, 'Content-Range': { schema: { type: 'string' } } },
      content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
    },
    ...common,
    '416': errorBody('`out_of_range`: the range starts past the end of the file; `Content-Range: bytes */<size>`.'),
  },
  headFile: { '200': { description: 'The headers GET would send, no body.', headers: fileHeaders }, ...common },
};

// The answers of the public file urls: bytes, not JSON, so described by hand.

const errorBody = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

const fileHeaders = {
  ETag: { description: 'The quoted SHA-256 of the bytes.', schema: { type: 'string' } },
  'Last-Modified': { schema: { type: 'string' } },
  'Cache-Control': { description: '`public, max-age=31536000, immutable`: a url changes with its content.', schema: { type: 'string' } },
  'Accept-Ranges': { schema: { const: 'bytes' } },
  'X-Content-Type-Options': { schema: { const: 'nosniff' } },
  'Content-Security-Policy': { description: "`sandbox; default-src 'none'` on every type but PDF.", schema: { type: 'string' } },
  'Content-Disposition': { description: '`attachment` for every type that is not known to be inert (HTML, SVG, XML, unknown…).', schema: { type: 'string' } },
};

const common = {
  '304': { description: 'Not modified (`If-None-Match` / `If-Modified-Since`).' },
  '404': errorBody('`not_found`: no current file of any asset has this path (unknown, malformed, replaced or deleted).'),
  '412': errorBody('`failed_precondition`: `If-Match` or `If-Unmodified-Since` does not hold.'),
  '503': errorBody('`unavailable`: the service or its blob store does not answer; retry later.'),
};

export const FILE_RESPONSES: Readonly<Record<string, Record<string, Record<string, unknown>>>> = {
  getFile: {
    '200': { description: 'The file.', headers: fileHeaders, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
    '206': {
      description: 'The requested range (a single `Range: bytes=…`; several ranges get the whole file); `Content-Range: bytes <first>-<last>/<size>`.',
      headers: { ...fileHeaders, 'Content-Range': { schema: { type: 'string' } } },
      content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
    },
    ...common,
    '416': errorBody('`out_of_range`: the range starts past the end of the file; `Content-Range: bytes */<size>`.'),
  },
  headFile: { '200': { description: 'The headers GET would send, no body.', headers: fileHeaders }, ...common },
};

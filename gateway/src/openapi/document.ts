import { ERROR_RESPONSES, SCHEMAS } from './schemas.js';

// The OpenAPI 3.1 description of everything the gateway answers over HTTP
// (the Connect protocol endpoints aside: their contract is the .proto files).
// A test keeps it equal to the gateway's real route table.

const ref = (name: keyof typeof ERROR_RESPONSES) => ({ $ref: `#/components/responses/${name}` });
const json = (schema: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } });
const idParam = (name: string, prefix: string, what: string) => ({
  name,
  in: 'path',
  required: true,
  description: `${what} id (\`${prefix}_…\`). A malformed id is 400, a well-formed unknown one 404.`,
  schema: { type: 'string' },
});
const requestId = { 'x-request-id': { description: 'The caller\'s own `x-request-id` when sane (1-128 of `[A-Za-z0-9._:-]`), else a fresh UUID; also in the logs.', schema: { type: 'string' } } };
const location = { Location: { description: 'Path of the created resource.', schema: { type: 'string' } } };
const authErrors = { '401': ref('Unauthenticated'), '403': ref('PermissionDenied'), '503': ref('Unavailable'), '500': ref('Internal') };
const fileHeaders = {
  ETag: { description: 'The quoted SHA-256 of the bytes.', schema: { type: 'string' } },
  'Last-Modified': { schema: { type: 'string' } },
  'Cache-Control': { description: '`public, max-age=31536000, immutable`: a url changes with its content.', schema: { type: 'string' } },
  'Accept-Ranges': { schema: { const: 'bytes' } },
  'X-Content-Type-Options': { schema: { const: 'nosniff' } },
  'Content-Security-Policy': { description: "`sandbox; default-src 'none'` on every type but PDF.", schema: { type: 'string' } },
  'Content-Disposition': { description: '`attachment` for every type that is not known to be inert (HTML, SVG, XML, unknown…).', schema: { type: 'string' } },
};

export function openApiDocument(filesPath: string): Record<string, unknown> {
  const fileParams = [
    { name: 'assetId', in: 'path', required: true, schema: { type: 'string' } },
    { name: 'fileName', in: 'path', required: true, description: '`<blob id>.<ext>`, as in the asset\'s url.', schema: { type: 'string' } },
  ];
  const fileOperation = (head: boolean) => ({
    tags: ['files'],
    summary: head ? 'Headers of a stored file' : 'Download a stored file',
    description:
      'Public (no token): the url is the share link. The path is the part of the asset url after CDN_URL. ' +
      (head ? 'Same headers as GET, no body.' : 'A single `Range: bytes=…` is answered 206; several ranges get the whole file. `If-None-Match`/`If-Modified-Since` give 304; `If-Range` is honoured.'),
    security: [],
    parameters: fileParams,
    responses: {
      '200': { description: 'The file.', headers: fileHeaders, content: head ? undefined : { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
      ...(head ? {} : { '206': { description: 'The requested range; `Content-Range: bytes <first>-<last>/<size>`.', headers: fileHeaders } }),
      '304': { description: 'Not modified.' },
      '404': ref('NotFound'),
      ...(head ? {} : { '416': ref('RangeNotSatisfiable') }),
      '503': ref('Unavailable'),
    },
  });

  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchyard',
      version: '1.0.0',
      description:
        'Route records and uploaded assets per workspace. Every /v1 operation needs `Authorization: Bearer <token>` (a JWT with `sub`, `workspace`, `scope`). ' +
        'Errors are always `{"code","message","details"}` with Connect code names. The same operations are also served over the Connect protocol at `/switchyard.v1.<Service>/<Method>` (see proto/switchyard/v1).',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Scopes: routes:read routes:write assets:read assets:write.' } },
      schemas: SCHEMAS,
      responses: ERROR_RESPONSES,
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/routing': {
        post: {
          tags: ['routes'],
          operationId: 'createRoute',
          summary: 'Create a route (scope routes:write)',
          requestBody: { required: true, content: json('CreateRouteRequest') },
          responses: {
            '201': { description: 'Created.', headers: { ...location, ...requestId }, content: json('Route') },
            '400': ref('BadRequest'),
            '409': ref('Conflict'),
            '413': ref('ContentTooLarge'),
            ...authErrors,
          },
        },
      },
      '/v1/routing/{id}': {
        get: {
          tags: ['routes'],
          operationId: 'getRoute',
          summary: 'Get a route (scope routes:read)',
          parameters: [idParam('id', 'rt', 'Route')],
          responses: { '200': { description: 'The route.', content: json('Route') }, '400': ref('BadRequest'), '404': ref('NotFound'), ...authErrors },
        },
      },
      '/v1/routing:match': {
        get: {
          tags: ['routes'],
          operationId: 'matchRoute',
          summary: 'Find the route matching a request (scope routes:read)',
          description: 'Static segments win over parameters, parameters over a trailing wildcard. 404 when no route matches.',
          parameters: [
            { name: 'method', in: 'query', required: true, schema: { type: 'string' }, example: 'GET' },
            { name: 'path', in: 'query', required: true, description: 'A concrete request path, URL-encoded.', schema: { type: 'string' }, example: '/users/42' },
          ],
          responses: { '200': { description: 'The match.', content: json('RouteMatch') }, '400': ref('BadRequest'), '404': ref('NotFound'), ...authErrors },
        },
      },
      '/v1/assets/upload': {
        post: {
          tags: ['assets'],
          operationId: 'uploadAsset',
          summary: 'Upload a file (scope assets:write)',
          description: 'Streamed to storage as it arrives; the asset is usable as soon as the response comes.',
          requestBody: { required: true, content: { 'multipart/form-data': { schema: { $ref: '#/components/schemas/UploadForm' } } } },
          responses: {
            '201': { description: 'Stored.', headers: { ...location, ...requestId }, content: json('Asset') },
            '400': ref('BadRequest'),
            '413': ref('ContentTooLarge'),
            ...authErrors,
          },
        },
      },
      '/v1/assets/{id}': {
        get: {
          tags: ['assets'],
          operationId: 'getAsset',
          summary: 'Get an asset (scope assets:read)',
          parameters: [idParam('id', 'as', 'Asset')],
          responses: { '200': { description: 'The asset.', content: json('Asset') }, '400': ref('BadRequest'), '404': ref('NotFound'), ...authErrors },
        },
      },
      '/v1/assets/{id}/replace': {
        post: {
          tags: ['assets'],
          operationId: 'replaceAsset',
          summary: 'Replace the file behind an asset (scope assets:write)',
          description: 'The id stays; type, size, url, sha256 and uploadedAt follow the new file. The old url answers 404 from then on.',
          parameters: [idParam('id', 'as', 'Asset')],
          requestBody: { required: true, content: { 'multipart/form-data': { schema: { $ref: '#/components/schemas/ReplaceForm' } } } },
          responses: {
            '200': { description: 'Replaced.', content: json('Asset') },
            '400': ref('BadRequest'),
            '404': ref('NotFound'),
            '413': ref('ContentTooLarge'),
            ...authErrors,
          },
        },
      },
      [`${filesPath}/{assetId}/{fileName}`]: { get: fileOperation(false), head: fileOperation(true) },
      '/healthz': {
        get: {
          tags: ['operations'],
          operationId: 'health',
          summary: 'Readiness: the service, its database and blob store answer',
          security: [],
          responses: { '200': { description: 'Ready.', content: json('Health') }, '503': ref('Unavailable') },
        },
      },
      '/v1/openapi.json': {
        get: { tags: ['operations'], operationId: 'openapi', summary: 'This document', security: [], responses: { '200': { description: 'OpenAPI 3.1.', content: { 'application/json': {} } } } },
      },
    },
  };
}

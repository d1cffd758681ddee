import { HTTP_STATUS_OF } from '../http-status.js';

// Components of the OpenAPI document: the JSON shapes the REST API sends and takes.

const isoTime = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC timestamp with milliseconds and `Z`.', examples: ['2025-01-31T09:30:00.000Z'] };

export const SCHEMAS = {
  Route: {
    type: 'object',
    required: ['id', 'method', 'path', 'middleware', 'handler', 'createdAt'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^rt_[0-9a-hjkmnp-tv-z]{26}$', description: 'Assigned by the service; opaque, URL-safe, time-sortable.' },
      method: { type: 'string', enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] },
      path: { type: 'string', description: 'Path pattern: leading `/`, segments of `[A-Za-z0-9._~-]`, `:name` parameters, an optional final `*`.', examples: ['/users/:id'] },
      middleware: { type: 'array', items: { type: 'string' }, description: 'Ordered middleware names.' },
      handler: { type: 'string', description: 'Handler function name.' },
      createdAt: isoTime,
    },
  },
  CreateRouteRequest: {
    type: 'object',
    required: ['method', 'path', 'handler'],
    additionalProperties: false,
    description: 'Unknown fields are refused (400), so a misspelt field never passes silently.',
    properties: {
      method: { type: 'string', description: 'HTTP method, case-insensitive: GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS.', examples: ['GET'] },
      path: { type: 'string', examples: ['/users/:id'] },
      middleware: { type: 'array', items: { type: 'string' }, default: [], examples: [['auth', 'rateLimit']] },
      handler: { type: 'string', examples: ['getUser'] },
    },
  },
  RouteMatch: {
    type: 'object',
    required: ['route', 'params'],
    additionalProperties: false,
    properties: {
      route: { $ref: '#/components/schemas/Route' },
      params: { type: 'object', additionalProperties: { type: 'string' }, description: 'Decoded values of the route\'s `:name` parameters (and `*` for a wildcard).', examples: [{ id: '42' }] },
    },
  },
  Asset: {
    type: 'object',
    required: ['id', 'type', 'size', 'url', 'uploadedAt', 'label', 'sha256'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^as_[0-9a-hjkmnp-tv-z]{26}$', description: 'Stays the same when the file is replaced.' },
      type: { type: 'string', description: 'Media type sniffed from the bytes (never taken from the client).', examples: ['image/png'] },
      size: { type: 'integer', minimum: 0, description: 'Size of the stored file in bytes.' },
      url: { type: 'string', format: 'uri', description: 'Absolute URL under CDN_URL, ending with the extension of `type`; changes whenever the content does.' },
      uploadedAt: { ...isoTime, description: 'Time of the upload or of the latest replacement.' },
      label: { type: 'string', description: 'The label given at upload; empty when none.' },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Lower-case hex SHA-256 of the stored bytes (also the file\'s ETag).' },
      width: { type: 'integer', minimum: 1, description: 'Pixel width, for images whose header could be read; absent otherwise.' },
      height: { type: 'integer', minimum: 1, description: 'Pixel height, for images whose header could be read; absent otherwise.' },
    },
  },
  UploadForm: {
    type: 'object',
    required: ['file'],
    properties: {
      file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file, exactly one part named `file`. Its name and Content-Type are hints only.' },
      label: { type: 'string', maxLength: 200, description: 'Optional label or category; may come before or after the file part.' },
    },
  },
  ReplaceForm: {
    type: 'object',
    required: ['file'],
    properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The new file, exactly one part named `file`.' } },
  },
  Health: { type: 'object', required: ['status'], properties: { status: { const: 'SERVING' } } },
  Error: {
    type: 'object',
    required: ['code', 'message', 'details'],
    additionalProperties: false,
    properties: {
      code: { type: 'string', enum: Object.keys(HTTP_STATUS_OF), description: 'Connect error code name.' },
      message: { type: 'string', description: 'What went wrong, for people.' },
      details: {
        type: 'array',
        items: {
          type: 'object',
          required: ['reason'],
          properties: { field: { type: 'string', description: 'The field, form part, header or variable at fault.' }, reason: { type: 'string' } },
        },
      },
    },
  },
} as const;

const errorResponse = (description: string, code: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples: { [code]: { value: { code, message: '…', details: [] } } } } },
});

/** Every error status the API answers with, and the code its body carries. */
export const ERROR_RESPONSES = {
  BadRequest: errorResponse('`invalid_argument`: malformed id, body, form, query or field (details name the field).', 'invalid_argument'),
  Unauthenticated: errorResponse('`unauthenticated`: missing, malformed, expired or wrongly signed bearer token.', 'unauthenticated'),
  PermissionDenied: errorResponse('`permission_denied`: the token lacks the scope this operation needs.', 'permission_denied'),
  NotFound: errorResponse('`not_found`: no such record in the caller\'s workspace (records of other workspaces do not exist for the caller).', 'not_found'),
  MethodNotAllowed: errorResponse('`unimplemented`: the path exists but not with this method; `Allow` lists the methods.', 'unimplemented'),
  Conflict: errorResponse('`already_exists`: the workspace has a route with the same method and path shape.', 'already_exists'),
  ContentTooLarge: errorResponse('`resource_exhausted`: the file is larger than MAX_UPLOAD_BYTES (or the JSON body larger than its limit).', 'resource_exhausted'),
  RangeNotSatisfiable: errorResponse('`out_of_range`: the range starts past the end of the file; `Content-Range: bytes */<size>`.', 'out_of_range'),
  Unavailable: errorResponse('`unavailable`: the service, its database or blob store does not answer; retry later.', 'unavailable'),
  Internal: errorResponse('`internal`: a bug; the message says nothing more.', 'internal'),
} as const;

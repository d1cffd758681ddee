import { z } from 'zod';
import { HTTP_STATUS_OF, type ErrorCodeName } from '../http-status.js';

// The JSON the REST API takes and answers with, as zod schemas: Fastify
// validates requests and serializes responses with them, and
// /v1/openapi.json is generated from them (openapi/document.ts). Schemas with
// an `id` become components of that document.

/** Zod's messages for our fields: the same words the service uses ("is required", "must be a string"). */
export const text = (description?: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .meta(description === undefined ? {} : { description });

export const isoTime = (description: string) =>
  z.string().meta({ format: 'date-time', description, examples: ['2025-01-31T09:30:00.000Z'] });

const ROUTE_FIELDS = ['method', 'path', 'middleware', 'handler', 'owner'];
const ASSIGNED_FIELDS = new Set(['id', 'createdAt']);

export const RouteSchema = z
  .object({
    id: z
      .string()
      .meta({ pattern: '^rt_[0-9a-hjkmnp-tv-z]{26}$', description: 'Assigned by the service; opaque, URL-safe, time-sortable.' }),
    method: z.string().meta({ enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], description: 'Upper case.' }),
    path: z.string().meta({
      description: 'Path pattern: leading `/`, segments of `[A-Za-z0-9._~-]`, `:name` parameters, an optional final `*`.',
      examples: ['/users/:id'],
    }),
    middleware: z.array(z.string()).meta({ description: 'Ordered middleware names.' }),
    handler: z.string().meta({ description: 'Handler function name.' }),
    createdAt: isoTime('When the route was created.'),
    updatedAt: isoTime('When the route was last changed (createdAt until then).'),
    revision: z.number().int().min(1).meta({ description: "The workspace's route-table revision this route was last written at." }),
    owner: z.string().meta({ description: 'The team or tool that manages the route (routes as code); `""` when none.' }),
  })
  .meta({ id: 'Route' });

/** Any of a route's fields; the others stay. Unknown fields are refused. */
export const UpdateRouteBodySchema = z
  .strictObject(
    {
      method: text('HTTP method, case-insensitive.').optional(),
      path: text('Path pattern, e.g. `/users/:id`.').optional(),
      middleware: z
        .array(z.string({ error: 'must be an array of strings' }), { error: 'must be an array of strings' })
        .optional()
        .meta({ description: 'Ordered middleware names (replaces the list).' }),
      handler: text('Handler function name.').optional(),
      owner: text('The team or tool that manages the route; `""` removes the owner.').optional(),
    },
    { error: (issue) => (issue.code === 'invalid_type' ? 'must be a JSON object' : undefined) },
  )
  .meta({ id: 'UpdateRouteRequest', description: 'Any of the fields; unknown fields are refused (400).' });

/**
 * The fields of the spec with their JSON types, nothing else (a misspelt
 * `middlewares` is refused, not dropped). The grammar of each value is the
 * service's to judge.
 */
export const CreateRouteBodySchema = z
  .strictObject(
    {
      method: text('HTTP method, case-insensitive: GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS.'),
      path: text('Path pattern, e.g. `/users/:id`.'),
      middleware: z
        .array(z.string({ error: 'must be an array of strings' }), { error: 'must be an array of strings' })
        .optional()
        .meta({ description: 'Ordered middleware names; none when left out.', examples: [['auth', 'rateLimit']] }),
      handler: text('Handler function name.'),
      owner: text(
        'The team or tool that manages the route (routes as code): a letter or digit, then letters, digits and `. _ : @ / -`, at most 64; none when left out.',
      ).optional(),
    },
    { error: (issue) => (issue.code === 'invalid_type' ? 'must be a JSON object' : undefined) },
  )
  .meta({ id: 'CreateRouteRequest', description: 'Unknown fields are refused (400), so a misspelt field never passes silently.' });

/** Why an unknown key of a create-route body is refused. */
export function unknownRouteField(key: string): string {
  return ASSIGNED_FIELDS.has(key) ? 'is assigned by the service; leave it out' : `is not a field of a route (${ROUTE_FIELDS.join(', ')})`;
}

export const RouteMatchSchema = z
  .object({
    route: RouteSchema,
    params: z
      .record(z.string(), z.string())
      .meta({ description: "Decoded values of the route's `:name` parameters (and `*` for a wildcard).", examples: [{ id: '42' }] }),
  })
  .meta({ id: 'RouteMatch' });

/** A query parameter given exactly once. */
const singleQuery = (description: string, example: string) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? 'query parameter is required'
          : Array.isArray(issue.input)
            ? 'query parameter given more than once'
            : 'must be a string',
    })
    .meta({ description, examples: [example] });

export const MatchQuerySchema = z.object({
  method: singleQuery('The request method.', 'GET'),
  path: singleQuery('A concrete request path, URL-encoded.', '/users/42'),
});

export const AssetSchema = z
  .object({
    id: z.string().meta({ pattern: '^as_[0-9a-hjkmnp-tv-z]{26}$', description: 'Stays the same when the file is replaced.' }),
    type: z.string().meta({ description: 'Media type sniffed from the bytes (never taken from the client).', examples: ['image/png'] }),
    size: z.number().int().min(0).meta({ description: 'Size of the stored file in bytes.' }),
    url: z.string().meta({
      format: 'uri',
      description: 'Absolute URL under CDN_URL, ending with the extension of `type`; changes whenever the content does.',
    }),
    uploadedAt: isoTime('Time of the upload or of the latest replacement.'),
    label: z.string().meta({ description: 'The label given at upload; empty when none.' }),
    name: z.string().meta({
      description:
        "The client's file name (the upload's multipart filename, gRPC `filename` or tus `filename`, or as last set by PATCH): at most 255 characters, no control characters; empty when none. Never used for `type` or `url`. `<url>?download` answers the file as an attachment with this name.",
      examples: ['Quarterly report.pdf'],
    }),
    sha256: z
      .string()
      .meta({ pattern: '^[0-9a-f]{64}$', description: "Lower-case hex SHA-256 of the stored bytes (also the file's ETag)." }),
    width: z.number().int().min(1).optional().meta({
      description:
        'Pixel width as shown (orientation or rotation applied), for images and videos whose headers could be read; absent otherwise.',
    }),
    height: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'Pixel height as shown, for images and videos whose headers could be read; absent otherwise.' }),
    durationMs: z
      .number()
      .int()
      .min(0)
      .optional()
      .meta({
        description: 'Length in milliseconds, for audio and video whose headers could be read; absent otherwise.',
        examples: [12480],
      }),
    pages: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'Page count, for PDFs whose page tree could be read; absent otherwise.', examples: [3] }),
    placeholder: z
      .string()
      .optional()
      .meta({
        description:
          'Images: a ThumbHash (base64) that a client decodes (e.g. `thumbHashToDataURL` of the `thumbhash` package) to a blurred preview with the aspect ratio and alpha of the image, shown while it loads; absent otherwise.',
        examples: ['1QcSHQRnh493V4dIh4eXh1h4kJUI'],
      }),
    visibility: z
      .enum(['public', 'private'])
      .meta({ description: '`private` files answer 403 unless their url is signed (`POST /v1/assets/{id}/signed-url`).' }),
  })
  .meta({ id: 'Asset' });

const VISIBILITY_REASON = 'must be "public" or "private"';
const visibility = (description: string) => z.enum(['public', 'private'], { error: VISIBILITY_REASON }).optional().meta({ description });
const objectError = (fields: string) => (issue: { code: string }) =>
  issue.code === 'invalid_type'
    ? 'must be a JSON object'
    : issue.code === 'unrecognized_keys'
      ? `is not a field here (${fields})`
      : undefined;

export const UpdateAssetBodySchema = z
  .strictObject(
    {
      label: z.string({ error: 'must be a string' }).optional().meta({ description: 'The new label; "" clears it.' }),
      name: z
        .string({ error: 'must be a string' })
        .optional()
        .meta({
          description:
            'The new name; "" clears it. Control characters are removed; more than 255 characters (after that) is 400, never cut.',
          examples: ['Quarterly report (final).pdf'],
        }),
      visibility: visibility('The new visibility.'),
    },
    { error: objectError('label, name, visibility') },
  )
  .meta({ id: 'UpdateAssetRequest' });

const transformNumber = (description: string) =>
  z.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }).optional().meta({ description });

const EXPIRES_IN_REASON = 'must be a whole number of seconds from 1 to 604800';

export const SignedUrlBodySchema = z
  .strictObject(
    {
      expiresIn: z
        .number({ error: EXPIRES_IN_REASON })
        .int({ error: EXPIRES_IN_REASON })
        .meta({ description: 'Seconds the url works, 1 to 604800 (7 days).', examples: [3600] }),
      transform: z
        .strictObject(
          {
            w: transformNumber('Width in pixels.'),
            h: transformNumber('Height in pixels.'),
            fit: z.string({ error: 'must be a string' }).optional(),
            format: z.string({ error: 'must be a string' }).optional(),
            q: transformNumber('Quality, 1-100.'),
            frame: transformNumber("A video's poster: the frame at this many milliseconds (`?frame=<ms>`)."),
          },
          { error: objectError('w, h, fit, format, q, frame') },
        )
        .optional()
        .meta({ description: 'Image transformation (or poster frame) parameters the url carries, signed with it.' }),
    },
    { error: objectError('expiresIn, transform') },
  )
  .meta({ id: 'CreateSignedUrlRequest' });

export const SignedUrlSchema = z
  .object({
    url: z.string().meta({ format: 'uri', description: 'The file url with `expires`, `kid` and `sig` query parameters.' }),
    expiresAt: isoTime('The url is refused from this instant on (no grace period).'),
  })
  .meta({ id: 'SignedUrl' });

export const WorkspacePolicySchema = z
  .object({
    allowedTypes: z
      .array(z.string())
      .meta({ description: "Media types (`image/png`, `image/*`) a file's sniffed type must match; empty allows every type." }),
    maxUploadBytes: z
      .number()
      .int()
      .min(0)
      .meta({ description: "Largest file in bytes (the workspace's limit or the server's MAX_UPLOAD_BYTES, the smaller)." }),
    defaultVisibility: z.enum(['public', 'private']).meta({ description: 'Visibility of uploads that name none.' }),
    stripImageMetadata: z.boolean().meta({
      description:
        'JPEG, PNG, WebP and AVIF uploads are stored without EXIF, XMP and IPTC (GPS included), their orientation applied; the stored size and sha256 are those of the rewritten file.',
    }),
    keepVersions: z.number().int().min(0).max(100).meta({ description: 'Replaced files each asset keeps as versions.' }),
    retentionDays: z
      .number()
      .int()
      .min(0)
      .max(365)
      .meta({ description: 'Days versions and deleted assets are kept before `switchyard gc` purges them; 0 keeps neither.' }),
  })
  .meta({ id: 'WorkspacePolicy' });

const KEEP_VERSIONS_REASON = 'must be a whole number from 0 to 100';
const RETENTION_DAYS_REASON = 'must be a whole number from 0 to 365';

export const SetWorkspacePolicyBodySchema = z
  .strictObject(
    {
      allowedTypes: z
        .array(z.string({ error: 'must be an array of media types' }), { error: 'must be an array of media types' })
        .optional()
        .meta({ description: 'Default: every type.' }),
      maxUploadBytes: z
        .number({ error: 'must be a whole number of bytes' })
        .optional()
        .meta({ description: "At most MAX_UPLOAD_BYTES. Default: the server's maximum." }),
      defaultVisibility: visibility('Default: public.'),
      stripImageMetadata: z.boolean({ error: 'must be true or false' }).optional().meta({ description: 'Default: false.' }),
      // Bounded here too: a fraction or a number past int32 cannot even be put on the wire to the service.
      keepVersions: z
        .number({ error: KEEP_VERSIONS_REASON })
        .int({ error: KEEP_VERSIONS_REASON })
        .min(0, { error: KEEP_VERSIONS_REASON })
        .max(100, { error: KEEP_VERSIONS_REASON })
        .optional()
        .meta({ description: 'Replaced files each asset keeps, 0 to 100. Default: 5.' }),
      retentionDays: z
        .number({ error: RETENTION_DAYS_REASON })
        .int({ error: RETENTION_DAYS_REASON })
        .min(0, { error: RETENTION_DAYS_REASON })
        .max(365, { error: RETENTION_DAYS_REASON })
        .optional()
        .meta({ description: 'Days versions and deleted assets are kept, 0 to 365 (0 keeps neither). Default: 7.' }),
    },
    { error: objectError('allowedTypes, maxUploadBytes, defaultVisibility, stripImageMetadata, keepVersions, retentionDays') },
  )
  .meta({ id: 'SetWorkspacePolicyRequest' });

const filePart = (description: string) => z.string().meta({ format: 'binary', contentMediaType: 'application/octet-stream', description });

export const UploadFormSchema = z
  .object({
    file: filePart(
      "The file, exactly one part named `file`. Its filename becomes the asset's `name` (control characters removed, cut to 255 characters keeping a short extension); its Content-Type is a hint only.",
    ),
    label: z.string().max(200).optional().meta({ description: 'Optional label or category; may come before or after the file part.' }),
    visibility: z
      .enum(['public', 'private'])
      .optional()
      .meta({ description: "Optional; default: the workspace policy's defaultVisibility. May come before or after the file part." }),
  })
  .meta({ id: 'UploadForm' });

export const ReplaceFormSchema = z
  .object({
    file: filePart(
      "The new file, exactly one part named `file`. A filename becomes the asset's new `name`; without one (or an empty one) the name stays.",
    ),
    visibility: z
      .enum(['public', 'private'])
      .optional()
      .meta({ description: 'Optional; default: unchanged. May come before or after the file part.' }),
  })
  .meta({ id: 'ReplaceForm' });

export const HealthSchema = z.object({ status: z.literal('SERVING') }).meta({ id: 'Health' });

export const ErrorSchema = z
  .object({
    code: z.enum(Object.keys(HTTP_STATUS_OF) as [ErrorCodeName, ...ErrorCodeName[]]).meta({ description: 'Connect error code name.' }),
    message: z.string().meta({ description: 'What went wrong, for people.' }),
    details: z.array(
      z.object({
        field: z.string().optional().meta({ description: 'The field, form part, header or variable at fault.' }),
        reason: z.string(),
      }),
    ),
  })
  .meta({ id: 'Error' });

const idParam = (prefix: string, what: string) =>
  z.object({ id: z.string().meta({ description: `${what} id (\`${prefix}_…\`). A malformed id is 400, a well-formed unknown one 404.` }) });

export const RouteIdParams = idParam('rt', 'Route');
export const AssetIdParams = idParam('as', 'Asset');

export type RouteView = z.infer<typeof RouteSchema>;
export type AssetView = z.infer<typeof AssetSchema>;
export type WorkspacePolicyView = z.infer<typeof WorkspacePolicySchema>;
export type RouteMatchView = z.infer<typeof RouteMatchSchema>;

/** This API's own description (its fields are OpenAPI's). */
export const OpenApiDocumentSchema = z
  .looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.record(z.string(), z.unknown()) })
  .meta({ id: 'OpenApiDocument' });

/** `?pageSize=…`: a whole number from 1 to 1000 (documented as an integer, read from the query's text). */
const PAGE_SIZE_REASON = 'must be a whole number from 1 to 1000';
export const pageSize = z.coerce
  .number({ error: PAGE_SIZE_REASON })
  .int({ error: PAGE_SIZE_REASON })
  .min(1, { error: PAGE_SIZE_REASON })
  .max(1000, { error: PAGE_SIZE_REASON })
  .optional()
  .meta({ description: 'Items per page (default 50).', examples: [50] });

export const optionalQuery = (description: string, example: string) =>
  z
    .string({ error: (issue) => (Array.isArray(issue.input) ? 'query parameter given more than once' : 'must be a string') })
    .optional()
    .meta({ description, examples: [example] });

export const ListAssetsQuerySchema = z.object({
  pageSize,
  pageToken: optionalQuery("The previous page's `nextPageToken`; a token from another listing is 400.", 'MS5hc18wMWo…'),
  type: optionalQuery('Only this media type, or every subtype of a top-level type with `/*`.', 'image/*'),
  label: optionalQuery('Only assets with exactly this label.', 'avatars'),
  q: optionalQuery(
    'Only assets whose name starts with this, ignoring case (compared in Unicode NFC); every character is literal, `%` and `_` included; at most 255 characters; empty: every name. Combines with `type` and `label`.',
    'report',
  ),
});

export const REVISION_REASON = 'must be a whole number, 0 or more';
/** Decimal digits only: `0x10`, `1.0` or ` 5` are not revisions, whatever Number() makes of them. */
export const revisionQuery = z
  .string({ error: REVISION_REASON })
  .regex(/^\d{1,15}$/, { error: REVISION_REASON })
  .transform(Number)
  .meta({ type: 'integer', minimum: 0 });

/** `pageSize` and `pageToken`: a cursor listing with nothing else to ask. */
export const PageQuerySchema = z.object({
  pageSize,
  pageToken: optionalQuery("The previous page's `nextPageToken`; a token from another listing is 400.", 'MS4xNzM…'),
});

export const ListRoutesQuerySchema = PageQuerySchema.extend({
  atRevision: revisionQuery.optional().meta({
    description:
      'The table as it was at this revision, rebuilt from the kept change log (`ROUTE_HISTORY` revisions); older, or ahead of the table, is 400 saying how far back it goes.',
    examples: [12],
  }),
});

export const RoutePageSchema = z
  .object({
    routes: z.array(RouteSchema),
    nextPageToken: z.string().meta({ description: 'Pass as `pageToken` for the next page; empty on the last page.' }),
  })
  .meta({ id: 'RoutePage' });

export const WatchRoutesQuerySchema = z.object({
  sinceRevision: revisionQuery.optional().meta({
    description:
      '0 (default): a snapshot first. Else only the changes after this revision (a snapshot when they are no longer kept). `Last-Event-ID` wins over it.',
    examples: [0],
  }),
});

export const WatchRoutesHeadersSchema = z.looseObject({
  'last-event-id': revisionQuery.optional().meta({ description: 'Set by a reconnecting EventSource: resumes after this revision.' }),
});

export const AssetPageSchema = z
  .object({
    assets: z.array(AssetSchema),
    nextPageToken: z.string().meta({ description: 'Pass as `pageToken` for the next page; empty on the last page.' }),
  })
  .meta({ id: 'AssetPage' });

export const BatchDeleteBodySchema = z
  .strictObject(
    {
      ids: z
        .array(z.string({ error: 'must be an array of asset ids' }), {
          error: (issue) => (issue.input === undefined ? 'is required' : 'must be an array of asset ids'),
        })
        .meta({ description: '1-1000 asset ids.' }),
    },
    {
      error: (issue) =>
        issue.code === 'invalid_type'
          ? 'must be a JSON object'
          : issue.code === 'unrecognized_keys'
            ? 'is not a field of a batch delete (ids)'
            : undefined,
    },
  )
  .meta({ id: 'BatchDeleteRequest' });

export const BatchDeleteResultsSchema = z
  .object({
    results: z
      .array(z.object({ id: z.string(), code: z.enum(['ok', 'not_found', 'invalid_argument']) }))
      .meta({ description: 'One per requested id, in the order asked.' }),
  })
  .meta({ id: 'BatchDeleteResults' });

export const WorkspaceUsageSchema = z
  .object({
    assets: z.number().int().min(0).meta({ description: 'Assets in the workspace.' }),
    bytes: z.number().int().min(0).meta({ description: 'Bytes of their current files.' }),
    versionBytes: z.number().int().min(0).meta({ description: 'Bytes of the versions (replaced files) the assets keep.' }),
    trashBytes: z.number().int().min(0).meta({ description: "Bytes of the trash: deleted assets' files and their versions." }),
    routes: z.number().int().min(0).meta({ description: 'Route records in the workspace.' }),
  })
  .meta({ id: 'WorkspaceUsage' });

import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { isNotModified, needsValidators, preconditionFails, rangeStillValid } from './files/conditional.js';
import { DOWNLOAD, IMMUTABLE, PRIVATE_FILE, safetyHeaders } from './files/file-headers.js';
import { attachmentNamed } from './files/content-disposition.js';
import { rangeOf, type ByteRange } from './files/range.js';
import type { FileInfo } from '@switchyard/proto';
import { ApiError, toApiError } from './http/api-error.js';
import type { RequestContext } from './http/context.js';
import { isSettled } from './http/respond.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '@switchyard/runtime';
import { copyHookHeaders } from './app/raw-reply.js';
import { contextOf } from './app/request-context.js';
import { PRECONDITION_FAILED, RANGE_NOT_SATISFIABLE } from './http-status.js';
import { DOWNLOAD_PARAM, TRANSFORM_PARAMS } from '@switchyard/core';
import type { ServiceClients } from './service/clients.js';
import type { FileMeta, ValidatorCache } from './files/validator-cache.js';

/** One segment of a file path (`<asset id>/<blob id>.<ext>`); anything else cannot name a file. No `%`: nothing to decode. */
export const FILE_PATH_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** The files route's template under `filesPath`: its url in Fastify, its label on metrics and spans. */
export function fileRouteOf(filesPath: string): string {
  return `${filesPath}/:assetId/:fileName`;
}

/** Where the validator cache keeps a file's answer: its name, its query, and the format `format=auto` chose. */
export function fileCacheKey(fileName: string, query: string, format: string | undefined): string {
  return `${fileName}?${query}#${format ?? ''}`;
}

/** What a file url does, in brief (the headers and parameters have their own descriptions). */
const FILE_DESCRIPTION = [
  'No token; a private file needs its signature (`?expires&kid&sig`), else 403. HEAD answers the same headers without the body.',
  '`ETag` (the sha256), `Range`, immutable caching (`private, no-cache` for private files), `nosniff`, and a sandbox CSP plus `attachment` for types a browser would run (HTML, SVG, XML…).',
  '`?download` names the asset in `Content-Disposition: attachment` (revalidated: `public, no-cache`).',
  'On a video, `?frame[=ms]` (with `w`, `h`, `fit`, `format`, `q`) answers a poster frame (`image/jpeg` unless `format` says otherwise), made once with ffmpeg and stored like a transformation; 501 `unimplemented` without ffmpeg.',
].join(' ');

/**
 * Files under the path of CDN_URL, read from the service's FileService
 * (the gateway never touches the blob store); private ones with the
 * signature of their url, which the service checks. GET and HEAD, single byte
 * ranges, conditional requests, and headers that make uploaded HTML or SVG
 * inert; `?download` (with any other parameters) names the file in an
 * attachment. Unknown, malformed and replaced-away paths are all 404.
 */
export const fileRoutes: FastifyPluginAsync<{
  clients: ServiceClients;
  filesPath: string;
  log: Logger;
  validators: ValidatorCache;
}> = async (app, { clients, filesPath, log, validators }) => {
  const serve = async (request: FastifyRequest<{ Params: { assetId: string; fileName: string } }>, reply: FastifyReply): Promise<void> => {
    const { assetId, fileName } = request.params;
    // A file URL is a public link, not an API call: whatever names no file is 404.
    if (!FILE_PATH_SEGMENT.test(assetId) || !FILE_PATH_SEGMENT.test(fileName)) throw noSuchFile();
    const ctx = contextOf(request, reply, log, { assetId, fileName });
    // From here the handler writes the file itself; its refusals still go through Fastify's error handler.
    copyHookHeaders(reply);
    await serveFile(clients, validators, ctx);
    if (isSettled(reply.raw)) reply.hijack();
  };
  const schema = { tags: ['files'], security: [], hide: false };
  app.get(
    fileRouteOf(filesPath),
    {
      schema: { ...schema, operationId: 'getFile', summary: 'Download a stored file', description: FILE_DESCRIPTION },
      exposeHeadRoute: false,
    },
    serve,
  );
  app.head(fileRouteOf(filesPath), { schema: { ...schema, operationId: 'headFile', summary: 'Headers of a stored file' } }, serve);
};

/** The files path a malformed percent-encoding was found in answers 404 too: it names no file. */
export function isFilesUrl(url: string, filesPath: string): boolean {
  return url.startsWith(`${filesPath}/`);
}

async function serveFile(clients: ServiceClients, validators: ValidatorCache, ctx: RequestContext): Promise<void> {
  const { assetId = '', fileName = '' } = ctx.params;
  const path = `${assetId}/${fileName}`;
  // A private file's signature is in the query; the service checks it (and ignores it for public files).
  const url = ctx.req.url ?? '';
  const queryAt = url.indexOf('?');
  const query = queryAt === -1 ? '' : url.slice(queryAt + 1);
  const transform = query === '' ? undefined : transformOf(ctx);
  // Not a transform parameter, and outside signatures (the service ignores it in `query`): it only names the download.
  const download = query !== '' && ctx.query.has(DOWNLOAD_PARAM);
  const file: FileRef = { path, query, ...(transform ? { transform } : {}) };
  const head = ctx.req.method === 'HEAD';
  // Range means nothing to HEAD (RFC 9110 §14.2).
  const rangeHeader = head ? undefined : ctx.req.headers.range;

  const cacheKey = fileCacheKey(fileName, query, transform?.format);
  // A download's answers carry the asset's name, which is read afresh.
  const keep: Keep | undefined = download ? undefined : { validators, assetId, key: cacheKey, token: validators.begin() };
  // A GET with a body is answered once that body is read, as the service call lets it be: its malformed rest is a 400, never after a 200.
  const cached = keep && !hasBody(ctx.req) ? validators.get(assetId, cacheKey) : undefined;
  if (cached !== undefined) {
    // Every change heard (files/validator-cache.ts): what is kept is the service's answer; else it may only confirm a revalidation.
    if (validators.coverage !== 'partial') {
      const range = answerKnown(ctx, cached, head, rangeHeader, false, validators.bytesOf(assetId, cacheKey, cached));
      return range === undefined ? undefined : streamFile(clients, ctx, file, range, false, keep);
    }
    const unconditional = ctx.req.headers['if-match'] === undefined && ctx.req.headers['if-unmodified-since'] === undefined;
    if (unconditional && isNotModified(ctx.req, cached)) return sendNotModified(ctx.res, cached, false);
  }
  // Most GETs take one call; HEAD, conditional and range requests first learn the file's size and validators.
  if (!head && rangeHeader === undefined && !needsValidators(ctx.req)) return streamFile(clients, ctx, file, 'whole', download, keep);
  const meta = await readMeta(clients, ctx, file);
  if (keep) validators.put(keep.token, assetId, cacheKey, meta);
  if (isSettled(ctx.res)) return;
  const range = answerKnown(ctx, meta, head, rangeHeader, download, undefined);
  if (range !== undefined) await streamFile(clients, ctx, file, range, download, keep);
}

/** Whether a body follows the request's headers (chunked, or a length above 0). */
export function hasBody(req: IncomingMessage): boolean {
  const { headers } = req;
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

/** Where a file read keeps what it learns (files/validator-cache.ts), `token` taken before it began. */
interface Keep {
  readonly validators: ValidatorCache;
  readonly assetId: string;
  readonly key: string;
  readonly token: number;
}

/**
 * Answers a request from the file's validators, and from its `bytes` when
 * given: 412, 304, HEAD, 416, or the body whole or in part. Returns the range
 * to stream from the service when the body is needed and not at hand.
 */
function answerKnown(
  ctx: RequestContext,
  meta: FileMeta,
  head: boolean,
  rangeHeader: string | undefined,
  download: boolean,
  bytes: Buffer | undefined,
): Exclude<ByteRange, 'unsatisfiable'> | undefined {
  if (preconditionFails(ctx.req, meta)) throw preconditionFailed(meta);
  if (isNotModified(ctx.req, meta)) return void sendNotModified(ctx.res, meta, download);
  if (head) return void ctx.res.writeHead(200, { ...fileHeaders(meta, download), 'content-length': meta.size }).end();
  const range = rangeStillValid(ctx.req, meta) ? rangeOf(rangeHeader, meta.size) : 'whole';
  if (range === 'unsatisfiable') throw unsatisfiable(meta.size);
  if (bytes === undefined) return range;
  if (range === 'whole') return void ctx.res.writeHead(200, { ...fileHeaders(meta, download), 'content-length': meta.size }).end(bytes);
  const headers = {
    ...fileHeaders(meta, download),
    'content-length': range.end - range.start + 1,
    'content-range': `bytes ${range.start}-${range.end}/${meta.size}`,
  };
  ctx.res.writeHead(206, headers).end(bytes.subarray(range.start, range.end + 1));
  return undefined;
}

interface FileRef {
  readonly path: string;
  readonly query: string;
  readonly transform?: TransformMessage;
}

type TransformMessage = { w?: number; h?: number; fit?: string; format?: string; q?: number; frame?: number };

/**
 * The transform parameters of a file url (`frame` for a video's poster among
 * them), each at most once, numbers as numbers; `format=auto` becomes the best format the client accepts (AVIF,
 * then WebP, else the source's own), and the answer then varies by Accept.
 * Their values are the service's to judge (TRANSFORM_SIZES and the rest).
 */
function transformOf(ctx: RequestContext): TransformMessage | undefined {
  const query = ctx.query;
  if (!TRANSFORM_PARAMS.some((name) => query.has(name))) return undefined;
  const transform: TransformMessage = {};
  for (const name of TRANSFORM_PARAMS) {
    const values = query.getAll(name);
    if (values.length === 0) continue;
    if (values.length > 1)
      throw new ApiError('invalid_argument', `${name}: given more than once`, [{ field: name, reason: 'given more than once' }]);
    const value = values[0]!;
    if (name === 'fit' || name === 'format') transform[name] = value;
    // `?frame` alone is the first frame; the core bounds the time.
    else if (name === 'frame') {
      if (!/^\d{0,9}$/.test(value))
        throw new ApiError('invalid_argument', 'frame: must be a whole number of milliseconds, or empty for the first frame', [
          { field: name, reason: 'must be a whole number of milliseconds' },
        ]);
      transform.frame = Number(value);
    } else {
      if (!/^\d{1,5}$/.test(value))
        throw new ApiError('invalid_argument', `${name}: must be a whole number`, [{ field: name, reason: 'must be a whole number' }]);
      transform[name] = Number(value);
    }
  }
  if (transform.format === 'auto') {
    ctx.res.setHeader('vary', 'Accept');
    const accept = String(ctx.req.headers.accept ?? '');
    const format = /image\/avif/.test(accept) ? 'avif' : /image\/webp/.test(accept) ? 'webp' : undefined;
    if (format === undefined) delete transform.format;
    else transform.format = format;
  }
  return transform;
}

/**
 * Streams the file or its range; `download` names it in an attachment. With
 * `keep`, while every change is heard, its validators are kept, and a small
 * file read whole its bytes too.
 */
async function streamFile(
  clients: ServiceClients,
  ctx: RequestContext,
  file: FileRef,
  range: Exclude<ByteRange, 'unsatisfiable'>,
  download: boolean,
  keep?: Keep,
): Promise<void> {
  const request = range === 'whole' ? file : { ...file, rangeStart: BigInt(range.start), rangeEnd: BigInt(range.end) };
  const { res } = ctx;
  let expected = -1;
  let sent = 0;
  let kept: FileMeta | undefined;
  let chunks: Uint8Array[] | undefined;
  try {
    for await (const message of clients.files.readFile(request, ctx.callOptions({ streaming: true }))) {
      // Answered meanwhile (a malformed rest of the request): stop reading the file.
      if (isSettled(res) && expected < 0) return;
      if (message.payload.case === 'info') {
        const info = message.payload.value;
        const meta = metaOf(info);
        const start = Number(info.rangeStart);
        const end = Number(info.rangeEnd);
        expected = meta.size === 0 ? 0 : end - start + 1;
        const partial = range !== 'whole';
        const headers = {
          ...fileHeaders(meta, download),
          'content-length': expected,
          ...(partial ? { 'content-range': `bytes ${start}-${end}/${meta.size}` } : {}),
        };
        res.writeHead(partial ? 206 : 200, headers);
        if (keep && meta.visibility === 'public' && keep.validators.coverage !== 'partial') {
          kept = meta;
          if (!partial && keep.validators.keepsBytesOf(meta.size)) chunks = [];
        }
      } else if (message.payload.case === 'chunk' && expected >= 0) {
        sent += message.payload.value.length;
        chunks?.push(message.payload.value);
        if (!res.write(message.payload.value)) await once(res, 'drain', { signal: ctx.signal });
      }
    }
  } catch (error) {
    if (ctx.lifetime.ended) return;
    const failure = toApiError(error);
    // Half sent: only a cut connection tells the client its copy is short.
    if (res.headersSent) return void res.destroy();
    if (failure.code === 'out_of_range') throw unsatisfiable((await readMeta(clients, ctx, file)).size);
    throw notAFile(failure);
  }
  // Fewer bytes than announced: cut the connection so the client cannot take a short file for a whole one.
  if (expected < 0 || sent !== expected) return void res.destroy();
  res.end();
  if (keep && kept) keep.validators.put(keep.token, keep.assetId, keep.key, kept, chunks && Buffer.concat(chunks, sent));
}

async function readMeta(clients: ServiceClients, ctx: RequestContext, file: FileRef): Promise<FileMeta> {
  try {
    for await (const message of clients.files.readFile({ ...file, infoOnly: true }, ctx.callOptions())) {
      if (message.payload.case === 'info') return metaOf(message.payload.value);
    }
  } catch (error) {
    throw notAFile(toApiError(error));
  }
  throw new ApiError('internal', 'internal error', [], { cause: new Error('ReadFile sent no info') });
}

function metaOf(info: FileInfo): FileMeta {
  if (info.uploadedAt === undefined)
    throw new ApiError('internal', 'internal error', [], { cause: new Error('ReadFile info without uploaded_at') });
  return {
    type: info.type,
    size: Number(info.size),
    etag: `"${info.sha256}"`,
    lastModified: timestampDate(info.uploadedAt),
    visibility: info.visibility,
    name: info.name,
  };
}

/**
 * A private file reached through a signed url: no shared cache keeps it, and a browser asks again before reuse (the link may be revoked).
 * A download of a public one is revalidated too: renaming the asset keeps its url, so a cache must learn the new name.
 */
function cachingOf(meta: FileMeta, download: boolean): string {
  return meta.visibility === 'private' ? PRIVATE_FILE : download ? DOWNLOAD : IMMUTABLE;
}

function fileHeaders(meta: FileMeta, download: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': meta.type,
    etag: meta.etag,
    'last-modified': meta.lastModified.toUTCString(),
    'accept-ranges': 'bytes',
    'cache-control': cachingOf(meta, download),
    ...safetyHeaders(meta.type),
  };
  if (download) headers['content-disposition'] = attachmentNamed(meta.name);
  return headers;
}

/** A 304 of a download repeats the disposition: a cache updates the headers it keeps from it (RFC 9111 §4.3.4), so a new name reaches it. */
export function sendNotModified(res: ServerResponse, meta: FileMeta, download: boolean): void {
  const headers: Record<string, string> = {
    etag: meta.etag,
    'last-modified': meta.lastModified.toUTCString(),
    'cache-control': cachingOf(meta, download),
    'x-content-type-options': 'nosniff',
  };
  if (download) headers['content-disposition'] = attachmentNamed(meta.name);
  res.writeHead(304, headers).end();
}

function preconditionFailed(meta: FileMeta): ApiError {
  return new ApiError(
    PRECONDITION_FAILED.code,
    "the file does not match the request's preconditions (If-Match or If-Unmodified-Since)",
    [{ field: 'if-match', reason: `the current file's ETag is ${meta.etag}` }],
    { status: PRECONDITION_FAILED.status, headers: { etag: meta.etag, 'last-modified': meta.lastModified.toUTCString() } },
  );
}

function unsatisfiable(size: number): ApiError {
  return new ApiError(
    RANGE_NOT_SATISFIABLE.code,
    `the range starts past the end of the file (${size} bytes)`,
    [{ field: 'range', reason: `the file has ${size} bytes` }],
    {
      status: RANGE_NOT_SATISFIABLE.status,
      headers: { 'content-range': `bytes */${size}` },
    },
  );
}

/** A malformed path names no file (404); a bad transform parameter is the caller's request error (400, JSON). */
function notAFile(failure: ApiError): ApiError {
  return failure.code === 'invalid_argument' && failure.details.some((detail) => detail.field === 'path') ? noSuchFile() : failure;
}

export function noSuchFile(): ApiError {
  return new ApiError('not_found', 'no such file', [{ field: 'path', reason: 'no current file of any asset has this path' }]);
}

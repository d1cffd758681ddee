import type { MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { AppendUploadRequestSchema, Upload } from '@switchyard/proto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Logger } from '@switchyard/runtime';
import { acceptUnreadBodies } from '../app/unread-bodies.js';
import { contextOf } from '../app/request-context.js';
import { ApiError, toApiError } from '../http/api-error.js';
import type { RequestContext } from '../http/context.js';
import { isSettled } from '../http/respond.js';
import type { Slots } from '../http/slots.js';
import type { ServiceClients } from '../service/clients.js';
import { coalesce } from './coalesce.js';
import { uploadsBusy } from './assets.js';
import { sleep, systemTime, UPLOAD_CHECKSUM_ALGORITHMS, type TimeSource } from '@switchyard/core';
import {
  badHeader,
  formatMetadata,
  headerOf,
  OFFSET_OCTET_STREAM,
  parseChecksum,
  parseConcat,
  parseMetadata,
  parseSize,
  TUS_EXTENSIONS,
  TUS_VERSION,
  type ParsedChecksum,
} from '../tus/tus-headers.js';
import { publicOrigin } from '../tus/public-origin.js';

export interface UploadRoutesDeps {
  readonly clients: ServiceClients;
  readonly maxUploadBytes: number;
  /** Shared with the multipart uploads: an append streams in one of them. */
  readonly uploadSlots: Slots;
  readonly log: Logger;
  /** TRUST_PROXY: take the public origin of `Location` urls from X-Forwarded-Proto and X-Forwarded-Host. */
  readonly trustProxy: boolean;
  /** The clock and timers of the wait for a restarting service and of the chunks' hold time (the system's by default). */
  readonly time?: TimeSource | undefined;
}

declare module 'fastify' {
  // @fastify/cors reads a route's `config.cors` over its global options, but does not declare it.
  interface FastifyContextConfig {
    cors?: Partial<FastifyCorsOptions>;
  }
}

export const UPLOADS_PATH = '/v1/uploads';
/** The header that names the asset a finished upload made or replaced. */
export const ASSET_ID_HEADER = 'switchyard-asset-id';

/** How long a HEAD waits for an unreachable service to come back (see getUploadPatiently). */
export const SERVICE_RESTART_WAIT_MS = 10_000;
export const SERVICE_RESTART_POLL_MS = 250;
const CHUNK_BYTES = 1024 * 1024;
const CHUNK_HOLD_MS = 1_000;

type AppendMessage = MessageInitShape<typeof AppendUploadRequestSchema>;

/**
 * tus 1.0 resumable uploads at /v1/uploads, over the service's UploadService:
 * the upload's state and lock live in the service's database, so any gateway
 * instance continues any upload. @tus/server was not used: it implements
 * neither the checksum nor the concatenation extension, and its locker and
 * stores assume state kept beside the gateway.
 */
export const uploadRoutes: FastifyPluginAsyncZod<UploadRoutesDeps> = async (app, deps) => {
  const { clients, log } = deps;
  const time = deps.time ?? systemTime;
  const now = (): number => time.now().getTime();
  acceptUnreadBodies(app);
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('tus-resumable', TUS_VERSION);
    done(null, payload);
  });

  const discovery = async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> =>
    reply
      .code(204)
      .headers({
        'tus-version': TUS_VERSION,
        'tus-extension': TUS_EXTENSIONS.join(','),
        'tus-max-size': String(deps.maxUploadBytes),
        'tus-checksum-algorithm': UPLOAD_CHECKSUM_ALGORITHMS.join(','),
      })
      .send();
  // Discovery needs no token: a CORS preflight cannot carry one, and the answer tells only what the protocol does.
  const discoveryOptions = { schema: { hide: true }, config: { cors: { preflightContinue: true } } };
  app.options(UPLOADS_PATH, discoveryOptions, discovery);
  app.options(`${UPLOADS_PATH}/:id`, discoveryOptions, discovery);

  app.post(UPLOADS_PATH, { schema: { hide: true } }, async (request, reply) => {
    requireTusVersion(request);
    const headers = request.headers;
    const length = parseSize(headerOf(headers, 'Upload-Length'), 'Upload-Length');
    const deferred = headerOf(headers, 'Upload-Defer-Length');
    if (deferred !== undefined && deferred !== '1') throw badHeader('Upload-Defer-Length', 'must be 1');
    const concat = parseConcat(headerOf(headers, 'Upload-Concat'), UPLOADS_PATH);
    const final = concat?.kind === 'final';
    if (!final && (length === undefined) === (deferred === undefined))
      throw badHeader('Upload-Length', 'send either Upload-Length or Upload-Defer-Length: 1');
    if (final && (length !== undefined || deferred !== undefined))
      throw badHeader('Upload-Length', 'a final concatenation has no length of its own');
    if (length !== undefined && length > deps.maxUploadBytes) throw tooLarge(deps.maxUploadBytes);
    const metadata = parseMetadata(headerOf(headers, 'Upload-Metadata'));
    // creation-with-upload: what is wrong with the bytes' headers is refused before the upload exists, not after.
    const withBytes = !final && hasBody(request);
    if (withBytes) requireOctetStream(request);
    const checksum = withBytes ? parseChecksum(headerOf(headers, 'Upload-Checksum')) : undefined;
    const ctx = contextOf(request, reply, log);
    let upload = await clients.uploads
      .createUpload(
        {
          length: length === undefined ? undefined : BigInt(length),
          filename: metadata.filename ?? '',
          label: metadata.label ?? '',
          visibility: metadata.visibility ?? '',
          replace: metadata.replace ?? '',
          partial: concat?.kind === 'partial',
          finalOf: final ? [...concat.ids] : [],
        },
        ctx.callOptions(),
      )
      .catch((error: unknown) => {
        throw toApiError(error, { bodyLimited: true });
      });
    const location = `${publicOrigin(request, deps.trustProxy)}${UPLOADS_PATH}/${upload.id}`;
    // creation-with-upload: the first bytes ride on the creating request.
    if (withBytes) {
      try {
        upload = await append(request, ctx, upload.id, 0n, undefined, checksum);
      } catch (error) {
        // The upload exists: the client can still resume it from its Location.
        if (!(error instanceof ApiError)) throw error;
        const { code, message, details, status, retryAfterSeconds, headers: extra } = error;
        throw new ApiError(code, message, details, { status, retryAfterSeconds, headers: { ...extra, location }, cause: error });
      }
    }
    if (isSettled(reply.raw)) return reply.hijack();
    return reply.code(201).header('location', location).headers(stateHeaders(upload, false)).send();
  });

  app.head(`${UPLOADS_PATH}/:id`, { schema: { hide: true } }, async (request, reply) => {
    requireTusVersion(request);
    const { id } = request.params as { id: string };
    const upload = await getUploadPatiently(id, contextOf(request, reply, log));
    const metadata = formatMetadata({
      filename: upload.filename,
      label: upload.label,
      visibility: upload.visibility,
      replace: upload.replace,
    });
    return reply
      .code(200)
      .headers({ 'cache-control': 'no-store', ...stateHeaders(upload, true), ...(metadata ? { 'upload-metadata': metadata } : {}) })
      .send();
  });

  app.patch(`${UPLOADS_PATH}/:id`, { schema: { hide: true } }, async (request, reply) => {
    requireTusVersion(request);
    requireOctetStream(request);
    const { id } = request.params as { id: string };
    const headers = request.headers;
    const offset = parseSize(headerOf(headers, 'Upload-Offset'), 'Upload-Offset');
    if (offset === undefined) throw badHeader('Upload-Offset', 'is required');
    const length = parseSize(headerOf(headers, 'Upload-Length'), 'Upload-Length');
    if (length !== undefined && length > deps.maxUploadBytes) throw tooLarge(deps.maxUploadBytes);
    const checksum = parseChecksum(headerOf(headers, 'Upload-Checksum'));
    const ctx = contextOf(request, reply, log);
    const upload = await append(request, ctx, id, BigInt(offset), length === undefined ? undefined : BigInt(length), checksum);
    if (isSettled(reply.raw)) return reply.hijack();
    return reply.code(204).headers(stateHeaders(upload, false)).send();
  });

  app.delete(`${UPLOADS_PATH}/:id`, { schema: { hide: true } }, async (request, reply) => {
    requireTusVersion(request);
    const { id } = request.params as { id: string };
    await clients.uploads.terminateUpload({ id }, contextOf(request, reply, log).callOptions()).catch((error: unknown) => {
      throw toApiError(error);
    });
    return reply.code(204).send();
  });

  /**
   * GetUpload, riding out a service restart: tus-js-client takes any HEAD
   * answer but 2xx and 423 as "the upload is gone" and starts over from byte
   * 0, so a 503 during a restart would throw away everything uploaded.
   */
  async function getUploadPatiently(id: string, ctx: RequestContext): Promise<Upload> {
    const deadline = now() + SERVICE_RESTART_WAIT_MS;
    for (;;) {
      try {
        return await clients.uploads.getUpload({ id }, ctx.callOptions());
      } catch (error) {
        const failure = toApiError(error);
        // Only the service being away is waited out; an upload busy with another request is answered (423) at once.
        const serviceAway = error instanceof ConnectError && error.code === Code.Unavailable && failure.status === 503;
        if (!serviceAway || now() >= deadline || ctx.lifetime.ended) throw failure;
        await sleep(time, SERVICE_RESTART_POLL_MS);
      }
    }
  }

  /** Streams the request body to the service as one append; its bytes are kept up to a dropped connection. */
  async function append(
    request: FastifyRequest,
    ctx: RequestContext,
    id: string,
    offset: bigint,
    length: bigint | undefined,
    checksum: ParsedChecksum | undefined,
  ): Promise<Upload> {
    const release = deps.uploadSlots.take();
    if (release === undefined) throw uploadsBusy(deps.uploadSlots);
    try {
      return await clients.uploads.appendUpload(
        appendMessages(request, id, offset, length, checksum, now),
        ctx.callOptions({ streaming: true }),
      );
    } catch (error) {
      throw toApiError(error, { bodyLimited: true });
    } finally {
      release();
    }
  }
};

async function* appendMessages(
  request: FastifyRequest,
  id: string,
  offset: bigint,
  length: bigint | undefined,
  checksum: ParsedChecksum | undefined,
  now: () => number,
): AsyncGenerator<AppendMessage> {
  yield {
    payload: {
      case: 'metadata',
      value: { id, offset, length, checksumAlgorithm: checksum?.algorithm ?? '', checksum: checksum?.digest ?? new Uint8Array() },
    },
  };
  for await (const chunk of coalesce(untilCut(request.raw as AsyncIterable<Uint8Array>), CHUNK_BYTES, { maxHoldMs: CHUNK_HOLD_MS, now }))
    yield { payload: { case: 'chunk', value: chunk } };
}

/**
 * The body's bytes until it ends or breaks off: a client that stalls (answered
 * 408 at BODY_IDLE_TIMEOUT_MS, its request destroyed) or goes away ends the
 * append with what arrived, as a shorter append, rather than failing it. A
 * failed append would lose the bytes still held for coalescing (up to 1 MiB)
 * and race the service's cancel against the bytes in flight; keeping what
 * arrived is the point of a resumable upload. With Upload-Checksum the
 * service then finds the digest wrong and keeps nothing, as it should.
 */
async function* untilCut(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    for await (const piece of body) yield piece;
  } catch {
    // The request broke off; what arrived is this append.
  }
}

/** The headers that tell a client where its upload stands. */
function stateHeaders(upload: Upload, withLength: boolean): Record<string, string> {
  const headers: Record<string, string> = { 'upload-offset': String(upload.offset) };
  if (withLength) {
    if (upload.length !== undefined) headers['upload-length'] = String(upload.length);
    else headers['upload-defer-length'] = '1';
    if (upload.partial) headers['upload-concat'] = 'partial';
  }
  if (upload.expiresAt && upload.assetId === '') headers['upload-expires'] = timestampDate(upload.expiresAt).toUTCString();
  if (upload.assetId !== '') headers[ASSET_ID_HEADER] = upload.assetId;
  return headers;
}

function requireTusVersion(request: FastifyRequest): void {
  const version = request.headers['tus-resumable'];
  if (version !== TUS_VERSION) {
    throw new ApiError(
      'failed_precondition',
      `Tus-Resumable: this server speaks tus ${TUS_VERSION}; send "Tus-Resumable: ${TUS_VERSION}"`,
      [{ field: 'Tus-Resumable', reason: `must be ${TUS_VERSION}` }],
      {
        status: 412,
        headers: { 'tus-version': TUS_VERSION },
      },
    );
  }
}

function requireOctetStream(request: FastifyRequest): void {
  const type = request.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase();
  if (type !== OFFSET_OCTET_STREAM) {
    throw new ApiError(
      'invalid_argument',
      `Content-Type: upload bytes are sent as ${OFFSET_OCTET_STREAM}`,
      [{ field: 'Content-Type', reason: `must be ${OFFSET_OCTET_STREAM}` }],
      { status: 415 },
    );
  }
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    'resource_exhausted',
    `Upload-Length: larger than this server's maximum of ${maxBytes} bytes`,
    [{ field: 'Upload-Length', reason: `larger than ${maxBytes} bytes` }],
    { status: 413 },
  );
}

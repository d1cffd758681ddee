// A resumable upload over UploadService: appends of `chunkBytes` at the
// committed offset, and after a failure for a passing reason, the offset asked
// again and the upload continued from there.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import type { AppendUploadRequestSchema, Asset, AssetService, Upload, UploadService } from '@switchyard/proto';
import { sleep, systemTime, type Timers } from '@switchyard/core/routes';
import type { ResumableSource, Stretch } from './resumable-source.js';
import { chunksOf } from './uploads.js';

/** Bytes per AppendUpload call unless told: what a failed call may have to send again. */
export const APPEND_BYTES = 8 * 1024 * 1024;
/** Failed calls in a row (without the upload moving on) before giving up, unless told. */
export const UPLOAD_RETRIES = 5;
const FIRST_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 8_000;
/** Trailer in which the service (and the gateway, relaying it) says how long to wait before asking again. */
const RETRY_AFTER_MS_KEY = 'switchyard-retry-after-ms';

/** What `resumableUpload` calls: a `SwitchyardClient` is one. */
export interface ResumableUploadClients {
  readonly uploads: Client<typeof UploadService>;
  readonly assets: Client<typeof AssetService>;
}

export interface ResumableUploadOptions {
  /** Label or category (at most 200 characters). Set when the upload is created: ignored with `uploadId`. */
  readonly label?: string;
  /** The asset's name (for a replace: its new name; none keeps it). Never its type: the service sniffs that from the bytes. */
  readonly filename?: string;
  /** Default: the workspace policy's (for a replace, the asset's own). */
  readonly visibility?: 'public' | 'private';
  /** An asset id: the finished upload replaces that asset's file, and the asset keeps its id. */
  readonly replace?: string;
  /**
   * An upload created earlier ("up_…"), perhaps by another process: it goes on
   * from the offset the service holds. `source` is still the whole file.
   */
  readonly uploadId?: string;
  /** Called once the upload exists, with its id: keep it to resume the upload later with `uploadId`. */
  readonly onUploadId?: (uploadId: string) => void;
  /** Bytes per AppendUpload call (default 8 MiB); a stream holds this much in memory. */
  readonly chunkBytes?: number;
  /** Failed calls in a row before giving up (default 5); each call that moves the upload on starts the count again. */
  readonly retries?: number;
  readonly signal?: AbortSignal;
  /** Where the waits between retries are scheduled (the system's timers by default; tests pass fake ones). */
  readonly timers?: Timers;
  /** Called when the service has committed more bytes; `totalBytes` is undefined while a stream's size is unknown. */
  readonly onProgress?: (committedBytes: number, totalBytes: number | undefined) => void;
}

/** The upload loop behind `resumableUpload`, for any source that can give stretches of the file. */
export async function uploadResumably(
  clients: ResumableUploadClients,
  source: ResumableSource,
  options: ResumableUploadOptions = {},
): Promise<Asset> {
  try {
    return await appendUntilDone(clients, source, options);
  } finally {
    await source.close();
  }
}

async function appendUntilDone(clients: ResumableUploadClients, source: ResumableSource, options: ResumableUploadOptions): Promise<Asset> {
  const { uploads, assets } = clients;
  const { signal } = options;
  const chunkBytes = options.chunkBytes ?? APPEND_BYTES;
  const retries = options.retries ?? UPLOAD_RETRIES;
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1) throw new RangeError('chunkBytes must be a positive integer');
  if (!Number.isSafeInteger(retries) || retries < 0) throw new RangeError('retries must be a whole number');

  const create = (): Promise<Upload> =>
    uploads.createUpload(
      {
        length: source.size === undefined ? undefined : BigInt(source.size),
        filename: options.filename ?? '',
        label: options.label ?? '',
        visibility: options.visibility ?? '',
        replace: options.replace ?? '',
      },
      { signal },
    );

  async function append(upload: Upload): Promise<Upload> {
    const offset = Number(upload.offset);
    const stretch = await source.read(offset, chunkBytes);
    if (upload.length !== undefined && stretch.total !== undefined && Number(upload.length) !== stretch.total) {
      throw new RangeError(`upload ${upload.id} is ${upload.length} bytes long, but the source is ${stretch.total}`);
    }
    // Declared once known, for an upload created without a length: the append that ends the file finishes it.
    const length = upload.length === undefined && stretch.total !== undefined ? BigInt(stretch.total) : undefined;
    const sent = { failure: undefined as unknown };
    try {
      return await uploads.appendUpload(appendMessages(upload.id, offset, length, stretch, sent), { signal, timeoutMs: 0 });
    } catch (error) {
      // A source that failed (a file that shrank, a stream error) is no passing trouble of the service's.
      throw sent.failure ?? error;
    }
  }

  let upload: Upload | undefined;
  let current = false; // whether `upload` is as the service last answered, or must be asked again
  let committed = -1;
  let failures = 0;
  for (;;) {
    try {
      if (upload === undefined) {
        upload = options.uploadId === undefined ? await create() : await uploads.getUpload({ id: options.uploadId }, { signal });
        options.onUploadId?.(upload.id);
      } else if (!current) {
        upload = await uploads.getUpload({ id: upload.id }, { signal });
      }
      current = true;
      if (Number(upload.offset) > committed) {
        committed = Number(upload.offset);
        failures = 0;
        options.onProgress?.(committed, upload.length === undefined ? source.size : Number(upload.length));
      }
      if (upload.assetId !== '') return await assets.getAsset({ id: upload.assetId }, { signal });
      current = false;
      upload = await append(upload);
      current = true;
    } catch (error) {
      if (signal?.aborted) throw ConnectError.from(signal.reason, Code.Canceled);
      const wait = retryDelay(error, failures);
      if (wait === undefined || failures >= retries) throw error;
      failures += 1;
      await sleep(options.timers ?? systemTime, wait, signal).catch(() => {
        throw ConnectError.from(signal?.reason, Code.Canceled);
      });
    }
  }
}

async function* appendMessages(
  id: string,
  offset: number,
  length: bigint | undefined,
  stretch: Stretch,
  sent: { failure: unknown },
): AsyncGenerator<MessageInitShape<typeof AppendUploadRequestSchema>> {
  yield { payload: { case: 'metadata', value: { id, offset: BigInt(offset), length } } };
  try {
    let bytes = 0;
    for await (const chunk of chunksOf(stretch.bytes)) {
      bytes += chunk.byteLength;
      yield { payload: { case: 'chunk', value: chunk } };
    }
    if (bytes !== stretch.size)
      throw new RangeError(
        `the source ended at byte ${offset + bytes}, before the ${offset + stretch.size} it was to reach (did the file shrink?)`,
      );
  } catch (error) {
    sent.failure = error;
    throw error;
  }
}

/**
 * How long to wait before trying again after `error`, or undefined when it is
 * for good. Passing: the service or the connection down or cut (unavailable,
 * aborted, canceled by the other end, unknown), a deadline, an offset
 * conflict (aborted), a busy upload (unavailable), and a rate limit
 * (resource_exhausted with a retry-after). For good: anything the request
 * itself is wrong for (invalid_argument, such as a type the workspace policy
 * refuses; not_found; permission_denied; unauthenticated; a size limit), an
 * internal error (the service's own fault, such as an upload that lost stored
 * bytes: asking again does not mend it), and any error not from the call (a
 * source that failed).
 */
function retryDelay(error: unknown, failures: number): number | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  const backoff = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** failures);
  const retryAfter = Number(error.metadata.get(RETRY_AFTER_MS_KEY) ?? Number.NaN);
  switch (error.code) {
    case Code.Unavailable:
    case Code.Aborted:
    case Code.Canceled:
    case Code.DeadlineExceeded:
    case Code.Unknown:
      return Number.isFinite(retryAfter) ? Math.max(backoff, retryAfter) : backoff;
    case Code.ResourceExhausted:
      return Number.isFinite(retryAfter) ? Math.max(backoff, retryAfter) : undefined;
    default:
      return undefined;
  }
}

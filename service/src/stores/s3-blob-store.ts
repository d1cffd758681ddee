import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  paginateListObjectsV2,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { SwitchyardError, assertBlobKey, type AbandonedWrites, type BlobInfo, type BlobStore, type ByteRange } from '@switchyard/core';
import { assertRange, emptyStream, isValidBlobKey } from './blob-support.js';
import { isMissingObject, isMissingUpload, isNotImplemented, isUnsatisfiableRange, s3Error } from './s3-errors.js';
import { DEFAULT_STORAGE_TIMEOUT_MS, type BlobStoreConfig } from './storage-config.js';

export type S3BlobStoreConfig = Extract<BlobStoreConfig, { kind: 's3' }>;

export interface S3BlobStoreOptions {
  /** Bytes per multipart part (S3's minimum, 5 MiB, by default). */
  readonly partSize?: number | undefined;
  /** Parts uploaded at once; with `partSize` this bounds the memory one upload holds. */
  readonly queueSize?: number | undefined;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;
/** Two parts in flight plus one being filled: about 15 MiB held per upload, whatever its size. */
const DEFAULT_QUEUE_SIZE = 2;

/**
 * How long a file being read may sit without a byte moving: its reader is a
 * client of ours that may pause for backpressure, so this is longer than the
 * store's timeout, which bounds the wait for the object's first byte.
 */
const READ_IDLE_TIMEOUT_MS = 60_000;

/**
 * The client as DESIGN.md prescribes for S3-compatible servers: no aws-chunked
 * bodies, checksums only when required. A silent endpoint (stalled network)
 * fails a request once its socket has been idle for `idleTimeoutMs`.
 */
export function createS3Client(config: S3BlobStoreConfig, idleTimeoutMs = config.timeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS): S3Client {
  const options: S3ClientConfig = {
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: config.timeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS, socketTimeout: idleTimeoutMs },
  };
  // Without explicit keys the SDK's default credential chain applies.
  if (config.credentials) options.credentials = { ...config.credentials };
  return new S3Client(options);
}

/**
 * BlobStore on an S3-compatible bucket. Puts stream through lib-storage's
 * multipart `Upload`, holding at most `queueSize` parts in memory; a body that
 * fails aborts the upload, so the key never shows partial bytes.
 */
export class S3BlobStore implements BlobStore {
  readonly bucket: string;
  readonly #client: S3Client;
  /** For GetObject, whose body streams at its reader's pace. */
  readonly #readClient: S3Client;
  readonly #timeoutMs: number;
  readonly #partSize: number;
  readonly #queueSize: number;

  constructor(config: S3BlobStoreConfig, options: S3BlobStoreOptions = {}) {
    this.bucket = config.bucket;
    this.#client = createS3Client(config);
    this.#timeoutMs = config.timeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS;
    this.#readClient = createS3Client(config, Math.max(this.#timeoutMs, READ_IDLE_TIMEOUT_MS));
    this.#partSize = Math.max(options.partSize ?? MIN_PART_SIZE, MIN_PART_SIZE);
    this.#queueSize = Math.max(options.queueSize ?? DEFAULT_QUEUE_SIZE, 1);
  }

  async put(key: string, body: Readable): Promise<void> {
    assertBlobKey(key);
    // Remember the body's own failure: the upload may report its abort instead, and callers need the cause.
    let bodyError: unknown;
    async function* chunks(): AsyncGenerator<Buffer | string> {
      try {
        for await (const chunk of body) yield chunk as Buffer | string;
      } catch (error) {
        bodyError = error;
        throw error;
      }
    }
    const source = Readable.from(chunks(), { objectMode: false });
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.bucket, Key: key, Body: source },
      partSize: this.#partSize,
      queueSize: this.#queueSize,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      source.destroy();
      body.destroy();
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the body's caught error, passed on as it came
      throw bodyError ?? s3Error(error);
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable | undefined> {
    assertBlobKey(key);
    if (range) assertRange(range);
    try {
      const command = new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range && `bytes=${range.start}-${range.end}` });
      // The answer must start within the store's timeout; after that the reader sets the pace.
      // (A timer, not AbortSignal.timeout: the SDK keeps listening during the body, which must not be cut.)
      const firstByte = new AbortController();
      const timer = setTimeout(
        () => firstByte.abort(new SwitchyardError('unavailable', 'blob storage did not answer in time')),
        this.#timeoutMs,
      );
      const { Body: body, ContentLength: length } = await this.#readClient
        .send(command, { abortSignal: firstByte.signal })
        .finally(() => clearTimeout(timer));
      if (!(body instanceof Readable)) throw new SwitchyardError('internal', 'S3 returned no byte stream');
      // Some S3-compatible servers (s3rver among them) answer `bytes=0-0` with the whole object.
      const wanted = range && range.end - range.start + 1;
      return wanted !== undefined && length !== undefined && length > wanted ? firstBytes(body, wanted) : body;
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      // The object exists but the range starts at or past its end (or it is empty).
      if (range && isUnsatisfiableRange(error)) return emptyStream();
      throw s3Error(error);
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    assertBlobKey(key);
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, size: head.ContentLength ?? 0, modifiedAt: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw s3Error(error);
    }
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isMissingObject(error)) throw s3Error(error);
    }
  }

  async *list(): AsyncIterable<BlobInfo> {
    try {
      for await (const page of paginateListObjectsV2({ client: this.#client }, { Bucket: this.bucket })) {
        for (const object of page.Contents ?? []) {
          // Skip what no store could have written (a shared bucket may hold other things).
          if (object.Key === undefined || !isValidBlobKey(object.Key)) continue;
          yield { key: object.Key, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) };
        }
      }
    } catch (error) {
      throw s3Error(error);
    }
  }

  /**
   * Multipart uploads that were never completed nor aborted: a put aborts its
   * own on any failure it lives to see, so what remains was cut short by a
   * crash, and its parts are stored (and billed) out of sight of `list`. Only
   * uploads initiated before `startedBefore` go. Servers without
   * ListMultipartUploads (s3rver among them) are told apart, not failed on: a
   * bucket lifecycle rule (AbortIncompleteMultipartUpload) does the job there.
   */
  async sweepAbandonedWrites(startedBefore: Date, options: { readonly dryRun: boolean }): Promise<AbandonedWrites> {
    const removed: string[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    try {
      for (;;) {
        const page = await this.#client.send(
          new ListMultipartUploadsCommand({ Bucket: this.bucket, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
        );
        for (const upload of page.Uploads ?? []) {
          const { Key: key, UploadId: uploadId, Initiated: initiated } = upload;
          // Only our keys, and only uploads surely older than any put in progress.
          if (key === undefined || uploadId === undefined || !isValidBlobKey(key)) continue;
          if (initiated === undefined || initiated.getTime() >= startedBefore.getTime()) continue;
          if (!options.dryRun) await this.#abortUpload(key, uploadId);
          removed.push(`${key} (multipart upload ${uploadId})`);
        }
        if (!page.IsTruncated) break;
        keyMarker = page.NextKeyMarker;
        uploadIdMarker = page.NextUploadIdMarker;
      }
    } catch (error) {
      if (isNotImplemented(error)) {
        return {
          removed,
          unsupported: `the S3 server cannot list unfinished multipart uploads (ListMultipartUploads); parts of uploads cut short by a crash stay until a bucket lifecycle rule (AbortIncompleteMultipartUpload) removes them`,
        };
      }
      throw s3Error(error);
    }
    return { removed };
  }

  async #abortUpload(key: string, uploadId: string): Promise<void> {
    try {
      await this.#client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }));
    } catch (error) {
      // Completed or aborted since it was listed: nothing left to remove.
      if (!isMissingUpload(error)) throw error;
    }
  }

  async check(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      throw new SwitchyardError('unavailable', `bucket ${this.bucket} is not reachable`, [], { cause: error });
    }
  }

  /** Releases the client's sockets. */
  close(): void {
    this.#client.destroy();
    this.#readClient.destroy();
  }
}

/** The first `count` bytes of `body`, which is released as soon as they have passed. */
function firstBytes(body: Readable, count: number): Readable {
  async function* take(): AsyncGenerator<Buffer> {
    let left = count;
    for await (const chunk of body) {
      const bytes = chunk as Buffer;
      if (bytes.length >= left) {
        yield bytes.subarray(0, left);
        return; // leaving the loop destroys the rest of the response
      }
      left -= bytes.length;
      yield bytes;
    }
  }
  return Readable.from(take(), { objectMode: false });
}

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { invalidArgument, SwitchyardError, toSwitchyardError } from '../errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import { ByteMeter, type AdmitHead } from './byte-meter.js';
import type { ByteSource } from './types.js';

export interface IngestOptions {
  /** Largest accepted body; one byte more fails the put with `resource_exhausted`. */
  readonly maxBytes: number;
  /** How many leading bytes to keep for sniffing. */
  readonly headBytes: number;
  /** Judges the head before any byte is stored; throwing refuses the file. */
  readonly admit?: AdmitHead | undefined;
}

export interface IngestResult {
  readonly size: number;
  /** Lower-case hex SHA-256 of all bytes. */
  readonly sha256: string;
  /** The first `headBytes` bytes (all of them for a smaller file). */
  readonly head: Uint8Array;
}

/**
 * Streams a body into the blob store under `key`, counting, hashing and
 * keeping its head on the way. Memory stays constant: chunks are pulled only
 * as fast as the store takes them. On any failure (too large, the body fails
 * or is cancelled, the store fails) nothing stays stored under `key` and the
 * error says why.
 */
export async function ingest(source: ByteSource, blobStore: BlobStore, key: string, options: IngestOptions): Promise<IngestResult> {
  if (!isByteSource(source)) throw invalidArgument('file', 'a file body is required');
  const meter = new ByteMeter(options.maxBytes, options.headBytes, createHash('sha256'), options.admit);
  const body = Readable.from(meter.pass(source), { objectMode: false });
  try {
    await blobStore.put(key, body);
  } catch (error) {
    body.destroy();
    await forget(blobStore, key);
    throw meter.failure ?? toSwitchyardError(error);
  }
  // A store that resolved without taking the whole body broke its contract: do not keep half a file.
  if (!meter.finished) {
    await forget(blobStore, key);
    throw meter.failure ?? new SwitchyardError('internal', 'the blob store stopped reading before the end of the file');
  }
  return meter.result();
}

/** All-or-nothing puts should leave nothing behind; deleting again costs little and covers stores that slip. */
export async function forget(blobStore: BlobStore, key: string): Promise<void> {
  await blobStore.delete(key).catch(() => undefined);
}

function isByteSource(source: unknown): source is ByteSource {
  return typeof (source as Partial<AsyncIterable<unknown>> | null | undefined)?.[Symbol.asyncIterator] === 'function';
}

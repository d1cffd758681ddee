import type { Readable } from 'node:stream';

/** An inclusive byte range, as in HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** What `sweepAbandonedWrites` found. */
export interface AbandonedWrites {
  /** What was removed (in a dry run: would be), named for an operator: a temp file, an upload id. */
  readonly removed: string[];
  /** Set when the store cannot look for abandoned writes at all, saying why and what to do instead. */
  readonly unsupported?: string | undefined;
}

/** Hints for one read; a store that has no use for them ignores them. */
export interface ReadOptions {
  /**
   * Bytes to read at a time, for a reader that takes the whole blob as fast as
   * it can (the finish of a resumable upload copying its parts) rather than a
   * response paced by its client. Stores reading local files use it as the
   * stream's chunk size instead of their default (64 KiB for the disk store).
   */
  readonly chunkBytes?: number | undefined;
}

export interface BlobInfo {
  readonly key: string;
  readonly size: number;
  readonly modifiedAt: Date;
}

/**
 * Storage for the bytes of assets.
 *
 * Keys are relative slash-separated paths of segments matching
 * `[A-Za-z0-9_-][A-Za-z0-9._-]*` (see `assertBlobKey`); a store refuses any
 * other key with `invalid_argument`, so no key can escape its root.
 *
 * Contract (checked by `blobStoreConformance` in `switchyard/testing`):
 * - `put` streams `body` to `key` with backpressure and is all-or-nothing: when
 *   `body` errors or is destroyed mid-way, `put` rejects with that error and
 *   nothing is readable under `key`. A completed put is durable.
 * - `get` streams the bytes (or an inclusive range of them) or returns
 *   `undefined` for an unknown key. A range past the end is clamped to the size.
 *   `options` are hints (`ReadOptions`): they change how a store reads, never
 *   which bytes come back.
 * - `stat` returns size and modification time, or `undefined`.
 * - `delete` is idempotent.
 * - `list` yields every stored blob (for garbage collection), in no set order.
 * - `check` resolves when the store answers (health checks).
 * - `sweepAbandonedWrites` (optional) removes what puts cut short by a crash
 *   left outside any key (temp files, unfinished multipart uploads) that were
 *   started before the given time; a put in progress is never that old.
 * - `localPath` (optional) names the file behind a blob, for readers that
 *   open files themselves.
 * - `writeAt` and `link` (optional, each on its own) let a resumable upload
 *   grow one blob append by append and then give it an asset's key, so its
 *   bytes are written once (see each method). A store without them gets one
 *   blob per append and a copy at the end.
 * - Infrastructure failures throw `SwitchyardError('unavailable')`.
 */
export interface BlobStore {
  put(key: string, body: Readable): Promise<void>;
  get(key: string, range?: ByteRange, options?: ReadOptions): Promise<Readable | undefined>;
  stat(key: string): Promise<BlobInfo | undefined>;
  delete(key: string): Promise<void>;
  list(): AsyncIterable<BlobInfo>;
  check(): Promise<void>;
  sweepAbandonedWrites?(startedBefore: Date, options: { readonly dryRun: boolean }): Promise<AbandonedWrites>;
  /**
   * Writes `body` into the blob `key` from byte `offset` on: the blob is first
   * cut to `offset` bytes (what an earlier write left past it goes), then the
   * body follows. Offset 0 creates the blob if need be; a blob shorter than
   * `offset`, or none, is `out_of_range` and left as it is. Resolves once every
   * byte is durable, and only then: no write of this call is still under way
   * once it settles. When `body` errors, rejects with that error; the blob then
   * holds its first `offset` bytes, perhaps followed by some of the body's,
   * which the next write at `offset` cuts away. Not atomic: one writer at a time.
   */
  writeAt?(key: string, offset: number, body: Readable): Promise<void>;
  /**
   * Makes the bytes of blob `from` readable under `to` as well (replacing what
   * was there, as `put` does), durably, without copying them where the store
   * can (a hard link). `from` stays. `to` never changes afterwards, whatever
   * is done to `from`: a store sharing storage between them refuses `writeAt`
   * on `from` (`aborted`). An unknown `from` is `not_found`, and `to` is left
   * as it was.
   */
  link?(from: string, to: string): Promise<void>;
  /**
   * Where blob `key`'s bytes can be read on this machine, for a native reader
   * that opens files itself (libvips decoding an image to transform it), or
   * `undefined` for an unknown key. Only a store of local files has it. The
   * file's bytes never change while the key exists (as for `get`); the reader
   * never writes it. A delete may remove it after the answer: a reader that
   * then cannot read it falls back to `get`, which says what is wrong.
   */
  localPath?(key: string): Promise<string | undefined>;
}

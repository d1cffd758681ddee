import { randomUUID } from 'node:crypto';
import { close, constants, createReadStream, createWriteStream, fstat, open as openCallback, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { access, copyFile, link, mkdir, open, opendir, rename, rm, rmdir, stat, unlink, utimes, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { withFreshChunks } from '@switchyard/runtime';
import {
  SwitchyardError,
  assertBlobKey,
  assertBlobOffset,
  blobTooShort,
  type AbandonedWrites,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
  type ReadOptions,
} from '@switchyard/core';
import { assertRange, emptyStream, isValidBlobKey } from './blob-support.js';

// Reads go through file descriptors and fs's callback API, not FileHandle,
// whose open, stat, createReadStream and close cost more CPU per file.
// Justified by file-serve-16kib (bench/hand-written-parts.md#file-descriptor-reads).
const openFd = promisify(openCallback);
const fstatFd = promisify(fstat);
const closeFd = promisify(close);

/** Bytes gathered before one `writeAt` write: as many syscalls as a put's write stream makes. */
const WRITE_BATCH_BYTES = 1024 * 1024;
/** ...or this many chunks, well under any system's limit of buffers per writev. */
const MAX_BATCH_CHUNKS = 512;
/** How many bytes `writeAt` writes between the syncs it starts in the background (see `writeAll`). */
const EARLY_SYNC_BYTES = 2 * 1024 * 1024;
/** Hard links are not on every file system (some network and FUSE mounts): there `link` copies. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EMLINK', 'ENOSYS']);
/** Where partial uploads live; keys cannot start with a dot, so no key can name it. */
const TEMP_FOLDER = '.tmp';
/** A concurrent delete may prune the folder between our mkdir and rename; try again a few times. */
const RENAME_ATTEMPTS = 3;
/** fs's chunk size for reads, right for serving: a `chunkBytes` hint can only raise it... */
const DEFAULT_READ_CHUNK_BYTES = 64 * 1024;
/** ...up to this: a hint must not let one stream hold a large buffer. */
const MAX_READ_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * BlobStore on a local folder. Each blob is one file at its key's path; a put
 * streams into a temporary file on the same file system, syncs it and renames
 * it into place, so a key shows either nothing, the old bytes or all new bytes.
 */
export class DiskBlobStore implements BlobStore {
  readonly root: string;
  readonly #tempDir: string;

  constructor(root: string) {
    this.root = resolve(root);
    this.#tempDir = join(this.root, TEMP_FOLDER);
  }

  async put(key: string, body: Readable): Promise<void> {
    const target = this.#pathOf(key);
    const temp = join(this.#tempDir, randomUUID());
    let bodyError: unknown;
    const noteBodyError = (error: unknown) => (bodyError ??= error);
    body.once('error', noteBodyError);
    let file: WriteStream | undefined;
    try {
      await mkdir(this.#tempDir, { recursive: true }).catch(fileSystemError);
      // `flush` fsyncs the file before the stream closes it, and pipeline waits for that close.
      file = createWriteStream(temp, { flags: 'wx', flush: true });
      await pipeline(body, file);
      await this.#moveIntoPlace(temp, target);
    } catch (error) {
      // A body that fails at once fails the pipeline while the file is still being opened; the open
      // would create the temp file after this removal. The destroyed stream closes once its open is done.
      if (file !== undefined && !file.closed) await once(file, 'close').catch(() => undefined);
      await rm(temp, { force: true }).catch(() => undefined);
      // The body's own failure is what the caller must see; a file-system failure is the store's, also when the
      // pipeline passed it on to the body (a full disk fails the file, and the file's error destroys the body).
      if (file?.errored) throw isSystemError(file.errored) ? fileSystemError(file.errored) : file.errored;
      throw bodyError ?? (isSystemError(error) ? fileSystemError(error) : error);
    } finally {
      body.off('error', noteBodyError);
    }
  }

  /**
   * Writes straight into the blob's file (no temp file: the bytes before
   * `offset` are the ones to keep), one awaited write after another, so when
   * this settles no write of it is left in flight to land after a later
   * writer's. Synced before it resolves; a new file's folder entry too.
   */
  async writeAt(key: string, offset: number, body: Readable): Promise<void> {
    const path = this.#pathOf(key);
    assertBlobOffset(offset);
    let bodyError: unknown;
    const noteBodyError = (error: unknown) => (bodyError ??= error);
    body.once('error', noteBodyError);
    let handle: FileHandle | undefined;
    try {
      const opened = await this.#openForWrite(key, path, offset);
      handle = opened.handle;
      await handle.truncate(offset);
      await writeAll(handle, body, offset);
      await handle.sync();
      if (opened.created) await syncFolder(dirname(path));
    } catch (error) {
      throw bodyError ?? (isSystemError(error) ? fileSystemError(error) : error);
    } finally {
      body.off('error', noteBodyError);
      await handle?.close().catch(() => undefined);
    }
  }

  /**
   * A hard link made in the temp folder and renamed into place, as a put's
   * temp file is: `to` shows its old bytes or all of `from`'s. The two names
   * share one file, which is why `writeAt` refuses a file with more than one.
   */
  async link(from: string, to: string): Promise<void> {
    const source = this.#pathOf(from);
    const target = this.#pathOf(to);
    const temp = join(this.#tempDir, randomUUID());
    try {
      await mkdir(this.#tempDir, { recursive: true }).catch(fileSystemError);
      await linkOrCopy(source, temp).catch(async (error: unknown) => {
        if ((await this.#absent(error)) === undefined) throw notFound(from);
      });
      // A link keeps the file's modification time, that of the upload's last write, perhaps hours ago: gc and the
      // sweep of abandoned writes spare only young files, and no record names this key until the caller inserts one.
      const linkedAt = new Date();
      await utimes(temp, linkedAt, linkedAt);
      await this.#moveIntoPlace(temp, target);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw isSystemError(error) ? fileSystemError(error) : error;
    }
  }

  async get(key: string, range?: ByteRange, options?: ReadOptions): Promise<Readable | undefined> {
    const path = this.#pathOf(key);
    if (range) assertRange(range);
    const fd = await openFd(path, 'r').catch((error: unknown) => this.#absent(error));
    if (fd === undefined) return undefined;
    try {
      const info = await fstatFd(fd);
      if (!info.isFile()) {
        await closeFd(fd);
        return undefined;
      }
      const start = range?.start ?? 0;
      const end = Math.min(range?.end ?? Infinity, info.size - 1);
      if (start > end) {
        await closeFd(fd);
        return emptyStream();
      }
      // The stream owns the descriptor from here and closes it when done or destroyed.
      // Every chunk fs reads is a buffer of its own (runtime's handed-over bytes).
      return withFreshChunks(createReadStream('', { fd, start, end, highWaterMark: readChunkBytes(options) }));
    } catch (error) {
      await closeFd(fd).catch(() => undefined);
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- fileSystemError throws; the throw shows the flow
      throw fileSystemError(error);
    }
  }

  async localPath(key: string): Promise<string | undefined> {
    return (await this.stat(key)) ? this.#pathOf(key) : undefined;
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const path = this.#pathOf(key);
    const info = await stat(path).catch((error: unknown) => this.#absent(error));
    return info?.isFile() ? { key, size: info.size, modifiedAt: info.mtime } : undefined;
  }

  async delete(key: string): Promise<void> {
    const path = this.#pathOf(key);
    try {
      await unlink(path);
    } catch (error) {
      return this.#absent(error);
    }
    await this.#pruneEmptyFolders(dirname(path));
  }

  async *list(): AsyncIterable<BlobInfo> {
    yield* this.#walk(this.root, '');
  }

  /**
   * Temp files of puts that never finished: a put removes its own on any
   * failure it lives to see, so what remains was cut short by a crash
   * (SIGKILL, power loss). Only files last written before `startedBefore` go:
   * a put in progress keeps writing to its file.
   */
  async sweepAbandonedWrites(startedBefore: Date, options: { readonly dryRun: boolean }): Promise<AbandonedWrites> {
    let entries;
    try {
      entries = await opendir(this.#tempDir);
    } catch (error) {
      if (isMissing(error)) return { removed: [] };
      return fileSystemError(error);
    }
    const removed: string[] = [];
    for await (const entry of entries) {
      const path = join(this.#tempDir, entry.name);
      const info = await stat(path).catch((error: unknown) => (isMissing(error) ? undefined : fileSystemError(error)));
      if (!info?.isFile() || info.mtime.getTime() >= startedBefore.getTime()) continue;
      if (!options.dryRun) await rm(path, { force: true }).catch(fileSystemError);
      removed.push(`${TEMP_FOLDER}/${entry.name}`);
    }
    return { removed };
  }

  async check(): Promise<void> {
    try {
      await mkdir(this.root, { recursive: true });
      await access(this.root, constants.R_OK | constants.W_OK | constants.X_OK);
    } catch (error) {
      throw new SwitchyardError('unavailable', 'blob folder is not accessible', [], { cause: error });
    }
  }

  /**
   * For an error saying "no such file": nothing is stored there, unless the
   * root itself is unusable (replaced by a file, unmounted), which is `unavailable`.
   */
  async #absent(error: unknown): Promise<undefined> {
    if (!isMissing(error)) fileSystemError(error);
    const root = await stat(this.root).catch((rootError: unknown) => (isMissing(rootError) ? undefined : fileSystemError(rootError)));
    if (root && !root.isDirectory()) fileSystemError(error);
    return undefined;
  }

  /** Opens the blob's file to write at `offset`: created at 0 if need be; refused if shorter, or shared by a link. */
  async #openForWrite(key: string, path: string, offset: number): Promise<{ handle: FileHandle; created: boolean }> {
    let created = false;
    let handle = await open(path, 'r+').catch((error: unknown) => this.#absent(error));
    for (let attempt = 1; handle === undefined && offset === 0; attempt++) {
      await mkdir(dirname(path), { recursive: true });
      // `wx`: should another writer create it meanwhile, fail rather than share the file unknowingly. A concurrent
      // delete may prune the folder between the mkdir and the open: try again a few times.
      handle = await open(path, 'wx').catch((error: unknown) =>
        isMissing(error) && attempt < RENAME_ATTEMPTS ? undefined : Promise.reject(error),
      );
      created = true;
    }
    if (handle === undefined) throw blobTooShort(key, offset);
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size < offset) throw blobTooShort(key, offset);
      if (info.nlink > 1)
        throw new SwitchyardError('aborted', `blob ${key} is linked to another key and cannot change`, [
          { field: 'key', reason: 'linked' },
        ]);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    return { handle, created };
  }

  /** The key's absolute path; the prefix check backs up `assertBlobKey` should either ever change. */
  #pathOf(key: string): string {
    const path = resolve(this.root, ...assertBlobKey(key).split('/'));
    if (!path.startsWith(this.root + sep))
      throw new SwitchyardError('invalid_argument', 'invalid blob key', [{ field: 'key', reason: 'escapes the store' }]);
    return path;
  }

  async #moveIntoPlace(temp: string, target: string): Promise<void> {
    const folder = dirname(target);
    for (let attempt = 1; ; attempt++) {
      await mkdir(folder, { recursive: true });
      try {
        await rename(temp, target);
        break;
      } catch (error) {
        if (!isMissing(error) || attempt >= RENAME_ATTEMPTS) throw error;
      }
    }
    // The rename is durable only once the folder's entry is on disk.
    await syncFolder(folder);
  }

  /** Removes now-empty folders up to (not including) the root; stops at the first that still holds something. */
  async #pruneEmptyFolders(folder: string): Promise<void> {
    while (folder.startsWith(this.root + sep)) {
      try {
        await rmdir(folder);
      } catch {
        return;
      }
      folder = dirname(folder);
    }
  }

  async *#walk(folder: string, prefix: string): AsyncGenerator<BlobInfo> {
    let entries;
    try {
      entries = await opendir(folder);
    } catch (error) {
      // A sub-folder may be pruned while we walk; the root may not exist yet.
      if (folder !== this.root && isMissing(error)) return;
      return this.#absent(error);
    }
    for await (const entry of entries) {
      if (entry.name.startsWith('.')) continue; // the temp folder, and nothing a key could name
      const key = prefix + entry.name;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        yield* this.#walk(path, `${key}/`);
      } else if (entry.isFile()) {
        const info = await stat(path).catch((error: unknown) => (isMissing(error) ? undefined : fileSystemError(error)));
        if (info && isValidBlobKey(key)) yield { key, size: info.size, modifiedAt: info.mtime };
      }
    }
  }
}

/**
 * fs's default (64 KiB) suits serving, where a client paces the stream. A
 * reader that copies a whole blob asks for larger reads: finishing a 256 MiB
 * tus upload read its parts in 4,096 reads of 64 KiB, each a thread-pool round
 * trip and a chunk through three stream stages; at 1 MiB it takes 256.
 */
function readChunkBytes(options: ReadOptions | undefined): number | undefined {
  const bytes = options?.chunkBytes;
  if (bytes === undefined || !Number.isSafeInteger(bytes) || bytes <= DEFAULT_READ_CHUNK_BYTES) return undefined;
  return Math.min(bytes, MAX_READ_CHUNK_BYTES);
}

/**
 * The body's bytes from `position` on, gathered into batches; each batch's
 * write is awaited before the next starts. Every EARLY_SYNC_BYTES a sync is
 * started without waiting for it, so the disk takes the bytes while more
 * arrive and the caller's final sync has only the last ones left; it is
 * awaited, and its failure thrown, before this returns.
 * Justified by tus-upload-throughput-256mib (bench/hand-written-parts.md#early-syncs).
 */
async function writeAll(handle: FileHandle, body: Readable, position: number): Promise<void> {
  let batch: Buffer[] = [];
  let batchBytes = 0;
  let unsynced = 0;
  let syncing: Promise<void> | undefined;
  let syncFailure: unknown;
  const flush = async () => {
    let written = 0;
    while (written < batchBytes) {
      const buffers = written === 0 ? batch : [Buffer.concat(batch).subarray(written)];
      written += (await handle.writev(buffers, position + written)).bytesWritten;
    }
    position += batchBytes;
    unsynced += batchBytes;
    batch = [];
    batchBytes = 0;
    if (unsynced >= EARLY_SYNC_BYTES && syncing === undefined) {
      unsynced = 0;
      syncing = handle
        .sync()
        .catch((error: unknown) => {
          syncFailure ??= error;
        })
        .finally(() => {
          syncing = undefined;
        });
    }
  };
  try {
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      batch.push(bytes);
      batchBytes += bytes.length;
      if (batchBytes >= WRITE_BATCH_BYTES || batch.length >= MAX_BATCH_CHUNKS) await flush();
    }
    await flush();
  } finally {
    await syncing;
  }
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- a caught error, passed on as it came
  if (syncFailure !== undefined) throw syncFailure;
}

/** A hard link, or where the file system has none a copy (a clone where it can), synced: either way durable. */
async function linkOrCopy(source: string, target: string): Promise<void> {
  try {
    await link(source, target);
    return;
  } catch (error) {
    if (!NO_HARD_LINKS.has((error as { code?: string }).code ?? '')) throw error;
  }
  await copyFile(source, target, constants.COPYFILE_FICLONE);
  const handle = await open(target, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function notFound(key: string): SwitchyardError {
  return new SwitchyardError('not_found', `blob ${key} not found`, [{ field: 'key', reason: 'no such blob' }]);
}

/** A key names nothing there (or names a folder, which is no blob). */
function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

/** Full disks, lost mounts and permissions are the store being unavailable, not the caller's fault. */
function fileSystemError(error: unknown): never {
  throw new SwitchyardError('unavailable', 'blob storage unavailable', [], { cause: error });
}

function isSystemError(error: unknown): boolean {
  return typeof (error as { syscall?: unknown } | null)?.syscall === 'string';
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

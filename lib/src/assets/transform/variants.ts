import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SwitchyardError } from '../../errors.js';
import { fileNotFound } from '../asset-errors.js';
import type { AssetRecord } from '../../ports/asset-store.js';
import { assertBlobKey } from '../../ports/blob-key.js';
import type { BlobInfo, BlobStore } from '../../ports/blob-store.js';
import { outputFormat, tooManyPixels, transformImage, TRANSFORMABLE_TYPES, TYPE_OF_FORMAT } from './transform-image.js';
import { canonicalTransform, type ImageTransform, type TransformFormat } from './transform-params.js';
import type { Timers } from '../../clock.js';
import { DEFAULT_POSTER_FRAMES, extractFrame, framesUnavailable, type FrameRunner, type PosterFrameConfig } from './poster-frame.js';

export interface TransformConfig {
  /** Widths and heights allowed (TRANSFORM_SIZES). */
  readonly sizes: readonly number[];
  /** Sources with more pixels are refused (TRANSFORM_MAX_PIXELS). */
  readonly maxPixels: number;
  /** Transformations running at once (TRANSFORM_CONCURRENCY). */
  readonly concurrency: number;
  /** Transformations waiting for a slot; one more is refused with `unavailable` and a retry hint. */
  readonly queue: number;
}

/** How a transformation's work ended: made, refused by its source (undecodable, over the pixel limit), or failed otherwise (the blob store). */
export type TransformOutcome = 'ok' | 'invalid' | 'error';

/**
 * What a VariantMaker tells its embedder, for metrics: the core knows no
 * metrics library, the service counts. Each is called synchronously and must
 * not throw.
 */
export interface TransformObserver {
  /** Transformations waiting for a slot and running, after either changed. */
  readonly queue?: ((waiting: number, running: number) => void) | undefined;
  /** One transformation's work ended: the seconds it held its slot (reading the source, decoding, resizing, encoding). */
  readonly worked?: ((format: TransformFormat, outcome: TransformOutcome, seconds: number) => void) | undefined;
  /** One transformation refused because every slot was busy and the queue full. */
  readonly refused?: (() => void) | undefined;
}

/**
 * A source read through the store (one without `localPath`) is read whole, in
 * chunks this large where the store honours the hint: a 12 MP JPEG (about 4 MB)
 * in one read instead of 60 reads of 64 KiB and a copy, so half the bytes
 * outside V8's heap per miss and fewer major collections.
 * Justified by transform-miss (bench/hand-written-parts.md#source-read-size).
 */
const SOURCE_READ_BYTES = 4 * 1024 * 1024;

/** Variants a VariantMaker remembers (about 300 bytes each). */
const KNOWN_VARIANTS = 10_000;

/** Where a variant's bytes live: beside its source blob, so they go with it and never outlive what they were made of. */
const VARIANT_SEGMENT = '.variants/';

export function variantKeyFor(sourceKey: string, canonical: string): string {
  return assertBlobKey(`${sourceKey}${VARIANT_SEGMENT}${createHash('sha256').update(canonical).digest('hex').slice(0, 32)}`);
}

/** The source blob key of a variant key, or `undefined` for a key that is not a variant's. */
export function sourceOfVariantKey(key: string): string | undefined {
  const at = key.lastIndexOf(VARIANT_SEGMENT);
  return at > 0 && !key.slice(at + VARIANT_SEGMENT.length).includes('/') ? key.slice(0, at) : undefined;
}

export interface Variant {
  readonly key: string;
  readonly type: string;
  readonly info: BlobInfo;
  /** A hex digest naming the variant (source content and transform): its ETag. */
  readonly digest: string;
}

/**
 * Makes and finds the variants of images. A variant is stored once in the
 * blob store, keyed by its source blob and canonical parameters, so later
 * requests (on any instance) are plain reads; concurrent requests for one new
 * variant in this process share its making. At most `concurrency` are made at
 * once and `queue` wait; beyond that the answer is `unavailable` with a retry
 * hint, before any work is done.
 */
export class VariantMaker {
  readonly #blobs: BlobStore;
  readonly #config: TransformConfig;
  readonly #making = new Map<string, Promise<void>>();
  /**
   * Variants found or made, by source blob and canonical parameters: a
   * repeated request then costs no stat and no hashing (`npm run bench
   * transform-hit`). A variant never changes (its key names its source blob,
   * which never changes either), so an entry is never stale, only possibly
   * gone: see forget(). At most KNOWN_VARIANTS, the oldest make room.
   */
  readonly #known = new Map<string, Variant>();
  readonly #waiting: (() => void)[] = [];
  readonly #observer: TransformObserver;
  readonly #frames: PosterFrameConfig;
  readonly #runner: FrameRunner;
  #running = 0;

  constructor(
    blobs: BlobStore,
    config: TransformConfig,
    observer: TransformObserver = {},
    frames: PosterFrameConfig = DEFAULT_POSTER_FRAMES,
    /** The timers of ffmpeg's deadline (the system's by default). */
    timers?: Timers,
  ) {
    this.#blobs = blobs;
    this.#config = config;
    this.#observer = observer;
    this.#frames = frames;
    this.#runner = { timers };
  }

  get config(): TransformConfig {
    return this.#config;
  }

  async variant(record: AssetRecord, transform: ImageTransform): Promise<Variant> {
    const format = outputFormat(transform, record.type);
    const canonical = canonicalTransform(transform, format);
    const known = this.#known.get(`${record.blobKey}\n${canonical}`);
    if (known !== undefined) return known;
    if (transform.frameMs !== undefined) this.#checkFrame(record, transform.frameMs);
    else if (!TRANSFORMABLE_TYPES.has(record.type)) {
      const hint = record.type.startsWith('video/') ? ' (a video takes them with ?frame, for a poster)' : '';
      throw new SwitchyardError(
        'invalid_argument',
        `files of type ${record.type} are not transformed; leave out w, h, fit, format and q${hint}`,
        [{ field: 'w', reason: `not a transformable image (${record.type})` }],
      );
    }
    // The recorded size is the shown size of the first frame; the pixel limit also holds per frame inside sharp.
    if (record.width !== undefined && record.height !== undefined && record.width * record.height > this.#config.maxPixels)
      throw tooManyPixels(this.#config.maxPixels);
    const key = variantKeyFor(record.blobKey, canonical);
    const digest = createHash('sha256').update(`${record.sha256}\n${canonical}`).digest('hex');
    let info = await this.#blobs.stat(key);
    if (info === undefined) {
      await this.#makeOnce(key, () => this.#make(record, transform, format, key));
      info = await this.#blobs.stat(key);
      if (info === undefined)
        throw new SwitchyardError('unavailable', 'the transformed image was made but cannot be read back yet; try again');
    }
    const variant: Variant = Object.freeze({ key, type: TYPE_OF_FORMAT[format], info, digest });
    this.#remember(`${record.blobKey}\n${canonical}`, variant);
    return variant;
  }

  /** A poster frame needs a video, ffmpeg, and (where the length is known) a time inside it. */
  #checkFrame(record: AssetRecord, frameMs: number): void {
    if (!record.type.startsWith('video/')) {
      throw new SwitchyardError('invalid_argument', `files of type ${record.type} have no frames; ?frame is for videos`, [
        { field: 'frame', reason: `not a video (${record.type})` },
      ]);
    }
    if (this.#frames.ffmpegPath === undefined) throw framesUnavailable();
    if (record.durationMs !== undefined && record.durationMs > 0 && frameMs >= record.durationMs) {
      throw new SwitchyardError('invalid_argument', `frame: the video is ${record.durationMs} ms long`, [
        { field: 'frame', reason: `past the end of the video (${record.durationMs} ms)` },
      ]);
    }
  }

  /** A variant found missing when read (removed behind this process's back): the next request looks for it, or makes it, again. */
  forget(variant: Variant): void {
    for (const [cacheKey, known] of this.#known) if (known.key === variant.key) this.#known.delete(cacheKey);
  }

  #remember(cacheKey: string, variant: Variant): void {
    if (this.#known.size >= KNOWN_VARIANTS) this.#known.delete(this.#known.keys().next().value!);
    this.#known.set(cacheKey, variant);
  }

  #makeOnce(key: string, make: () => Promise<void>): Promise<void> {
    let making = this.#making.get(key);
    if (making === undefined) {
      making = make().finally(() => this.#making.delete(key));
      this.#making.set(key, making);
    }
    return making;
  }

  async #make(record: AssetRecord, transform: ImageTransform, format: TransformFormat, key: string): Promise<void> {
    const release = await this.#slot();
    const started = performance.now();
    let output: Buffer;
    try {
      output = await this.#transform(record, transform, format);
      this.#observer.worked?.(format, 'ok', (performance.now() - started) / 1000);
    } catch (error) {
      this.#observer.worked?.(
        format,
        error instanceof SwitchyardError && error.code === 'invalid_argument' ? 'invalid' : 'error',
        (performance.now() - started) / 1000,
      );
      throw error;
    } finally {
      release();
    }
    // Stored outside the slot, so a slow blob store does not hold the CPU slots idle. What waits here is the
    // encoded output only (a 512 px WebP is tens of KiB, against the tens of MiB a decoded 12 MP source takes in the slot).
    await this.#blobs.put(key, Readable.from([output], { objectMode: false }));
  }

  /**
   * Where the store has local files, libvips reads the source from its path,
   * so no copy of it lands in this process's heap.
   * Justified by transform-miss (bench/hand-written-parts.md#source-from-path).
   * libvips reports any failure to read a file (removed meanwhile, unreadable) as an
   * image it cannot decode; then the bytes are read through the store, which
   * says what went wrong (`not_found`, `unavailable`), and decoded from memory.
   */
  async #transform(record: AssetRecord, transform: ImageTransform, format: TransformFormat): Promise<Buffer> {
    const limits = { maxPixels: this.#config.maxPixels };
    if (transform.frameMs !== undefined) return transformImage(await this.#frame(record, transform.frameMs), transform, format, limits);
    const path = await this.#blobs.localPath?.(record.blobKey);
    if (path !== undefined) {
      try {
        return await transformImage(path, transform, format, limits);
      } catch (error) {
        if (!(error instanceof SwitchyardError && error.code === 'invalid_argument')) throw error;
      }
    }
    const body = await this.#blobs.get(record.blobKey, undefined, { chunkBytes: SOURCE_READ_BYTES });
    if (body === undefined) throw fileNotFound();
    return transformImage(await readAll(body), transform, format, limits);
  }

  /**
   * The frame as ffmpeg writes it, read from the stored file: where the store
   * has local files, ffmpeg opens it itself; else the blob is copied to a
   * temporary file first (ffmpeg seeks, which a pipe would not let it do in an
   * MP4 whose index is at the end), removed after.
   */
  async #frame(record: AssetRecord, frameMs: number): Promise<Buffer> {
    const path = await this.#blobs.localPath?.(record.blobKey);
    if (path !== undefined) return extractFrame(this.#frames, path, frameMs, this.#runner);
    const body = await this.#blobs.get(record.blobKey, undefined, { chunkBytes: SOURCE_READ_BYTES });
    if (body === undefined) throw fileNotFound();
    const dir = await mkdtemp(join(tmpdir(), 'switchyard-frame-'));
    try {
      const copy = join(dir, 'video');
      await pipeline(body, createWriteStream(copy));
      return await extractFrame(this.#frames, copy, frameMs, this.#runner);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** A running slot, after waiting in the queue if need be; refused when the queue is full. */
  async #slot(): Promise<() => void> {
    if (this.#running >= this.#config.concurrency) {
      if (this.#waiting.length >= this.#config.queue) {
        this.#observer.refused?.();
        throw new SwitchyardError(
          'unavailable',
          `${this.#config.concurrency} image transformations or poster frames are running and ${this.#config.queue} waiting (TRANSFORM_CONCURRENCY); try again shortly`,
          [],
          { retryAfterMs: 1_000 },
        );
      }
      const turn = new Promise<void>((resolve) => this.#waiting.push(resolve));
      this.#observer.queue?.(this.#waiting.length, this.#running);
      await turn;
    } else {
      this.#running += 1;
      this.#observer.queue?.(this.#waiting.length, this.#running);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next in line.
      if (next) next();
      else this.#running -= 1;
      this.#observer.queue?.(this.#waiting.length, this.#running);
    };
  }
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  // A source read in one chunk (most photos, by SOURCE_READ_BYTES) is not copied again.
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

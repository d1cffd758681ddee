import { availableParallelism } from 'node:os';
import type { TimeSource } from '../../clock.js';
import type { BlobStore } from '../../ports/blob-store.js';
import { imageSize } from '../image-size.js';
import { MEDIA_FACTS_VERSION, saneFacts, type MediaFacts, type StoredFacts } from './media-facts.js';
import { imagePlaceholder } from './placeholder.js';
import { ProbePool, type ProbeCost, type ProbeLimits, type ProbeOutcome } from './probe-pool.js';
import { probeKindOf, type ProbeKind } from './probe-protocol.js';

/** Bounds of reading media facts; every field optional in `createSwitchyard({ mediaFacts })`. */
export interface MediaFactsConfig extends ProbeLimits {
  /** Images over this many pixels get no placeholder (TRANSFORM_MAX_PIXELS). */
  readonly maxPixels: number;
}

export const DEFAULT_MEDIA_FACTS: Omit<MediaFactsConfig, 'maxPixels'> = Object.freeze({
  maxBytes: 32 * 1024 * 1024,
  timeoutMs: 5_000,
  workers: Math.max(1, Math.min(2, availableParallelism())),
  queue: 256,
  heapMb: 128,
});

/** Raster images that get a placeholder (SVG is not rendered). */
const PLACEHOLDER_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/tiff']);

/** A stored file to describe: where it is, what it is, and the head kept while it streamed in. */
export interface StoredFileRef {
  readonly key: string;
  readonly type: string;
  readonly size: number;
  readonly head: Uint8Array;
}

/** What the describer tells of each file it parsed (for tests and metrics): the parser, how it ended, what it cost. */
export type DescribeObserver = (kind: ProbeKind | 'image', outcome: ProbeOutcome, cost: ProbeCost) => void;

/**
 * Reads what an uploaded file's content says about it: an image's size (from
 * its head) and ThumbHash placeholder; a video's size and duration; an audio
 * file's duration; a PDF's page count. Parsers run in worker threads within
 * bounds of bytes and time (probe-pool.ts). Never throws: a file it cannot
 * read gets no facts, and is stored all the same.
 */
export class MediaDescriber {
  readonly #blobs: BlobStore;
  readonly #config: MediaFactsConfig;
  readonly #pool: ProbePool;
  readonly #observer: DescribeObserver | undefined;

  /** `time`: the parsers' deadlines and their workers' idle time (the system's by default). */
  constructor(blobs: BlobStore, config: MediaFactsConfig, observer?: DescribeObserver, time?: TimeSource) {
    this.#blobs = blobs;
    this.#config = config;
    this.#pool = new ProbePool(config, { time });
    this.#observer = observer;
  }

  /**
   * The facts of a stored file, with the describer's version; version 0 when
   * it was not looked at (every parser busy), so a backfill takes it up.
   */
  async describe(file: StoredFileRef, known: MediaFacts = {}): Promise<StoredFacts> {
    try {
      const kind = probeKindOf(file.type);
      if (kind !== undefined) {
        const { outcome, cost } = await this.#pool.probe(
          { kind, type: file.type, size: file.size, head: file.head },
          this.#blobs,
          file.key,
        );
        this.#observer?.(kind, outcome, cost);
        if (outcome.kind === 'busy') return { factsVersion: 0 };
        return { ...saneFacts(outcome.kind === 'ok' ? outcome.facts : {}), factsVersion: MEDIA_FACTS_VERSION };
      }
      if (file.type.startsWith('image/')) return { ...(await this.#image(file, known)), factsVersion: MEDIA_FACTS_VERSION };
    } catch {
      // Nothing here turns an accepted upload into an error.
    }
    return { factsVersion: MEDIA_FACTS_VERSION };
  }

  /** Ends the parsers' workers. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  async #image(file: StoredFileRef, known: MediaFacts): Promise<MediaFacts> {
    const size =
      known.width !== undefined && known.height !== undefined
        ? { width: known.width, height: known.height }
        : await imageSize(file.type, file.head);
    if (!PLACEHOLDER_TYPES.has(file.type) || file.size > this.#config.maxBytes || file.size === 0) return saneFacts({ ...size });
    const started = performance.now();
    let placeholder: string | undefined;
    let read = 0;
    try {
      const path = await this.#blobs.localPath?.(file.key);
      const source = path ?? (await this.#blobs.get(file.key));
      read = path === undefined ? file.size : 0;
      placeholder =
        source === undefined
          ? undefined
          : await imagePlaceholder(source, { maxPixels: this.#config.maxPixels, timeoutMs: this.#config.timeoutMs });
    } catch {
      // The store failed: the size from the head stands alone.
    }
    this.#observer?.(
      'image',
      placeholder === undefined ? { kind: 'failed', reason: 'no placeholder' } : { kind: 'ok', facts: { placeholder } },
      { ms: performance.now() - started, bytesRead: read },
    );
    return saneFacts({ ...size, placeholder });
  }
}

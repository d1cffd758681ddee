import { LRUCache } from 'lru-cache';
import type { Clock } from '@switchyard/core';
import type { Validators } from './conditional.js';

/** What the gateway learns of a file from the service's ReadFile info. */
export interface FileMeta extends Validators {
  readonly type: string;
  readonly size: number;
  readonly visibility: string;
  /** The name to save the file as. */
  readonly name: string;
}

/** How many assets' validators are kept, and for how long at most; how many bytes of small files. */
export interface ValidatorCacheConfig {
  /** Assets kept (least recently used out first); 0: no cache. */
  readonly maxAssets: number;
  /**
   * The longest an entry is believed while a change may go unheard (no feed,
   * the feed lost, a message lost); 0: no cache. Not applied while every
   * change is heard at once (`coverage` 'complete').
   */
  readonly ttlMs: number;
  /** Bytes of small public files kept, to answer a GET from memory while changes are heard (0: none); 32 MiB by default. */
  readonly maxBytes?: number | undefined;
  /** Files larger than this are always read from the service; 256 KiB by default. */
  readonly maxFileBytes?: number | undefined;
}

/**
 * 5 s: a public file's answer says `public, max-age=31536000, immutable`, so any
 * cache on the way may keep the bytes themselves for a year without asking; a
 * 304 at most 5 s late after a delete or replace made through another gateway
 * (or the service's gRPC port) tells a client less than that header already let it keep.
 */
export const DEFAULT_VALIDATOR_CACHE: ValidatorCacheConfig = Object.freeze({ maxAssets: 10_000, ttlMs: 5_000 });

/** Half the service's file cache (lib/src/assets/file-cache.ts): the all-in-one process holds both. */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
/** The service's file cache's own bound on a small file. */
const DEFAULT_MAX_FILE_BYTES = 256 * 1024;

/** Assets whose last change is remembered, so a lookup of another asset begun before it may still store its answer. */
const MAX_REMEMBERED_CHANGES = 10_000;

/** Variants (transform parameters, `format=auto`'s choice) kept per asset; more empties the asset's set. */
const MAX_VARIANTS_PER_ASSET = 32;

/**
 * How much of the asset changes this gateway hears:
 * - `partial`: those it relays itself, at once; others' within the TTL
 *   (no EVENTS_URL, or its feed is down). Only 304s come from the cache.
 * - `feed`: every instance's, from the broker of EVENTS_URL while its
 *   subscription holds. GETs, HEADs, ranges and 304s come from the cache;
 *   the TTL still bounds a message that never came (a service killed between
 *   its commit and its publish).
 * - `complete`: every change, at once, from the service in this process, the
 *   only one writing its database (SQLite). No TTL.
 */
export type ChangeCoverage = 'partial' | 'feed' | 'complete';

/**
 * The validators of public files this gateway read lately and, while it hears
 * of every change (`coverage` other than 'partial'), the bytes of the small
 * ones, so a revalidation answered 304, and then a GET, HEAD or range, skips
 * the service call (the asset and blob lookup in SQLite, the in-process or
 * gRPC call around it). Written for speed: justified by peer-file-serve-304
 * and peer-file-serve-16kib (bench/hand-written-parts.md#validator-cache).
 *
 * Only public files (a private one's signature, expiry and revocation are the
 * service's to check on every request). Entries are grouped by asset id; every
 * change heard drops its asset's group, and a lookup that began before a change
 * to its asset (or before a change to unknown assets) never stores what it read. A group expires `ttlMs` after its first entry,
 * whatever was added to it since (alive at exactly `ttlMs`, gone a millisecond
 * later), unless coverage is 'complete'. A change of coverage empties the cache.
 *
 * Bytes are kept apart, by asset, path, query and chosen format: the path names
 * the blob (a replace writes a new one) and a variant's bytes follow from its
 * blob and parameters, so bytes under one key never change; they are used only
 * with a group entry of the same size, which carries every change.
 */
export class ValidatorCache {
  readonly #assets: LRUCache<string, Map<string, FileMeta>> | undefined;
  readonly #bytes: LRUCache<string, Buffer> | undefined;
  readonly #maxFileBytes: number;
  /** Counts changes seen: each lookup begins at a count (`begin`). */
  #changes = 0;
  /** A lookup begun at a count below this stores nothing: a clear, or a change no longer remembered, came after it. */
  #floor = 0;
  /** The count at each remembered asset's last change (oldest first): a lookup of it begun before stores nothing. */
  readonly #changedAt = new Map<string, number>();
  #coverage: ChangeCoverage = 'partial';

  /**
   * Ages are read from `clock` when one is given (tests move it between two
   * calls, so it is read at every check); without one, from lru-cache's own
   * monotonic clock, read at most once a millisecond.
   */
  constructor(config: ValidatorCacheConfig = DEFAULT_VALIDATOR_CACHE, clock?: Clock) {
    const timing = clock && { perf: { now: () => clock.now().getTime() }, ttlResolution: 0 };
    const on = config.maxAssets > 0 && config.ttlMs > 0;
    this.#assets = on ? new LRUCache({ max: config.maxAssets, ttl: config.ttlMs, noUpdateTTL: true, ...timing }) : undefined;
    const maxBytes = config.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#maxFileBytes = config.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.#bytes =
      on && maxBytes > 0 && this.#maxFileBytes > 0
        ? new LRUCache({ maxSize: maxBytes, sizeCalculation: (bytes) => Math.max(1, bytes.length) })
        : undefined;
  }

  get coverage(): ChangeCoverage {
    return this.#coverage;
  }

  /** How much of the changes is heard from now on; a change of it starts the cache afresh. */
  setCoverage(coverage: ChangeCoverage): void {
    if (coverage === this.#coverage) return;
    this.#coverage = coverage;
    this.clear();
  }

  get(assetId: string, key: string): FileMeta | undefined {
    return this.#assets?.get(assetId)?.get(key);
  }

  /** The bytes of the file `meta` describes, when kept and every change is heard. */
  bytesOf(assetId: string, key: string, meta: FileMeta): Buffer | undefined {
    if (this.#coverage === 'partial') return undefined;
    const bytes = this.#bytes?.get(`${assetId}/${key}`);
    return bytes !== undefined && bytes.length === meta.size ? bytes : undefined;
  }

  /** Whether a file of `size` bytes is worth reading whole to keep (every change heard, small enough). */
  keepsBytesOf(size: number): boolean {
    return this.#bytes !== undefined && this.#coverage !== 'partial' && size <= this.#maxFileBytes;
  }

  /** A token to hand to `put` with what a lookup starting now finds. */
  begin(): number {
    return this.#changes;
  }

  /** Keeps a public file's validators (and bytes), unless a change to its asset was seen since `begin` returned `token`. */
  put(token: number, assetId: string, key: string, meta: FileMeta, bytes?: Buffer): void {
    if (this.#assets === undefined || meta.visibility !== 'public') return;
    if (token < this.#floor || (this.#changedAt.get(assetId) ?? 0) > token) return;
    if (bytes !== undefined && bytes.length === meta.size && this.keepsBytesOf(meta.size)) this.#bytes?.set(`${assetId}/${key}`, bytes);
    const variants = this.#assets.get(assetId);
    if (variants === undefined)
      return void this.#assets.set(assetId, new Map([[key, meta]]), this.#coverage === 'complete' ? { ttl: 0 } : {});
    if (variants.size >= MAX_VARIANTS_PER_ASSET) variants.clear();
    variants.set(key, meta);
  }

  /** An asset changed (replaced, deleted, renamed, made private): its files are asked for again. */
  forget(assetId: string): void {
    const count = ++this.#changes;
    this.#changedAt.delete(assetId);
    this.#changedAt.set(assetId, count);
    if (this.#changedAt.size > MAX_REMEMBERED_CHANGES) {
      const [oldest, at] = this.#changedAt.entries().next().value!;
      this.#changedAt.delete(oldest);
      this.#floor = Math.max(this.#floor, at);
    }
    this.#assets?.delete(assetId);
  }

  /** Some asset changed, which one unknown (a failed replace or append may still have been stored): everything is asked for again. */
  clear(): void {
    this.#floor = ++this.#changes;
    this.#changedAt.clear();
    this.#assets?.clear();
  }
}

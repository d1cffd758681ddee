import { LRUCache } from 'lru-cache';
import type { Clock } from '@switchyard/core';
import type { Validators } from './conditional.js';

/** What the gateway learns of a file from the service's info-only ReadFile. */
export interface FileMeta extends Validators {
  readonly type: string;
  readonly size: number;
  readonly visibility: string;
  /** The name to save the file as. */
  readonly name: string;
}

/** How many assets' validators are kept, and for how long at most. */
export interface ValidatorCacheConfig {
  /** Assets kept (least recently used out first); 0: no cache. */
  readonly maxAssets: number;
  /** The longest an entry is believed: the bound on a change made where this gateway cannot see it. */
  readonly ttlMs: number;
}

/**
 * 5 s: a public file's answer says `public, max-age=31536000, immutable`, so any
 * cache on the way may keep the bytes themselves for a year without asking; a
 * 304 at most 5 s late after a delete or replace made through another gateway
 * (or the service's gRPC port) tells a client less than that header already let it keep.
 */
export const DEFAULT_VALIDATOR_CACHE: ValidatorCacheConfig = Object.freeze({ maxAssets: 10_000, ttlMs: 5_000 });

/** Variants (transform parameters, `format=auto`'s choice) kept per asset; more empties the asset's set. */
const MAX_VARIANTS_PER_ASSET = 32;

/**
 * The validators of public files this gateway revalidated lately, so a
 * conditional GET answered 304 skips the service call (the asset and blob
 * lookup in SQLite, the in-process or gRPC call around it). Written for speed:
 * justified by peer-file-serve-304 (bench/hand-written-parts.md#validator-cache).
 *
 * Only what cannot be answered wrongly for long: public files (a private
 * one's signature, expiry and revocation are the service's to check on every
 * request), and only 304s (files.ts asks the service for anything else).
 * Entries are grouped by asset id; every change to an asset that passes
 * through this gateway (`watchChanges`) drops its group when the change
 * returns, and a lookup that began before a change never stores what it read.
 * A change made elsewhere is believed after `ttlMs` at the latest: a group
 * expires that long after its first entry, whatever was added to it since
 * (alive at exactly `ttlMs`, gone a millisecond later).
 */
export class ValidatorCache {
  readonly #assets: LRUCache<string, Map<string, FileMeta>> | undefined;
  /** Counts changes seen: a lookup started at an older count must not store its answer. */
  #changes = 0;

  /**
   * Ages are read from `clock` when one is given (tests move it between two
   * calls, so it is read at every check); without one, from lru-cache's own
   * monotonic clock, read at most once a millisecond.
   */
  constructor(config: ValidatorCacheConfig = DEFAULT_VALIDATOR_CACHE, clock?: Clock) {
    const timing = clock && { perf: { now: () => clock.now().getTime() }, ttlResolution: 0 };
    this.#assets =
      config.maxAssets > 0 && config.ttlMs > 0
        ? new LRUCache({ max: config.maxAssets, ttl: config.ttlMs, noUpdateTTL: true, ...timing })
        : undefined;
  }

  get(assetId: string, key: string): FileMeta | undefined {
    return this.#assets?.get(assetId)?.get(key);
  }

  /** A token to hand to `put` with what a lookup starting now finds. */
  begin(): number {
    return this.#changes;
  }

  /** Keeps a public file's validators, unless a change was seen since `begin` returned `token`. */
  put(token: number, assetId: string, key: string, meta: FileMeta): void {
    if (this.#assets === undefined || token !== this.#changes || meta.visibility !== 'public') return;
    const variants = this.#assets.get(assetId);
    if (variants === undefined) return void this.#assets.set(assetId, new Map([[key, meta]]));
    if (variants.size >= MAX_VARIANTS_PER_ASSET) variants.clear();
    variants.set(key, meta);
  }

  /** An asset changed (replaced, deleted, renamed, made private): its files are asked for again. */
  forget(assetId: string): void {
    this.#changes++;
    this.#assets?.delete(assetId);
  }

  /** Some asset changed, which one unknown (a failed replace or append may still have been stored): everything is asked for again. */
  clear(): void {
    this.#changes++;
    this.#assets?.clear();
  }
}

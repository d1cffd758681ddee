import type { AssetStore } from '../ports/asset-store.js';
import type { BlobStore } from '../ports/blob-store.js';
import { DEFAULT_MEDIA_FACTS, MediaDescriber, type MediaFactsConfig } from '../assets/media/describe-media.js';
import { MEDIA_FACTS_VERSION } from '../assets/media/media-facts.js';
import { readHead } from '../assets/store-content.js';
import { DEFAULT_TRANSFORM_MAX_PIXELS } from '../switchyard.js';

export interface BackfillOptions {
  readonly assetStore: AssetStore;
  readonly blobStore: BlobStore;
  /** The describer's bounds (as `createSwitchyard`'s `mediaFacts`); images over `maxPixels` get no placeholder. */
  readonly mediaFacts?: Partial<MediaFactsConfig> | undefined;
  /** Records read per batch (default 100). */
  readonly batchSize?: number | undefined;
  /** At most this many files are described (default: all); a later run goes on where this one stopped. */
  readonly limit?: number | undefined;
  /** Describe, but write nothing. */
  readonly dryRun?: boolean | undefined;
  /** Told of each asset described (its facts, or none) as it goes. */
  readonly onAsset?:
    | ((asset: {
        readonly workspace: string;
        readonly id: string;
        readonly type: string;
        readonly facts: Readonly<Record<string, unknown>>;
      }) => void)
    | undefined;
}

export interface BackfillReport {
  /** Assets described (with facts or without: some files have none to read). */
  readonly described: number;
  /** Assets replaced or deleted while being described: their new file was described at its upload. */
  readonly changed: number;
  /** Assets left for a later run: their file is gone, or every parser was busy. */
  readonly skipped: number;
}

/**
 * Describes the assets stored before their media facts were read (or by an
 * older describer, or skipped under load): every record whose `factsVersion`
 * is below MEDIA_FACTS_VERSION, in id order, one file at a time, with the
 * same bounds as uploads. Facts are written only while the record still
 * points at the file that was read, so a replace meanwhile wins. Stops
 * after `limit`; run again to go on.
 */
export async function backfillMediaFacts(options: BackfillOptions): Promise<BackfillReport> {
  const { assetStore, blobStore } = options;
  const config = { ...DEFAULT_MEDIA_FACTS, maxPixels: DEFAULT_TRANSFORM_MAX_PIXELS, ...options.mediaFacts };
  const describer = new MediaDescriber(blobStore, Object.freeze(config));
  const batchSize = options.batchSize ?? 100;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  let described = 0;
  let changed = 0;
  let skipped = 0;
  let after: string | undefined;
  try {
    while (described + changed + skipped < limit) {
      const batch = await assetStore.listForFacts({
        belowVersion: MEDIA_FACTS_VERSION,
        after,
        limit: Math.min(batchSize, limit - described - changed - skipped),
      });
      if (batch.length === 0) break;
      for (const record of batch) {
        after = record.id;
        const head = record.size === 0 ? new Uint8Array(0) : await readHead(blobStore, record.blobKey);
        if (record.size > 0 && head.length === 0) {
          skipped += 1;
          continue;
        }
        const facts = await describer.describe({ key: record.blobKey, type: record.type, size: record.size, head });
        if (facts.factsVersion === 0) {
          skipped += 1;
          continue;
        }
        const written = options.dryRun ? record : await assetStore.setFacts(record.workspace, record.id, record.blobId, facts);
        if (written === undefined) {
          changed += 1;
          continue;
        }
        described += 1;
        const { factsVersion: _version, ...shown } = facts;
        options.onAsset?.({ workspace: record.workspace, id: record.id, type: record.type, facts: shown });
      }
    }
  } finally {
    await describer.close();
  }
  return { described, changed, skipped };
}

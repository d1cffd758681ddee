// Shared by the asset tests (not part of the library's API).
import { DEFAULT_FILE_CACHE, FileCache, type FileCacheConfig } from './file-cache.js';
import { createUrlSigner, type UrlSigningKey } from './signed-urls.js';
import { VariantMaker } from './transform/variants.js';
import { DEFAULT_TRANSFORM_SIZES } from './transform/transform-params.js';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createPrincipal, SCOPES, type Principal } from '../auth/principal.js';
import { MemoryAssetStore } from '../memory/memory-asset-store.js';
import { MemoryBlobStore } from '../memory/memory-blob-store.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { BlobInfo, BlobStore } from '../ports/blob-store.js';
import { createManualClock } from '../testing/manual-clock.js';
import { systemTime, type TimeSource } from '../clock.js';
import { LOAD_MS } from './media/probe-pool.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import type { AssetChangeNotices } from './asset-change-notices.js';
import { createSequentialIds } from '../testing/sequential-ids.js';
import { createAssetService } from './asset-service.js';
import { MemoryRouteStore } from '../memory/memory-route-store.js';
import { DEFAULT_MEDIA_FACTS, MediaDescriber, type DescribeObserver, type MediaFactsConfig } from './media/describe-media.js';
import { DEFAULT_POSTER_FRAMES, type PosterFrameConfig } from './transform/poster-frame.js';

export const CDN_URL = 'https://cdn.example.test/files';

// A real collector, so that memory measured in a test is live memory, not garbage awaiting collection.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Memory after full collections: twice, since array buffers freed by one are swept concurrently and
 * the next waits for that. `live` is the heap plus the buffers outside it.
 */
export function memoryAfterGc(): { readonly live: number; readonly rss: number } {
  collectGarbage();
  collectGarbage();
  const { heapUsed, arrayBuffers, rss } = process.memoryUsage();
  return { live: heapUsed + arrayBuffers, rss };
}
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));

/** Every fixture with the type sniffing must report for it. */
export const FIXTURE_TYPES: Readonly<Record<string, string>> = Object.freeze({
  'image.png': 'image/png',
  'photo.jpg': 'image/jpeg',
  'anim.gif': 'image/gif',
  'image.webp': 'image/webp',
  'drawing.svg': 'image/svg+xml',
  'document.pdf': 'application/pdf',
  'sound.wav': 'audio/wav',
  'sound.mp3': 'audio/mpeg',
  'clip.mp4': 'video/mp4',
  'clip.webm': 'video/webm',
  'document.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'notes.txt': 'text/plain',
  'table.csv': 'text/csv',
  'data.json': 'application/json',
  'page.html': 'text/html',
  'empty.dat': 'application/octet-stream',
  'png-named.txt': 'image/png',
});

export function readFixture(name: string): Promise<Buffer> {
  return readFile(FIXTURES + name);
}

export const alice: Principal = createPrincipal('alice', 'ws-alice', SCOPES);
export const bob: Principal = createPrincipal('bob', 'ws-bob', SCOPES);

export function principalWith(...scopes: string[]): Principal {
  return createPrincipal('carol', 'ws-alice', scopes);
}

/** The url signing key of `setup`'s services. */
export const TEST_URL_KEY: UrlSigningKey = Object.freeze({ id: 'test', secret: new Uint8Array(32).fill(7) });

/**
 * The system's time, except that a parser's load is never cut off: how long a
 * worker takes to load its parser is the machine's business (over 30 s under
 * CI beside a CPU burner and other suites), and LOAD_MS has its own test on
 * fake time (probe-pool.test.ts). Parse deadlines stay real.
 */
export const patientLoading: TimeSource = Object.freeze({
  ...systemTime,
  setTimeout: (callback: () => void, ms: number) =>
    ms === LOAD_MS ? systemTime.setTimeout(() => undefined, 0) : systemTime.setTimeout(callback, ms),
});

/** A service over fresh memory stores, a manual clock and sequential ids. */
export function setup(
  options: {
    maxUploadBytes?: number;
    assetStore?: AssetStore;
    blobStore?: BlobStore;
    fileCache?: FileCacheConfig;
    mediaFacts?: Partial<MediaFactsConfig>;
    observer?: DescribeObserver;
    /** The media parsers' time (`patientLoading` unless given). */
    mediaTime?: TimeSource;
    posterFrames?: Partial<PosterFrameConfig>;
    /** Asset watches' timers and clock (the system's unless given), and the feed they share with other cores. */
    watchTime?: TimeSource;
    feed?: ChangeFeed;
    /** Told of every committed write (the core's assetChanges). */
    notices?: AssetChangeNotices;
  } = {},
) {
  const assetStore = options.assetStore ?? new MemoryAssetStore();
  const blobStore = options.blobStore ?? new MemoryBlobStore();
  const clock = createManualClock('2024-05-01T12:00:00.000Z');
  const describer = new MediaDescriber(
    blobStore,
    { ...DEFAULT_MEDIA_FACTS, maxPixels: 50_000_000, ...options.mediaFacts },
    options.observer,
    options.mediaTime ?? patientLoading,
  );
  const service = createAssetService({
    assetStore,
    routeStore: new MemoryRouteStore(),
    blobStore,
    clock,
    ids: createSequentialIds(),
    cdnUrl: CDN_URL,
    urlSigner: createUrlSigner([TEST_URL_KEY]),
    variants: new VariantMaker(
      blobStore,
      { sizes: DEFAULT_TRANSFORM_SIZES, maxPixels: 50_000_000, concurrency: 2, queue: 4 },
      {},
      { ...DEFAULT_POSTER_FRAMES, ...options.posterFrames },
    ),
    maxUploadBytes: options.maxUploadBytes ?? 10 * 1024 * 1024,
    fileCache: new FileCache(options.fileCache ?? DEFAULT_FILE_CACHE),
    describer,
    watch: {
      pollMs: 250,
      safetyPollMs: 30_000,
      heartbeatMs: 15_000,
      feed: options.feed,
      time: options.watchTime,
      notices: options.notices,
    },
  });
  return { service, assetStore, blobStore, clock, describer };
}

export async function listBlobs(store: BlobStore): Promise<BlobInfo[]> {
  const blobs: BlobInfo[] = [];
  for await (const blob of store.list()) blobs.push(blob);
  return blobs;
}

/** An async iterable body of the given chunks, yielding to the event loop between them. */
export async function* chunked(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    await new Promise((resolve) => setImmediate(resolve));
    yield part;
  }
}

/** The path of a public URL under the CDN base, as the file server would pass it. */
export function pathOf(url: string): string {
  return url.slice(CDN_URL.length + 1);
}

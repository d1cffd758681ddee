import { MEDIA_FACTS_VERSION, type StoredFacts } from '../assets/media/media-facts.js';
import type { AssetStore } from '../ports/asset-store.js';
import type { Check } from './assertions.js';
import { by, sampleAsset, sampleContent, swapped, view } from './asset-samples.js';
import { uniqueName } from './conformance.js';

type Define = (title: string, body: (t: Check, store: AssetStore) => Promise<void>) => void;

const VIDEO_FACTS: StoredFacts = { width: 1080, height: 1920, durationMs: 2 ** 32 - 1, factsVersion: MEDIA_FACTS_VERSION };

/** The AssetStore cases about media facts: stored with the file, replaced with it, set on their own, and found for a backfill. */
export function assetFactsCases(define: Define): void {
  define('media facts round-trip with the file and go with it on swap', async (t, store) => {
    const workspace = uniqueName();
    const video = sampleAsset(workspace, { ...sampleContent(workspace, { type: 'video/mp4', ...VIDEO_FACTS }) });
    const pdf = sampleAsset(workspace, {
      ...sampleContent(workspace, {
        type: 'application/pdf',
        width: undefined,
        height: undefined,
        pages: 3,
        factsVersion: MEDIA_FACTS_VERSION,
      }),
    });
    const image = sampleAsset(workspace, {
      ...sampleContent(workspace, { placeholder: '1QcSHQRnh493V4dIh4eXh1h4kJUI', factsVersion: MEDIA_FACTS_VERSION }),
    });
    for (const record of [video, pdf, image]) await store.insert(record, by);
    for (const record of [video, pdf, image]) t.deepEqual(view(await store.get(workspace, record.id)), view(record), record.type);
    const content = sampleContent(workspace, {
      type: 'audio/mpeg',
      width: undefined,
      height: undefined,
      durationMs: 0,
      factsVersion: MEDIA_FACTS_VERSION,
    });
    const replaced = await store.swap(workspace, video.id, video.version, content, {}, by);
    t.deepEqual(view(replaced), view(swapped(video, content)), "the new file's facts, the old ones gone (a duration of 0 kept)");
    const bare = sampleContent(workspace, { width: undefined, height: undefined });
    t.deepEqual(
      view(await store.swap(workspace, image.id, image.version, bare, {}, by)),
      view(swapped(image, bare)),
      'a file without facts clears them',
    );
  });

  define('setFacts writes the facts of the current file only, and nothing else', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace, { ...sampleContent(workspace, { type: 'video/webm', width: undefined, height: undefined }) });
    await store.insert(record, by);
    const described = await store.setFacts(workspace, record.id, record.blobId, VIDEO_FACTS);
    t.deepEqual(
      view(described),
      view({ ...record, ...VIDEO_FACTS }),
      'the facts and their version; version, times and the rest as they were',
    );
    t.deepEqual(view(await store.getByBlobId(record.blobId)), view(described));
    t.deepEqual(
      view(await store.setFacts(workspace, record.id, record.blobId, { factsVersion: MEDIA_FACTS_VERSION })),
      view({ ...record, factsVersion: MEDIA_FACTS_VERSION }),
      'absent facts are cleared',
    );
    t.deepEqual(
      view(await store.setFacts(workspace, record.id, record.blobId, { factsVersion: MEDIA_FACTS_VERSION })),
      view({ ...record, factsVersion: MEDIA_FACTS_VERSION }),
      'written again as they were',
    );
    t.is(await store.setFacts(uniqueName(), record.id, record.blobId, VIDEO_FACTS), undefined, 'another workspace');
    const content = sampleContent(workspace, { type: 'video/mp4' });
    await store.swap(workspace, record.id, record.version, content, {}, by);
    t.is(await store.setFacts(workspace, record.id, record.blobId, VIDEO_FACTS), undefined, 'a file replaced meanwhile');
    t.deepEqual(
      view(await store.get(workspace, record.id)),
      view(swapped({ ...record, factsVersion: MEDIA_FACTS_VERSION }, content)),
      'left as the swap wrote it',
    );
  });

  define('listForFacts finds records described by an older describer, every workspace, ascending id, after a cursor', async (t, store) => {
    const [a, b] = [uniqueName(), uniqueName()];
    const stale = sampleAsset(a);
    const described = sampleAsset(b, { ...sampleContent(b, { factsVersion: MEDIA_FACTS_VERSION }) });
    const older = sampleAsset(b, { ...sampleContent(b, { factsVersion: MEDIA_FACTS_VERSION }) });
    for (const record of [stale, described, older]) await store.insert(record, by);
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 10_000; page++) {
      const batch = await store.listForFacts({ belowVersion: MEDIA_FACTS_VERSION + 1, after, limit: 2 });
      t.true(batch.length <= 2, 'at most limit');
      if (batch.length === 0) break;
      seen.push(...batch.map((record) => record.id));
      after = batch.at(-1)!.id;
    }
    t.deepEqual(seen, [...seen].sort(), 'ascending, no repeats');
    t.is(new Set(seen).size, seen.length);
    t.true(
      [stale.id, described.id, older.id].every((id) => seen.includes(id)),
      'below a newer version: all three',
    );
    const current = await store.listForFacts({ belowVersion: MEDIA_FACTS_VERSION, after: stale.id.slice(0, -1), limit: 1000 });
    t.true(
      current.some((record) => record.id === stale.id),
      'never described',
    );
    t.false(
      current.some((record) => record.id === described.id || record.id === older.id),
      'described by the current version',
    );
    t.deepEqual(view(current.find((record) => record.id === stale.id)), view(stale), 'every field');
  });

  define('a policy that strips image metadata says so when read back', async (t, store) => {
    const workspace = uniqueName();
    await store.setPolicy(workspace, { allowedTypes: [], defaultVisibility: 'public', stripImageMetadata: true });
    t.deepEqual({ ...(await store.getPolicy(workspace)) }, { allowedTypes: [], defaultVisibility: 'public', stripImageMetadata: true });
    await store.setPolicy(workspace, { allowedTypes: [], defaultVisibility: 'public' });
    t.deepEqual(
      { ...(await store.getPolicy(workspace)) },
      { allowedTypes: [], defaultVisibility: 'public' },
      'off again: no key, as stored before there was one',
    );
  });
}

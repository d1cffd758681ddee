import type { AssetStore } from '../ports/asset-store.js';
import type { AssetWrite } from '../ports/asset-change-log.js';
import {
  assertRejectsWithCode,
  defineCase,
  tally,
  uniqueName,
  type ConformanceOptions,
  type RegisterTest,
  type StoreHandle,
} from './conformance.js';
import { SMALL_ASSET_HISTORY } from './asset-change-log-conformance.js';
import type { Check } from './assertions.js';
import { assetNameCases } from './asset-name-conformance.js';
import { assetFactsCases } from './asset-facts-conformance.js';
import { assetChangeLogCases } from './asset-change-log-conformance.js';
import { assetRetentionCases } from './asset-retention-conformance.js';
import { by, ids, sampleAsset, sampleContent, swapped, view } from './asset-samples.js';

export { sampleAsset, sampleContent } from './asset-samples.js';
export { SMALL_ASSET_HISTORY } from './asset-change-log-conformance.js';

export interface AssetStoreConformanceOptions extends ConformanceOptions<AssetStore> {
  /** A store that keeps only the last `SMALL_ASSET_HISTORY` revisions of each workspace's change log (for the retention case). */
  readonly createWithHistory: (history: number) => Promise<StoreHandle<AssetStore>>;
}

/** Registers the AssetStore contract tests (see `ports/asset-store.ts`). */
export function assetStoreConformance(test: RegisterTest, options: AssetStoreConformanceOptions): void {
  const define = (title: string, body: (t: Check, store: AssetStore) => Promise<void>) =>
    defineCase(test, options, `AssetStore ${title}`, body);

  assetChangeLogCases(test, options, define, () => options.createWithHistory(SMALL_ASSET_HISTORY));
  assetRetentionCases(define);

  define('list pages a workspace newest first, by id, with type and label filters', async (t, store) => {
    const workspace = uniqueName();
    const png = sampleAsset(workspace, { label: 'a' });
    const pdf = sampleAsset(workspace, {
      ...sampleContent(workspace, { type: 'application/pdf', width: undefined, height: undefined }),
      label: 'b',
    });
    const webp = sampleAsset(workspace, { ...sampleContent(workspace, { type: 'image/webp' }), label: 'a' });
    for (const record of [png, pdf, webp]) await store.insert(record, by);
    await store.insert(sampleAsset(uniqueName()), by);
    const ids = async (query: Parameters<AssetStore['list']>[1]) => (await store.list(workspace, query)).map((record) => record.id);
    t.deepEqual(await ids({ limit: 10 }), [webp.id, pdf.id, png.id], 'newest first, only this workspace');
    t.deepEqual(await ids({ limit: 2 }), [webp.id, pdf.id], 'at most limit');
    t.deepEqual(await ids({ limit: 10, before: pdf.id }), [png.id], 'below the cursor');
    t.deepEqual(await ids({ limit: 10, type: { prefix: 'image/' } }), [webp.id, png.id], 'a top-level type');
    t.deepEqual(await ids({ limit: 10, type: { exact: 'application/pdf' } }), [pdf.id], 'an exact type');
    t.deepEqual(await ids({ limit: 10, label: 'a' }), [webp.id, png.id], 'a label');
    t.deepEqual(await ids({ limit: 10, label: 'a', type: { exact: 'image/png' } }), [png.id], 'both');
    t.deepEqual(view((await store.list(workspace, { limit: 1, before: pdf.id }))[0]), view(png), 'every field');
  });

  assetNameCases(define);
  assetFactsCases(define);

  define('delete removes a record of its workspace and returns it; unknown ids and other workspaces change nothing', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, by);
    t.is(await store.delete(uniqueName(), record.id, by), undefined, 'another workspace');
    t.is(await store.delete(workspace, ids.next('asset'), by), undefined, 'unknown id');
    t.deepEqual(view(await store.delete(workspace, record.id, by)), view(record), 'returns what it removed');
    t.is(await store.get(workspace, record.id), undefined);
    t.is(await store.getByBlobId(record.blobId), undefined, 'its blob id finds nothing');
    t.false(await store.hasBlobKey(record.blobKey));
    t.is(await store.delete(workspace, record.id, by), undefined, 'a second delete');
  });

  define("usage counts a workspace's records and the bytes of their current files", async (t, store) => {
    const workspace = uniqueName();
    const none = { versionBytes: 0, trashBytes: 0 };
    t.deepEqual(await store.usage(workspace), { assets: 0, bytes: 0, ...none }, 'an empty workspace');
    const first = sampleAsset(workspace, { ...sampleContent(workspace, { size: 1000 }) });
    await store.insert(first, by);
    await store.insert(sampleAsset(workspace, { ...sampleContent(workspace, { size: 2 ** 33 }) }), by);
    await store.insert(sampleAsset(uniqueName(), { ...sampleContent(workspace, { size: 7 }) }), by);
    t.deepEqual(await store.usage(workspace), { assets: 2, bytes: 1000 + 2 ** 33, ...none }, 'sizes past 32 bits add up');
    await store.swap(workspace, first.id, first.version, sampleContent(workspace, { size: 10 }), {}, by);
    t.deepEqual(await store.usage(workspace), { assets: 2, bytes: 10 + 2 ** 33, ...none }, 'a replace counts its new file');
    await store.delete(workspace, first.id, by);
    t.deepEqual(await store.usage(workspace), { assets: 1, bytes: 2 ** 33, ...none });
  });

  define('insert then get returns every field, times to the millisecond', async (t, store) => {
    const workspace = uniqueName();
    const image = sampleAsset(workspace, { createdAt: new Date('2024-05-06T07:08:09.001Z') });
    const document = sampleAsset(workspace, {
      ...sampleContent(workspace, { type: 'application/pdf', size: 0, width: undefined, height: undefined }),
      label: '',
    });
    await store.insert(image, by);
    await store.insert(document, by);
    t.deepEqual(view(await store.get(workspace, image.id)), view(image), 'image with dimensions');
    t.deepEqual(view(await store.get(workspace, document.id)), view(document), 'document without dimensions, empty label, size 0');
  });

  define('a repeated id is already_exists', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, by);
    await assertRejectsWithCode(t, store.insert({ ...sampleAsset(workspace), id: record.id }, by), 'already_exists', 'repeated id');
    t.deepEqual(view(await store.get(workspace, record.id)), view(record), 'the first record is kept');
  });

  define('get sees only its own workspace; unknown ids are undefined', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, by);
    t.is(await store.get(uniqueName(), record.id), undefined, 'another workspace');
    t.is(await store.get(workspace, ids.next('asset')), undefined, 'unknown id');
  });

  define('getByBlobId finds the current blob in any workspace, and only the current one', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, by);
    t.deepEqual(view(await store.getByBlobId(record.blobId)), view(record), 'found without knowing the workspace');
    t.is(await store.getByBlobId(ids.next('blob')), undefined, 'unknown blob id');
    const content = sampleContent(workspace);
    const after = await store.swap(workspace, record.id, record.version, content, {}, by);
    t.truthy(after);
    t.is(await store.getByBlobId(record.blobId), undefined, 'a replaced-away blob id finds nothing');
    t.deepEqual(view(await store.getByBlobId(content.blobId)), view(after));
  });

  define('swap replaces the content, bumps the version and keeps id, workspace, label and createdAt', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, by);
    // Image → PDF: the dimensions must go, not linger from the old content.
    const content = sampleContent(workspace, {
      type: 'application/pdf',
      size: 99,
      width: undefined,
      height: undefined,
      uploadedAt: new Date('2025-01-02T03:04:05.678Z'),
    });
    const expected = swapped(record, content);
    const result = await store.swap(workspace, record.id, 1, content, {}, by);
    t.deepEqual(view(result), view(expected), 'swap returns the new record');
    t.deepEqual(view(await store.get(workspace, record.id)), view(expected), 'get sees the new record');
    const again = sampleContent(workspace);
    t.deepEqual(
      view(await store.swap(workspace, record.id, 2, again, {}, by)),
      view(swapped(expected, again)),
      'a second swap from version 2',
    );
  });

  define('swap from a stale version, another workspace or an unknown id returns undefined and changes nothing', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, by);
    t.is(await store.swap(workspace, record.id, 2, sampleContent(workspace), {}, by), undefined, 'version from the future');
    t.is(await store.swap(workspace, record.id, 0, sampleContent(workspace), {}, by), undefined, 'stale version');
    t.is(await store.swap(uniqueName(), record.id, 1, sampleContent(workspace), {}, by), undefined, 'another workspace');
    t.is(await store.swap(workspace, ids.next('asset'), 1, sampleContent(workspace), {}, by), undefined, 'unknown id');
    t.deepEqual(view(await store.get(workspace, record.id)), view(record), 'unchanged');
  });

  define('of concurrent swaps from one version exactly one wins, and the record holds its content', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, by);
    const contents = Array.from({ length: 8 }, () => sampleContent(workspace));
    const results = await Promise.allSettled(contents.map((content) => store.swap(workspace, record.id, 1, content, {}, by)));
    const { fulfilled, rejectedCodes } = tally(results);
    t.deepEqual(rejectedCodes, [], 'losing swaps return undefined, they do not throw');
    const winners = fulfilled.filter((result): result is AssetWrite => result !== undefined);
    t.is(winners.length, 1, 'exactly one swap wins');
    const winner = winners[0];
    const stored = await store.get(workspace, record.id);
    t.is(stored?.version, 2);
    t.deepEqual(view(stored), view(winner));
    t.true(
      contents.some((content) => content.blobId === stored?.blobId),
      'the stored blob is one of the swapped-in ones',
    );
  });

  define('a private record round-trips; swap keeps its visibility unless given one', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace, { visibility: 'private', linkEpoch: 3 });
    await store.insert(record, by);
    t.deepEqual(view(await store.get(workspace, record.id)), view(record));
    const content = sampleContent(workspace);
    const kept = await store.swap(workspace, record.id, 1, content, {}, by);
    t.deepEqual(view(kept), view({ ...swapped(record, content), visibility: 'private' }), 'visibility and link epoch stay');
    const next = sampleContent(workspace);
    const made = await store.swap(workspace, record.id, 2, next, { visibility: 'public' }, by);
    t.deepEqual(
      view(made),
      view({ ...swapped(swapped(record, content), next), visibility: 'public' }),
      'the given visibility is written with the content',
    );
  });

  define('update changes label and visibility, raises the link epoch, and leaves content and version alone', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, by);
    const labelled = await store.update(workspace, record.id, { label: 'neu ✓' }, by);
    t.deepEqual(view(labelled), view({ ...record, label: 'neu ✓' }), 'only the label');
    const hidden = await store.update(workspace, record.id, { visibility: 'private' }, by);
    t.deepEqual(view(hidden), view({ ...record, label: 'neu ✓', visibility: 'private' }), 'only the visibility');
    t.deepEqual(view(await store.update(workspace, record.id, {}, by)), view(hidden), 'no changes');
    await Promise.all(Array.from({ length: 5 }, () => store.update(workspace, record.id, { revokeLinks: true }, by)));
    t.is((await store.get(workspace, record.id))?.linkEpoch, 5, 'concurrent revocations each count');
    t.is(await store.update(uniqueName(), record.id, { label: 'x' }, by), undefined, 'another workspace');
    t.is(await store.update(workspace, ids.next('asset'), { label: 'x' }, by), undefined, 'unknown id');
    t.is((await store.get(workspace, record.id))?.label, 'neu ✓', 'unchanged by those');
    t.deepEqual(
      view(await store.getByBlobId(record.blobId)),
      view({ ...record, label: 'neu ✓', visibility: 'private', linkEpoch: 5 }),
      'the file lookup sees the update',
    );
  });

  define('getPolicy returns what setPolicy stored, per workspace', async (t, store) => {
    const workspace = uniqueName();
    t.is(await store.getPolicy(workspace), undefined, 'none set');
    await store.setPolicy(workspace, {
      allowedTypes: ['image/*', 'application/pdf'],
      maxUploadBytes: 2 ** 33,
      defaultVisibility: 'private',
    });
    t.deepEqual(await store.getPolicy(workspace), {
      allowedTypes: ['image/*', 'application/pdf'],
      maxUploadBytes: 2 ** 33,
      defaultVisibility: 'private',
    });
    t.is(await store.getPolicy(uniqueName()), undefined, 'another workspace has none');
    await store.setPolicy(workspace, { allowedTypes: [], defaultVisibility: 'public' });
    const replaced = await store.getPolicy(workspace);
    t.deepEqual(
      { ...replaced },
      { allowedTypes: [], defaultVisibility: 'public' },
      'a second set replaces the first; an absent limit stays an absent key',
    );
  });

  define('hasBlobKey tells whether a record currently points at a key', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    t.false(await store.hasBlobKey(record.blobKey), 'before insert');
    await store.insert(record, by);
    t.true(await store.hasBlobKey(record.blobKey), 'after insert');
    const content = sampleContent(workspace);
    await store.swap(workspace, record.id, 1, content, {}, by);
    t.false(await store.hasBlobKey(record.blobKey), 'the replaced-away key');
    t.true(await store.hasBlobKey(content.blobKey), 'the new key');
  });

  if (options.createUnavailable) {
    defineCase(
      test,
      options,
      'AssetStore unreachable backend: every operation is unavailable',
      async (t, store) => {
        const workspace = uniqueName();
        const record = sampleAsset(workspace);
        await assertRejectsWithCode(t, store.insert(record, by), 'unavailable', 'insert');
        await assertRejectsWithCode(t, store.get(workspace, record.id), 'unavailable', 'get');
        await assertRejectsWithCode(t, store.getByBlobId(record.blobId), 'unavailable', 'getByBlobId');
        await assertRejectsWithCode(t, store.swap(workspace, record.id, 1, sampleContent(workspace), {}, by), 'unavailable', 'swap');
        await assertRejectsWithCode(t, store.hasBlobKey(record.blobKey), 'unavailable', 'hasBlobKey');
        await assertRejectsWithCode(t, store.update(workspace, record.id, { label: 'x' }, by), 'unavailable', 'update');
        await assertRejectsWithCode(t, store.delete(workspace, record.id, by), 'unavailable', 'delete');
        await assertRejectsWithCode(t, store.deleteMany(workspace, [record.id], by), 'unavailable', 'deleteMany');
        await assertRejectsWithCode(t, store.revision(workspace), 'unavailable', 'revision');
        await assertRejectsWithCode(t, store.changesSince(workspace, 0, 10), 'unavailable', 'changesSince');
        await assertRejectsWithCode(t, store.history(workspace, record.id, { limit: 10 }), 'unavailable', 'history');
        await assertRejectsWithCode(t, store.listVersions(workspace, record.id), 'unavailable', 'listVersions');
        await assertRejectsWithCode(t, store.listTrash(workspace, { limit: 10 }), 'unavailable', 'listTrash');
        await assertRejectsWithCode(t, store.restoreFromTrash(workspace, record.id, by), 'unavailable', 'restoreFromTrash');
        await assertRejectsWithCode(t, store.purgeFromTrash(workspace, record.id, by), 'unavailable', 'purgeFromTrash');
        await assertRejectsWithCode(t, store.retainingWorkspaces(), 'unavailable', 'retainingWorkspaces');
        await assertRejectsWithCode(t, store.usage(workspace), 'unavailable', 'usage');
      },
      options.createUnavailable,
    );
  }
}

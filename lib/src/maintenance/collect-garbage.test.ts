import test from 'ava';
import { Readable } from 'node:stream';
import { isSwitchyardError } from '../errors.js';
import { MemoryAssetStore, MemoryBlobStore } from '../memory/index.js';
import { createManualClock, sampleAsset, sampleContent, uniqueName } from '../testing/index.js';
import { collectGarbage, DEFAULT_GC_GRACE_MS } from './collect-garbage.js';

/** The author of the fixture's writes; the change log is not under test here. */
const by = { actor: 'gc-test', time: new Date(0) };

const HOUR = 60 * 60 * 1000;
const bytes = (text: string) => Readable.from([Buffer.from(text)], { objectMode: false });

/** Memory stores with one referenced blob and one orphan, both written just now. */
async function fixture() {
  const blobStore = new MemoryBlobStore();
  const assetStore = new MemoryAssetStore();
  const workspace = uniqueName();
  const record = sampleAsset(workspace);
  await blobStore.put(record.blobKey, bytes('current'));
  await assetStore.insert(record, by);
  const orphan = `${workspace}/orphan.bin`;
  await blobStore.put(orphan, bytes('left by a crash'));
  return { blobStore, assetStore, record, orphan };
}

test('an unreferenced blob older than the grace period goes; referenced and young blobs stay', async (t) => {
  const { blobStore, assetStore, record, orphan } = await fixture();
  const clock = createManualClock(Date.now());
  t.deepEqual(
    await collectGarbage({ blobStore, assetStore, clock, graceMs: HOUR }),
    { scanned: 2, deleted: [], expiredUploads: [], expiredVersions: [], expiredTrash: [], abandoned: [], warnings: [] },
    'the orphan is still young',
  );
  clock.advance(2 * HOUR);
  t.deepEqual(await collectGarbage({ blobStore, assetStore, clock, graceMs: HOUR }), {
    scanned: 2,
    deleted: [orphan],
    expiredUploads: [],
    expiredVersions: [],
    expiredTrash: [],
    abandoned: [],
    warnings: [],
  });
  t.is(await blobStore.stat(orphan), undefined);
  t.truthy(await blobStore.stat(record.blobKey), 'the blob a record points at is never collected');
});

test('the default grace period is one hour', async (t) => {
  const { blobStore, assetStore, orphan } = await fixture();
  t.is(DEFAULT_GC_GRACE_MS, HOUR);
  const clock = createManualClock(Date.now() + HOUR - 60_000);
  t.deepEqual((await collectGarbage({ blobStore, assetStore, clock })).deleted, [], 'at 59 minutes');
  clock.advance(2 * 60_000);
  t.deepEqual((await collectGarbage({ blobStore, assetStore, clock })).deleted, [orphan], 'at 61 minutes');
});

test('a blob replaced away by a swap is collected; the new one stays', async (t) => {
  const { blobStore, assetStore, record, orphan } = await fixture();
  const content = sampleContent(record.workspace);
  await blobStore.put(content.blobKey, bytes('new'));
  await assetStore.swap(record.workspace, record.id, record.version, content, {}, by);
  const report = await collectGarbage({ blobStore, assetStore, graceMs: 0, clock: createManualClock(Date.now() + 1000) });
  t.deepEqual(report.deleted.sort(), [orphan, record.blobKey].sort());
  t.truthy(await blobStore.stat(content.blobKey));
});

test('the blob of a deleted asset whose bytes could not be deleted at once is collected', async (t) => {
  const { blobStore, assetStore, record, orphan } = await fixture();
  // What deleteAsset leaves when the blob store fails after the record went: the bytes, referenced by nothing.
  t.truthy(await assetStore.delete(record.workspace, record.id, by));
  const report = await collectGarbage({ blobStore, assetStore, graceMs: 0, clock: createManualClock(Date.now() + 1000) });
  t.deepEqual(report.deleted.sort(), [orphan, record.blobKey].sort());
  t.is(await blobStore.stat(record.blobKey), undefined);
});

test('a dry run reports what would go and deletes nothing', async (t) => {
  const { blobStore, assetStore, orphan } = await fixture();
  const report = await collectGarbage({ blobStore, assetStore, graceMs: 0, dryRun: true, clock: createManualClock(Date.now() + 1000) });
  t.deepEqual(report.deleted, [orphan]);
  t.truthy(await blobStore.stat(orphan));
});

test('a negative or non-numeric grace period is invalid_argument', async (t) => {
  const { blobStore, assetStore } = await fixture();
  for (const graceMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
    const error = await t.throwsAsync(collectGarbage({ blobStore, assetStore, graceMs }));
    t.true(isSwitchyardError(error) && error.code === 'invalid_argument', String(graceMs));
  }
});

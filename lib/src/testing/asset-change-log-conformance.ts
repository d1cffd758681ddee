import type { AssetStore } from '../ports/asset-store.js';
import type { AssetChangeRecord, AssetWrite, ChangeAuthor } from '../ports/asset-change-log.js';
import { assertRejectsWithCode, defineCase, tally, uniqueName, type ConformanceOptions, type RegisterTest } from './conformance.js';
import type { Check } from './assertions.js';
import { ids, sampleAsset, sampleContent, swapped, view } from './asset-samples.js';

// The AssetStore's change log: revisions, the four change types, batches, order, rollback and retention.

/** The history `createWithHistory` is asked for: small, so a few writes outgrow it. */
export const SMALL_ASSET_HISTORY = 3;

const BASE = Date.parse('2025-06-07T08:09:10.011Z');
/** Author `actor` writing at BASE + `ms` (milliseconds on purpose: stores keep them). */
const author = (actor: string, ms: number): ChangeAuthor => ({ actor, time: new Date(BASE + ms) });

/** Every field of a change, the asset spelled out by `view`. */
function changeView(change: AssetChangeRecord | undefined): unknown {
  if (!change) return change;
  return {
    type: change.type,
    revision: change.revision,
    time: change.time instanceof Date ? change.time.toISOString() : `not a Date: ${String(change.time)}`,
    actor: change.actor,
    assetId: change.assetId,
    asset: view(change.asset),
    previous: change.type === 'asset.replaced' ? { ...change.previous } : undefined,
  };
}

const revisionsOf = (changes: readonly AssetChangeRecord[] | undefined) => changes?.map((change) => change.revision);

export function assetChangeLogCases(
  test: RegisterTest,
  options: ConformanceOptions<AssetStore>,
  define: (title: string, body: (t: Check, store: AssetStore) => Promise<void>) => void,
  createWithHistory: ConformanceOptions<AssetStore>['create'],
): void {
  define(
    'every write raises the revision by one and logs its change with author, time, asset and, for a replace, the old file',
    async (t, store) => {
      const workspace = uniqueName();
      t.is(await store.revision(workspace), 0, 'no write yet');
      t.deepEqual(await store.changesSince(workspace, 0, 10), [], 'nothing after revision 0');
      const record = sampleAsset(workspace);
      const created = await store.insert(record, author('alice', 1));
      const content = sampleContent(workspace, { type: 'application/pdf', size: 77, width: undefined, height: undefined });
      const replaced = await store.swap(workspace, record.id, 1, content, {}, author('bob', 2));
      const relabelled = await store.update(workspace, record.id, { label: 'neu', visibility: 'private' }, author('carol', 3));
      const revoked = await store.update(workspace, record.id, { revokeLinks: true }, author('dave', 4));
      const deleted = await store.delete(workspace, record.id, author('erin', 5));
      const after = { ...swapped(record, content), label: 'neu', visibility: 'private' as const };
      const expected = [
        { type: 'asset.created', revision: 1, actor: 'alice', ms: 1, asset: view(record) },
        {
          type: 'asset.replaced',
          revision: 2,
          actor: 'bob',
          ms: 2,
          asset: view(swapped(record, content)),
          previous: { type: record.type, size: record.size, sha256: record.sha256 },
        },
        { type: 'asset.updated', revision: 3, actor: 'carol', ms: 3, asset: view(after) },
        { type: 'asset.updated', revision: 4, actor: 'dave', ms: 4, asset: view({ ...after, linkEpoch: 1 }) },
        { type: 'asset.deleted', revision: 5, actor: 'erin', ms: 5, asset: undefined },
      ].map(({ ms, ...change }) => ({ previous: undefined, ...change, time: new Date(BASE + ms).toISOString(), assetId: record.id }));
      const writes = [created, replaced, relabelled, revoked, deleted];
      t.deepEqual(
        writes.map((write) => changeView(write?.change)),
        expected,
        'each write returns the change it logged',
      );
      t.deepEqual(view(deleted?.record), view({ ...after, linkEpoch: 1 }), 'a delete returns the record as it was');
      t.deepEqual((await store.changesSince(workspace, 0, 10))?.map(changeView), expected, 'the log holds them, in order');
      t.is(await store.revision(workspace), 5);
      t.is(await store.revision(uniqueName()), 0, 'other workspaces have their own revision');
    },
  );

  define('a write that fails or finds nothing logs nothing and makes no revision', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, author('a', 0));
    // The repeated id fails inside the write: whatever it had done by then (the revision raised) is rolled back.
    await assertRejectsWithCode(
      t,
      store.insert({ ...sampleAsset(workspace), id: record.id }, author('a', 1)),
      'already_exists',
      'repeated id',
    );
    t.is(await store.swap(workspace, record.id, 2, sampleContent(workspace), {}, author('a', 2)), undefined, 'a lost compare-and-set');
    t.is(await store.update(workspace, ids.next('asset'), { label: 'x' }, author('a', 3)), undefined, 'an unknown id');
    t.is(await store.update(uniqueName(), record.id, { label: 'x' }, author('a', 3)), undefined, 'another workspace');
    t.is(await store.delete(workspace, ids.next('asset'), author('a', 4)), undefined, 'an unknown id');
    t.deepEqual(await store.deleteMany(workspace, [ids.next('asset')], author('a', 5)), [], 'a batch that finds nothing');
    t.is(await store.revision(workspace), 1, 'still the first write');
    t.deepEqual(revisionsOf(await store.changesSince(workspace, 0, 10)), [1]);
    t.deepEqual(view(await store.get(workspace, record.id)), view(record), 'the record as first written');
    const next = await store.insert(sampleAsset(workspace), author('a', 6));
    t.is(next.change.revision, 2, 'the next write takes the next revision: no gap');
  });

  define('deleteMany is one revision with a change per removed asset, in the order listed', async (t, store) => {
    const workspace = uniqueName();
    const [a, b, c] = [sampleAsset(workspace), sampleAsset(workspace), sampleAsset(workspace)];
    for (const record of [a, b, c]) await store.insert(record, author('up', 0));
    const foreign = sampleAsset(uniqueName());
    await store.insert(foreign, author('up', 0));
    const removed = await store.deleteMany(workspace, [c.id, ids.next('asset'), a.id, c.id, foreign.id], author('batch', 9));
    t.deepEqual(
      removed.map((write) => view(write.record)),
      [view(c), view(a)],
      'the records it removed, as they were, each once',
    );
    const expected = [c, a].map((record) => ({
      type: 'asset.deleted',
      revision: 4,
      time: new Date(BASE + 9).toISOString(),
      actor: 'batch',
      assetId: record.id,
      asset: undefined,
      previous: undefined,
    }));
    t.deepEqual(
      removed.map((write) => changeView(write.change)),
      expected,
      'one revision for the batch',
    );
    t.deepEqual((await store.changesSince(workspace, 3, 10))?.map(changeView), expected, 'logged as one revision, in order');
    t.is(await store.revision(workspace), 4);
    t.is(await store.get(workspace, a.id), undefined);
    t.is(await store.get(workspace, c.id), undefined);
    t.deepEqual(view(await store.get(workspace, b.id)), view(b), 'an asset not listed stays');
    t.deepEqual(view(await store.get(foreign.workspace, foreign.id)), view(foreign), "another workspace's asset stays");
    const single = await store.deleteMany(workspace, [b.id], author('batch', 10));
    t.deepEqual(revisionsOf(single.map((write) => write.change)), [5]);
  });

  define('changesSince counts whole revisions; concurrent writes get gap-free revisions, logged in commit order', async (t, store) => {
    const workspace = uniqueName();
    const records = Array.from({ length: 10 }, () => sampleAsset(workspace));
    const results = await Promise.allSettled(records.map((record, i) => store.insert(record, author(`w${i}`, i))));
    const { fulfilled, rejectedCodes } = tally(results);
    t.deepEqual(rejectedCodes, []);
    t.deepEqual(
      fulfilled.map((write) => write.change.revision).sort((x, y) => x - y),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    const swaps = await Promise.all(
      records.slice(0, 4).map((record) => store.swap(workspace, record.id, 1, sampleContent(workspace), {}, author('s', 20))),
    );
    const batch = await store.deleteMany(
      workspace,
      records.slice(4, 7).map((record) => record.id),
      author('d', 30),
    );
    const byRevision = [...fulfilled, ...swaps.filter((write): write is AssetWrite => write !== undefined), ...batch].sort(
      (x, y) => x.change.revision - y.change.revision,
    );
    const all = await store.changesSince(workspace, 0, 100);
    t.deepEqual(
      all?.map((change) => [change.revision, change.type, change.assetId]),
      byRevision.map((write) => [write.change.revision, write.change.type, write.record.id]),
      'every change once, at the revision its write returned',
    );
    t.deepEqual(revisionsOf(await store.changesSince(workspace, 13, 2)), [14, 15, 15, 15], 'two revisions: the batch whole');
    t.deepEqual(revisionsOf(await store.changesSince(workspace, 14, 1)), [15, 15, 15], 'one revision: the batch whole');
    t.deepEqual(await store.changesSince(workspace, 15, 10), [], 'nothing after the current revision');
    t.is(await store.changesSince(workspace, 16, 10), undefined, 'a revision the workspace never had');
    t.is(await store.changesSince(workspace, -1, 10), undefined, 'a negative revision');
  });

  define("history lists one asset's changes newest first, by revision cursor; a deleted asset's stay", async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    const other = sampleAsset(workspace);
    await store.insert(record, author('a', 1));
    await store.insert(other, author('a', 2));
    await store.update(workspace, record.id, { label: 'one' }, author('a', 3));
    await store.update(workspace, other.id, { label: 'two' }, author('a', 4));
    await store.swap(workspace, record.id, 1, sampleContent(workspace), {}, author('a', 5));
    await store.deleteMany(workspace, [other.id, record.id], author('a', 6));
    const history = async (before: number | undefined, limit: number) =>
      (await store.history(workspace, record.id, { before, limit })).map((change) => [change.revision, change.type]);
    const newestFirst = [
      [6, 'asset.deleted'],
      [5, 'asset.replaced'],
      [3, 'asset.updated'],
      [1, 'asset.created'],
    ];
    t.deepEqual(await history(undefined, 10), newestFirst, 'only this asset, newest first, after its delete too');
    t.deepEqual(await history(undefined, 2), newestFirst.slice(0, 2), 'at most limit');
    t.deepEqual(await history(5, 2), newestFirst.slice(2), 'below the cursor');
    t.deepEqual(await history(1, 2), [], 'nothing below the first');
    t.deepEqual(await store.history(uniqueName(), record.id, { limit: 10 }), [], 'another workspace sees none');
    t.deepEqual(await store.history(workspace, ids.next('asset'), { limit: 10 }), [], 'an unknown asset has none');
  });

  defineCase(
    test,
    options,
    `AssetStore keeps the last ${SMALL_ASSET_HISTORY} revisions whole; older ones are past (undefined), in changesSince and history`,
    async (t, store) => {
      const workspace = uniqueName();
      const records = Array.from({ length: 4 }, () => sampleAsset(workspace));
      for (const record of records) await store.insert(record, author('a', 0));
      await store.deleteMany(workspace, [records[0]!.id, records[1]!.id], author('a', 1));
      await store.update(workspace, records[2]!.id, { label: 'x' }, author('a', 2));
      // Revisions 1-4 created, 5 the batch, 6 the update: 4, 5 and 6 are kept.
      t.is(await store.revision(workspace), 6);
      t.deepEqual(revisionsOf(await store.changesSince(workspace, 3, 10)), [4, 5, 5, 6], 'the kept revisions, the batch whole');
      t.is(await store.changesSince(workspace, 2, 10), undefined, 'one revision further back is no longer kept');
      t.is(await store.changesSince(workspace, 0, 10), undefined, 'nor is the start');
      t.deepEqual(
        (await store.history(workspace, records[2]!.id, { limit: 10 })).map((change) => change.revision),
        [6],
        'history within the kept revisions only',
      );
      t.deepEqual(
        (await store.history(workspace, records[0]!.id, { limit: 10 })).map((change) => change.type),
        ['asset.deleted'],
        "a deleted asset's kept change",
      );
      for (let i = 0; i < 70; i++) await store.update(workspace, records[3]!.id, { label: `l${i}` }, author('a', 3 + i));
      t.deepEqual(revisionsOf(await store.changesSince(workspace, 73, 10)), [74, 75, 76], 'still exactly the last revisions');
      t.is(await store.changesSince(workspace, 72, 10), undefined);
      t.deepEqual(
        (await store.history(workspace, records[3]!.id, { limit: 10 })).map((change) => change.revision),
        [76, 75, 74],
      );
    },
    createWithHistory,
  );
}

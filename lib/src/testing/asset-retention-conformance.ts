import type { AssetStore } from '../ports/asset-store.js';
import type { AssetVersionRecord } from '../ports/asset-retention.js';
import type { ChangeAuthor } from '../ports/asset-change-log.js';
import type { Check } from './assertions.js';
import { uniqueName } from './conformance.js';
import { ids, sampleAsset, sampleContent, view } from './asset-samples.js';

// The AssetStore's versions and trash (issue 43): what a swap keeps, trims and restores; what a delete moves, and
// what a restore or a purge does, each with its change in the log.

type Define = (title: string, body: (t: Check, store: AssetStore) => Promise<void>) => void;

const BASE = Date.parse('2025-07-08T09:10:11.012Z');
const at = (actor: string, ms: number): ChangeAuthor => ({ actor, time: new Date(BASE + ms) });

/** A version's fields that the cases compare. */
function versionView(version: AssetVersionRecord | undefined): unknown {
  if (!version) return version;
  return {
    id: version.id,
    assetId: version.assetId,
    workspace: version.workspace,
    blobKey: version.blobKey,
    sha256: version.sha256,
    size: version.size,
    type: version.type,
    name: version.name,
    actor: version.actor,
    width: version.width,
    uploadedAt: version.uploadedAt.toISOString(),
    replacedAt: version.replacedAt.toISOString(),
  };
}

export function assetRetentionCases(define: Define): void {
  define('a swap with keepVersion keeps the displaced file with its uploader and name, newest first, trimmed to keep', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, at('alice', 0));
    const contents = [1, 2, 3].map((i) => sampleContent(workspace, { size: 100 + i }));
    const versionIds: string[] = [];
    let version = 1;
    const dropped: (readonly AssetVersionRecord[] | undefined)[] = [];
    for (const [i, content] of contents.entries()) {
      const versionId = ids.next('version');
      versionIds.push(versionId);
      const name = `file-${i}.png`;
      const written = await store.swap(
        workspace,
        record.id,
        version++,
        content,
        { name, keepVersion: { versionId, keep: 2 } },
        at(`u${i}`, 10 + i),
      );
      t.truthy(written, `swap ${i}`);
      dropped.push(written?.droppedVersions);
    }
    const versions = await store.listVersions(workspace, record.id);
    t.deepEqual(
      versions.map((v) => [v.id, v.sha256, v.size, v.name, v.actor, v.replacedAt.toISOString()]),
      [
        [versionIds[2], contents[1]!.sha256, 102, 'file-1.png', 'u1', new Date(BASE + 12).toISOString()],
        [versionIds[1], contents[0]!.sha256, 101, 'file-0.png', 'u0', new Date(BASE + 11).toISOString()],
      ],
      'the two newest, each with the name and uploader it had',
    );
    t.deepEqual(
      dropped.map((list) => (list ?? []).map((v) => v.id)),
      [[], [], [versionIds[0]]],
      'the third swap dropped the oldest',
    );
    t.deepEqual(versionView(dropped[2]?.[0]), {
      id: versionIds[0],
      assetId: record.id,
      workspace,
      blobKey: record.blobKey,
      sha256: record.sha256,
      size: record.size,
      type: record.type,
      name: record.name,
      actor: 'alice',
      width: record.width,
      uploadedAt: record.uploadedAt.toISOString(),
      replacedAt: new Date(BASE + 10).toISOString(),
    });
    t.true(await store.hasBlobKey(contents[0]!.blobKey), "a version's blob is pointed at");
    t.false(await store.hasBlobKey(record.blobKey), 'a dropped version is not');
    t.is(await store.getByBlobId(contents[0]!.blobId), undefined, "a version's blob id finds no current file");
    t.deepEqual(versionView(await store.getVersion(workspace, record.id, versionIds[1]!)), versionView(versions[1]));
    t.is(await store.getVersion(uniqueName(), record.id, versionIds[1]!), undefined, 'another workspace');
    t.deepEqual(await store.listVersions(uniqueName(), record.id), [], 'another workspace lists none');
    const plain = await store.swap(workspace, record.id, version, sampleContent(workspace), {}, at('x', 20));
    t.is(plain?.droppedVersions, undefined, 'a swap without keepVersion keeps and drops nothing');
    t.is((await store.listVersions(workspace, record.id)).length, 2);
  });

  define('a swap with restoreVersion makes the version current, keeps the displaced one, and logs a restore', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace);
    await store.insert(record, at('alice', 0));
    const second = sampleContent(workspace, { size: 222 });
    const first = ids.next('version');
    await store.swap(workspace, record.id, 1, second, { keepVersion: { versionId: first, keep: 5 } }, at('bob', 1));
    const [kept] = await store.listVersions(workspace, record.id);
    const { id: _id, workspace: _w, assetId: _a, name, actor: _actor, replacedAt: _r, ...content } = kept!;
    const next = ids.next('version');
    const written = await store.swap(
      workspace,
      record.id,
      2,
      content,
      { name, restoreVersion: first, keepVersion: { versionId: next, keep: 5 } },
      at('carol', 2),
    );
    t.is(written?.record.blobKey, record.blobKey, 'the first file is current again');
    t.is(written?.record.sha256, record.sha256);
    t.is(written?.record.version, 3);
    t.deepEqual(
      [written?.change.type, written?.change.reason, written?.change.versionIds],
      ['asset.replaced', 'restore', [first]],
      'an asset.replaced that says it was a restore, of which version',
    );
    const versions = await store.listVersions(workspace, record.id);
    t.deepEqual(
      versions.map((v) => [v.id, v.blobKey, v.actor]),
      [[next, second.blobKey, 'bob']],
      'the restored version left the list; the displaced file joined it',
    );
    const again = await store.swap(workspace, record.id, 3, content, { restoreVersion: first }, at('dave', 3));
    t.is(again, undefined, 'a version restored already cannot be restored again: nothing written');
    t.is(await store.revision(workspace), 3, 'no revision for it');
    const [logged] = (await store.changesSince(workspace, 2, 1)) ?? [];
    t.deepEqual([logged?.reason, logged?.versionIds], ['restore', [first]], 'the log keeps why');
  });

  define(
    'delete to the trash: gone from get, list and urls; listed with who and when; restored with a new link epoch',
    async (t, store) => {
      const workspace = uniqueName();
      const record = sampleAsset(workspace);
      await store.insert(record, at('alice', 0));
      const versionId = ids.next('version');
      const content = sampleContent(workspace, { size: 50 });
      await store.swap(workspace, record.id, 1, content, { keepVersion: { versionId, keep: 5 } }, at('bob', 1));
      const removed = await store.delete(workspace, record.id, at('erin', 2), { trash: true });
      t.deepEqual([removed?.change.type, removed?.change.reason, removed?.droppedVersions], ['asset.deleted', undefined, undefined]);
      t.is(await store.get(workspace, record.id), undefined);
      t.is(await store.getByBlobId(content.blobId), undefined, 'its url finds nothing');
      t.deepEqual(await store.list(workspace, { limit: 10 }), []);
      t.deepEqual(await store.listVersions(workspace, record.id), [], 'a trashed asset lists no versions');
      t.true(await store.hasBlobKey(content.blobKey), "the trashed file's blob is still pointed at");
      t.true(await store.hasBlobKey(record.blobKey), "and its version's");
      const trash = await store.listTrash(workspace, { limit: 10 });
      t.deepEqual(
        trash.map((entry) => [entry.id, entry.name, entry.label, entry.deletedBy, entry.deletedAt.toISOString(), entry.blobKey]),
        [[record.id, record.name, record.label, 'erin', new Date(BASE + 2).toISOString(), content.blobKey]],
      );
      t.deepEqual(await store.listTrash(workspace, { limit: 10, deletedBefore: new Date(BASE + 2) }), [], 'deletedBefore is strict');
      t.deepEqual(await store.listTrash(uniqueName(), { limit: 10 }), [], 'another workspace');
      t.deepEqual(await store.usage(workspace), { assets: 0, bytes: 0, versionBytes: 0, trashBytes: 50 + record.size });
      t.deepEqual(await store.retainingWorkspaces().then((names) => names.includes(workspace)), true);

      t.is(await store.restoreFromTrash(uniqueName(), record.id, at('x', 3)), undefined, "another workspace's trash");
      const back = await store.restoreFromTrash(workspace, record.id, at('frank', 4));
      t.deepEqual([back?.change.type, back?.change.reason, back?.change.actor], ['asset.created', 'restore', 'frank']);
      t.deepEqual(
        view(await store.get(workspace, record.id)),
        view({ ...record, ...content, version: 2, width: content.width, height: content.height, linkEpoch: 1 }),
        'back with id, name, label, visibility and file; links signed before stay dead',
      );
      t.deepEqual(view(back?.record), view(await store.get(workspace, record.id)));
      t.is((await store.getByBlobId(content.blobId))?.id, record.id, 'its url works again');
      t.deepEqual(
        (await store.listVersions(workspace, record.id)).map((v) => v.id),
        [versionId],
        'with its versions',
      );
      t.deepEqual(await store.listTrash(workspace, { limit: 10 }), []);
      t.is(await store.restoreFromTrash(workspace, record.id, at('x', 5)), undefined, 'not in the trash any more');
      t.deepEqual(await store.usage(workspace), { assets: 1, bytes: 50, versionBytes: record.size, trashBytes: 0 });
    },
  );

  define(
    'purges: from the trash and with purge, each the row and its versions, logged, the name cleared from the log',
    async (t, store) => {
      const workspace = uniqueName();
      const [a, b, c] = [sampleAsset(workspace), sampleAsset(workspace), sampleAsset(workspace)];
      for (const record of [a, b, c]) await store.insert(record, at('up', 0));
      const versionOfA = ids.next('version');
      const newA = sampleContent(workspace);
      await store.swap(workspace, a.id, 1, newA, { keepVersion: { versionId: versionOfA, keep: 5 } }, at('up', 1));
      await store.delete(workspace, a.id, at('del', 2), { trash: true });
      const purged = await store.purgeFromTrash(workspace, a.id, at('admin', 3));
      t.deepEqual([purged?.change.type, purged?.change.reason, purged?.change.actor], ['asset.deleted', 'purge', 'admin']);
      t.deepEqual(
        purged?.droppedVersions?.map((v) => v.blobKey),
        [a.blobKey],
        'its versions, for their blobs',
      );
      t.is(purged?.record.blobKey, newA.blobKey, 'and its file');
      t.false(await store.hasBlobKey(newA.blobKey));
      t.false(await store.hasBlobKey(a.blobKey));
      t.is(await store.purgeFromTrash(workspace, a.id, at('admin', 4)), undefined, 'purged already');
      t.is(await store.purgeFromTrash(workspace, b.id, at('admin', 4)), undefined, 'a live asset is not in the trash');
      t.deepEqual(await store.listTrash(workspace, { limit: 10 }), []);
      const history = await store.history(workspace, a.id, { limit: 10 });
      t.deepEqual(
        history.map((change) => [change.type, change.asset?.name]),
        [
          ['asset.deleted', undefined],
          ['asset.deleted', undefined],
          ['asset.replaced', ''],
          ['asset.created', ''],
        ],
        "no change of the log names the purged asset's file any more",
      );

      const versionOfB = ids.next('version');
      await store.swap(workspace, b.id, 1, sampleContent(workspace), { keepVersion: { versionId: versionOfB, keep: 5 } }, at('up', 5));
      const gone = await store.delete(workspace, b.id, at('admin', 6), { purge: true });
      t.deepEqual([gone?.change.type, gone?.change.reason], ['asset.deleted', 'purge']);
      t.deepEqual(
        gone?.droppedVersions?.map((v) => v.id),
        [versionOfB],
      );
      t.deepEqual(await store.listTrash(workspace, { limit: 10 }), [], 'purge skips the trash');
      t.true(
        (await store.history(workspace, b.id, { limit: 10 })).every((change) => !change.asset?.name),
        'names cleared',
      );
      t.is((await store.history(workspace, c.id, { limit: 10 }))[0]?.asset?.name, c.name, "another asset's changes keep theirs");

      const plain = await store.delete(workspace, c.id, at('x', 7));
      t.deepEqual([plain?.change.reason, plain?.droppedVersions], [undefined, undefined], 'a plain delete: no trash, no reason');
      t.deepEqual(await store.usage(workspace), { assets: 0, bytes: 0, versionBytes: 0, trashBytes: 0 });
    },
  );

  define(
    'expiredVersions finds versions past keep or too old, of live assets only; purgeVersions removes them, logged',
    async (t, store) => {
      const workspace = uniqueName();
      const record = sampleAsset(workspace);
      const trashed = sampleAsset(workspace);
      await store.insert(record, at('up', 0));
      await store.insert(trashed, at('up', 0));
      const kept: string[] = [];
      for (let i = 1; i <= 4; i++) {
        const versionId = ids.next('version');
        kept.push(versionId);
        await store.swap(workspace, record.id, i, sampleContent(workspace), { keepVersion: { versionId, keep: 10 } }, at('up', i * 1000));
      }
      await store.swap(
        workspace,
        trashed.id,
        1,
        sampleContent(workspace),
        { keepVersion: { versionId: ids.next('version'), keep: 10 } },
        at('up', 1),
      );
      await store.delete(workspace, trashed.id, at('up', 2), { trash: true });
      const expired = async (keep: number, ms: number) =>
        (await store.expiredVersions(workspace, { keep, replacedBefore: new Date(BASE + ms), limit: 100 })).map((v) => v.id).sort();
      t.deepEqual(await expired(10, 0), [], 'none too old or too many');
      t.deepEqual(await expired(10, 2001), [kept[0], kept[1]].sort(), 'made before the cutoff (strictly)');
      t.deepEqual(await expired(1, 0), [kept[0], kept[1], kept[2]].sort(), 'past the newest one');
      t.deepEqual(await expired(0, 0), [...kept].sort(), 'keep 0: every one');
      t.deepEqual(await store.expiredVersions(uniqueName(), { keep: 0, replacedBefore: new Date(BASE + 1e9), limit: 10 }), []);

      const purged = await store.purgeVersions(workspace, record.id, [kept[0]!, kept[1]!, ids.next('version')], at('gc', 9));
      t.deepEqual(
        [purged?.change.type, purged?.change.reason, [...(purged?.change.versionIds ?? [])].sort()],
        ['asset.updated', 'purge', [kept[0], kept[1]].sort()],
      );
      t.deepEqual(purged?.droppedVersions?.map((v) => v.id).sort(), [kept[0], kept[1]].sort());
      t.deepEqual(
        (await store.listVersions(workspace, record.id)).map((v) => v.id),
        [kept[3], kept[2]],
      );
      const revision = await store.revision(workspace);
      t.is(await store.purgeVersions(workspace, record.id, [kept[0]!], at('gc', 10)), undefined, 'none left to purge');
      t.is(await store.purgeVersions(workspace, trashed.id, [kept[2]!], at('gc', 10)), undefined, 'not a live asset');
      t.is(await store.revision(workspace), revision, 'no revision for nothing');
    },
  );
}

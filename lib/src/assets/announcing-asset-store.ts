import type { AssetWrite } from '../ports/asset-change-log.js';
import type { AssetStore } from '../ports/asset-store.js';

/** Told of every committed write: its workspace, the revision it made and the assets it changed. */
export type AssetRevisionSink = (workspace: string, revision: number, assetIds: readonly string[]) => void;

/**
 * The same store, telling `changed` of each revision a write commits (an
 * insert, swap, update, delete, batch delete, restore or purge that stood), whichever path
 * made it: multipart, gRPC, tus, batch deletes. Writes that made no revision
 * (nothing found, a lost swap) tell nothing. The asset watchers of this
 * process wake on it, and the change feed carries it to the others.
 */
export function announcingAssetStore(store: AssetStore, changed: AssetRevisionSink): AssetStore {
  const told = (workspace: string, write: AssetWrite | undefined): void => {
    if (write) changed(workspace, write.change.revision, [write.record.id]);
  };
  return Object.freeze({
    get: (workspace, id) => store.get(workspace, id),
    getByBlobId: (blobId) => store.getByBlobId(blobId),
    hasBlobKey: (blobKey) => store.hasBlobKey(blobKey),
    list: (workspace, query) => store.list(workspace, query),
    revision: (workspace) => store.revision(workspace),
    changesSince: (workspace, revision, limit) => store.changesSince(workspace, revision, limit),
    history: (workspace, assetId, query) => store.history(workspace, assetId, query),
    usage: (workspace) => store.usage(workspace),
    listForFacts: (query) => store.listForFacts(query),
    setFacts: (workspace, id, blobId, facts) => store.setFacts(workspace, id, blobId, facts),
    getPolicy: (workspace) => store.getPolicy(workspace),
    setPolicy: (workspace, policy) => store.setPolicy(workspace, policy),
    listVersions: (workspace, assetId) => store.listVersions(workspace, assetId),
    getVersion: (workspace, assetId, versionId) => store.getVersion(workspace, assetId, versionId),
    listTrash: (workspace, query) => store.listTrash(workspace, query),
    expiredVersions: (workspace, query) => store.expiredVersions(workspace, query),
    retainingWorkspaces: () => store.retainingWorkspaces(),
    async restoreFromTrash(workspace, id, author) {
      const write = await store.restoreFromTrash(workspace, id, author);
      told(workspace, write);
      return write;
    },
    async purgeFromTrash(workspace, id, author) {
      const write = await store.purgeFromTrash(workspace, id, author);
      told(workspace, write);
      return write;
    },
    async purgeVersions(workspace, assetId, versionIds, author) {
      const write = await store.purgeVersions(workspace, assetId, versionIds, author);
      told(workspace, write);
      return write;
    },
    async insert(record, author) {
      const write = await store.insert(record, author);
      told(record.workspace, write);
      return write;
    },
    async swap(workspace, id, expectedVersion, content, attributes, author) {
      const write = await store.swap(workspace, id, expectedVersion, content, attributes, author);
      told(workspace, write);
      return write;
    },
    async update(workspace, id, changes, author) {
      const write = await store.update(workspace, id, changes, author);
      told(workspace, write);
      return write;
    },
    async delete(workspace, id, author, mode) {
      const write = await store.delete(workspace, id, author, mode);
      told(workspace, write);
      return write;
    },
    async deleteMany(workspace, ids, author, mode) {
      const writes = await store.deleteMany(workspace, ids, author, mode);
      // One revision for the whole batch.
      const last = writes.at(-1);
      if (last)
        changed(
          workspace,
          last.change.revision,
          writes.map((write) => write.record.id),
        );
      return writes;
    },
  } satisfies AssetStore);
}

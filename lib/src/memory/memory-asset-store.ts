import { SwitchyardError } from '../errors.js';
import type {
  AssetChanges,
  AssetContent,
  AssetListQuery,
  AssetRecord,
  AssetStore,
  FactsQuery,
  SwapAttributes,
} from '../ports/asset-store.js';
import { dropUndefined, type StoredFacts } from '../assets/media/media-facts.js';
import { nameKey } from '../assets/asset-name.js';
import type { StoredWorkspacePolicy } from '../assets/workspace-policy.js';
import type { MemoryOutbox } from './memory-outbox.js';
import { assetChangeEvent } from '../webhooks/webhook-events.js';
import type { AssetChangeDraft, AssetChangeRecord, AssetHistoryQuery, AssetWrite, ChangeAuthor } from '../ports/asset-change-log.js';
import type {
  AssetUsage,
  AssetVersionRecord,
  DeleteMode,
  ExpiredVersionsQuery,
  TrashedAssetRecord,
  TrashQuery,
} from '../ports/asset-retention.js';

/** Revisions of a workspace's assets kept in its change log (watchers further behind are told to list again). */
export const DEFAULT_ASSET_HISTORY = 10_000;

interface WorkspaceLog {
  revision: number;
  /** Oldest first; the changes of the last `history` revisions, each revision whole. */
  readonly changes: AssetChangeRecord[];
}

/** AssetStore in process memory. Operations are synchronous inside, so swaps are atomic and a write and its change are one step. */
export class MemoryAssetStore implements AssetStore {
  readonly #byId = new Map<string, AssetRecord>();
  readonly #policies = new Map<string, StoredWorkspacePolicy>();
  readonly #logs = new Map<string, WorkspaceLog>();
  readonly #history: number;
  /** Who uploaded each asset's current file (live or trashed), by asset id. */
  readonly #uploaders = new Map<string, string>();
  /** Each asset's versions (live or trashed), oldest first. */
  readonly #versions = new Map<string, AssetVersionRecord[]>();
  readonly #trash = new Map<string, TrashedAssetRecord>();

  readonly #outbox: MemoryOutbox | undefined;

  constructor(options: { history?: number; outbox?: MemoryOutbox } = {}) {
    this.#history = options.history ?? DEFAULT_ASSET_HISTORY;
    this.#outbox = options.outbox;
  }

  async insert(record: AssetRecord, author: ChangeAuthor): Promise<AssetWrite> {
    if (this.#byId.has(record.id) || this.#trash.has(record.id)) throw new SwitchyardError('already_exists', 'asset id already exists');
    const stored = freezeAsset(record);
    this.#byId.set(record.id, stored);
    this.#uploaders.set(record.id, author.actor);
    return this.#logOne(stored, author, { type: 'asset.created', assetId: stored.id, asset: stored });
  }

  async get(workspace: string, id: string): Promise<AssetRecord | undefined> {
    const record = this.#byId.get(id);
    return record?.workspace === workspace ? record : undefined;
  }

  async getByBlobId(blobId: string): Promise<AssetRecord | undefined> {
    for (const record of this.#byId.values()) if (record.blobId === blobId) return record;
    return undefined;
  }

  async swap(
    workspace: string,
    id: string,
    expectedVersion: number,
    content: AssetContent,
    attributes: SwapAttributes,
    author: ChangeAuthor,
  ): Promise<AssetWrite | undefined> {
    const current = this.#byId.get(id);
    if (!current || current.workspace !== workspace || current.version !== expectedVersion) return undefined;
    const versions = this.#versions.get(id) ?? [];
    const restored = attributes.restoreVersion === undefined ? undefined : versions.find((v) => v.id === attributes.restoreVersion);
    if (attributes.restoreVersion !== undefined && restored === undefined) return undefined;
    let kept = versions.filter((version) => version !== restored);
    let dropped: AssetVersionRecord[] = [];
    if (attributes.keepVersion) {
      kept.push(
        Object.freeze({
          ...factsOf(current),
          id: attributes.keepVersion.versionId,
          workspace,
          assetId: id,
          blobId: current.blobId,
          blobKey: current.blobKey,
          type: current.type,
          size: current.size,
          sha256: current.sha256,
          uploadedAt: current.uploadedAt,
          name: current.name,
          actor: this.#uploaders.get(id) ?? '',
          replacedAt: new Date(author.time.getTime()),
        }),
      );
      const cut = Math.max(0, kept.length - attributes.keepVersion.keep);
      dropped = kept.slice(0, cut);
      kept = kept.slice(cut);
    }
    this.#versions.set(id, kept);
    this.#uploaders.set(id, restored ? restored.actor : author.actor);
    const next = freezeAsset({
      ...withoutFacts(current),
      blobId: content.blobId,
      blobKey: content.blobKey,
      type: content.type,
      size: content.size,
      sha256: content.sha256,
      ...factsOf(content),
      uploadedAt: content.uploadedAt,
      version: current.version + 1,
      visibility: attributes.visibility ?? current.visibility,
      name: attributes.name ?? current.name,
    });
    this.#byId.set(id, next);
    const previous = { type: current.type, size: current.size, sha256: current.sha256 };
    const why = restored ? { reason: 'restore' as const, versionIds: [restored.id] } : {};
    const write = this.#logOne(next, author, { type: 'asset.replaced', assetId: id, asset: next, previous, ...why });
    return dropped.length > 0 ? { ...write, droppedVersions: dropped } : write;
  }

  async update(workspace: string, id: string, changes: AssetChanges, author: ChangeAuthor): Promise<AssetWrite | undefined> {
    const current = this.#byId.get(id);
    if (current?.workspace !== workspace) return undefined;
    const next = freezeAsset({
      ...current,
      label: changes.label ?? current.label,
      name: changes.name ?? current.name,
      visibility: changes.visibility ?? current.visibility,
      linkEpoch: current.linkEpoch + (changes.revokeLinks ? 1 : 0),
    });
    this.#byId.set(id, next);
    return this.#logOne(next, author, { type: 'asset.updated', assetId: id, asset: next });
  }

  async getPolicy(workspace: string): Promise<StoredWorkspacePolicy | undefined> {
    return this.#policies.get(workspace);
  }

  async setPolicy(workspace: string, policy: StoredWorkspacePolicy): Promise<void> {
    this.#policies.set(workspace, Object.freeze({ ...policy, allowedTypes: Object.freeze([...policy.allowedTypes]) }));
  }

  async hasBlobKey(blobKey: string): Promise<boolean> {
    for (const record of this.#byId.values()) if (record.blobKey === blobKey) return true;
    for (const record of this.#trash.values()) if (record.blobKey === blobKey) return true;
    for (const versions of this.#versions.values()) if (versions.some((version) => version.blobKey === blobKey)) return true;
    return false;
  }

  async list(workspace: string, query: AssetListQuery): Promise<AssetRecord[]> {
    const matches = [...this.#byId.values()].filter(
      (record) =>
        record.workspace === workspace &&
        (query.before === undefined || record.id < query.before) &&
        (query.label === undefined || record.label === query.label) &&
        (query.namePrefix === undefined || nameKey(record.name).startsWith(query.namePrefix)) &&
        (query.type === undefined ||
          ('exact' in query.type ? record.type === query.type.exact : record.type.startsWith(query.type.prefix))),
    );
    return matches.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, query.limit);
  }

  async usage(workspace: string): Promise<AssetUsage> {
    let assets = 0;
    let bytes = 0;
    let versionBytes = 0;
    let trashBytes = 0;
    const sizeOfVersions = (id: string) => (this.#versions.get(id) ?? []).reduce((sum, version) => sum + version.size, 0);
    for (const record of this.#byId.values()) {
      if (record.workspace !== workspace) continue;
      assets += 1;
      bytes += record.size;
      versionBytes += sizeOfVersions(record.id);
    }
    for (const record of this.#trash.values()) if (record.workspace === workspace) trashBytes += record.size + sizeOfVersions(record.id);
    return { assets, bytes, versionBytes, trashBytes };
  }

  async listForFacts(query: FactsQuery): Promise<AssetRecord[]> {
    const matches = [...this.#byId.values()].filter(
      (record) => (record.factsVersion ?? 0) < query.belowVersion && (query.after === undefined || record.id > query.after),
    );
    return matches.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, query.limit);
  }

  async setFacts(workspace: string, id: string, blobId: string, facts: StoredFacts): Promise<AssetRecord | undefined> {
    const current = this.#byId.get(id);
    if (current?.workspace !== workspace || current.blobId !== blobId) return undefined;
    const next = freezeAsset({ ...withoutFacts(current), ...factsOf(facts) });
    this.#byId.set(id, next);
    return next;
  }

  async delete(workspace: string, id: string, author: ChangeAuthor, mode: DeleteMode = {}): Promise<AssetWrite | undefined> {
    return (await this.deleteMany(workspace, [id], author, mode))[0];
  }

  async deleteMany(workspace: string, ids: readonly string[], author: ChangeAuthor, mode: DeleteMode = {}): Promise<AssetWrite[]> {
    const removed: AssetRecord[] = [];
    for (const id of ids) {
      const record = this.#byId.get(id);
      if (record?.workspace !== workspace) continue;
      this.#byId.delete(id);
      removed.push(record);
    }
    if (removed.length === 0) return [];
    const time = new Date(author.time.getTime());
    const dropped = new Map<string, AssetVersionRecord[]>();
    for (const record of removed) {
      if (mode.trash) {
        this.#trash.set(record.id, Object.freeze({ ...record, deletedAt: time, deletedBy: author.actor }));
        continue;
      }
      dropped.set(record.id, this.#forget(record.id));
      if (mode.purge) this.#redact(workspace, record.id);
    }
    const why = mode.purge && !mode.trash ? { reason: 'purge' as const } : {};
    const changes = this.#log(
      workspace,
      author,
      removed.map((record) => ({ type: 'asset.deleted', assetId: record.id, ...why })),
    );
    return removed.map((record, i) => withDropped({ record, change: changes[i]! }, dropped.get(record.id)));
  }

  async listVersions(workspace: string, assetId: string): Promise<AssetVersionRecord[]> {
    if (this.#byId.get(assetId)?.workspace !== workspace) return [];
    return [...(this.#versions.get(assetId) ?? [])].reverse();
  }

  async getVersion(workspace: string, assetId: string, versionId: string): Promise<AssetVersionRecord | undefined> {
    return (await this.listVersions(workspace, assetId)).find((version) => version.id === versionId);
  }

  async listTrash(workspace: string, query: TrashQuery): Promise<TrashedAssetRecord[]> {
    const matches = [...this.#trash.values()].filter(
      (record) =>
        record.workspace === workspace &&
        (query.before === undefined || record.id < query.before) &&
        (query.deletedBefore === undefined || record.deletedAt < query.deletedBefore),
    );
    return matches.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, query.limit);
  }

  async restoreFromTrash(workspace: string, id: string, author: ChangeAuthor): Promise<AssetWrite | undefined> {
    const trashed = this.#trash.get(id);
    if (trashed?.workspace !== workspace) return undefined;
    this.#trash.delete(id);
    const { deletedAt: _at, deletedBy: _by, ...record } = trashed;
    const back = freezeAsset({ ...record, linkEpoch: record.linkEpoch + 1 });
    this.#byId.set(id, back);
    return this.#logOne(back, author, { type: 'asset.created', assetId: id, asset: back, reason: 'restore' });
  }

  async purgeFromTrash(workspace: string, id: string, author: ChangeAuthor): Promise<AssetWrite | undefined> {
    const trashed = this.#trash.get(id);
    if (trashed?.workspace !== workspace) return undefined;
    this.#trash.delete(id);
    const dropped = this.#forget(id);
    this.#redact(workspace, id);
    const { deletedAt: _at, deletedBy: _by, ...record } = trashed;
    const [change] = this.#log(workspace, author, [{ type: 'asset.deleted', assetId: id, reason: 'purge' }]);
    return withDropped({ record: freezeAsset(record), change: change! }, dropped);
  }

  async expiredVersions(workspace: string, query: ExpiredVersionsQuery): Promise<AssetVersionRecord[]> {
    const expired: AssetVersionRecord[] = [];
    for (const record of this.#byId.values()) {
      if (record.workspace !== workspace) continue;
      const newestFirst = [...(this.#versions.get(record.id) ?? [])].reverse();
      expired.push(...newestFirst.filter((version, rank) => rank >= query.keep || version.replacedAt < query.replacedBefore));
    }
    return expired.slice(0, query.limit);
  }

  async purgeVersions(
    workspace: string,
    assetId: string,
    versionIds: readonly string[],
    author: ChangeAuthor,
  ): Promise<AssetWrite | undefined> {
    const record = this.#byId.get(assetId);
    if (record?.workspace !== workspace) return undefined;
    const versions = this.#versions.get(assetId) ?? [];
    const dropped = versions.filter((version) => versionIds.includes(version.id));
    if (dropped.length === 0) return undefined;
    this.#versions.set(
      assetId,
      versions.filter((version) => !dropped.includes(version)),
    );
    const versionIdsDropped = dropped.map((version) => version.id);
    const write = this.#logOne(record, author, {
      type: 'asset.updated',
      assetId,
      asset: record,
      reason: 'purge',
      versionIds: versionIdsDropped,
    });
    return { ...write, droppedVersions: dropped };
  }

  async retainingWorkspaces(): Promise<string[]> {
    const workspaces = new Set<string>();
    for (const record of this.#trash.values()) workspaces.add(record.workspace);
    for (const versions of this.#versions.values()) for (const version of versions) workspaces.add(version.workspace);
    return [...workspaces].sort();
  }

  /** Forgets an asset's uploader and versions; answers the versions. */
  #forget(id: string): AssetVersionRecord[] {
    const versions = this.#versions.get(id) ?? [];
    this.#versions.delete(id);
    this.#uploaders.delete(id);
    return versions;
  }

  /** Clears a purged asset's name from the bodies of its kept changes. */
  #redact(workspace: string, id: string): void {
    const changes = this.#logs.get(workspace)?.changes ?? [];
    changes.forEach((change, i) => {
      if (change.assetId !== id || change.asset === undefined) return;
      changes[i] = Object.freeze({ ...change, asset: freezeAsset({ ...change.asset, name: '' }) });
    });
  }

  async revision(workspace: string): Promise<number> {
    return this.#logs.get(workspace)?.revision ?? 0;
  }

  async changesSince(workspace: string, revision: number, limit: number): Promise<AssetChangeRecord[] | undefined> {
    const log = this.#logs.get(workspace);
    const current = log?.revision ?? 0;
    if (revision > current || revision < 0 || revision < current - this.#history) return undefined;
    return (log?.changes ?? []).filter((change) => change.revision > revision && change.revision <= revision + limit);
  }

  async history(workspace: string, assetId: string, query: AssetHistoryQuery): Promise<AssetChangeRecord[]> {
    const changes = this.#logs.get(workspace)?.changes ?? [];
    return changes
      .filter((change) => change.assetId === assetId && (query.before === undefined || change.revision < query.before))
      .reverse()
      .slice(0, query.limit);
  }

  #logOne(record: AssetRecord, author: ChangeAuthor, change: AssetChangeDraft): AssetWrite {
    return { record, change: this.#log(record.workspace, author, [change])[0]! };
  }

  /** Raises the workspace's revision by one and logs `changes` at it; drops what falls out of the history. */
  #log(workspace: string, author: ChangeAuthor, changes: readonly AssetChangeDraft[]): AssetChangeRecord[] {
    let log = this.#logs.get(workspace);
    if (!log) this.#logs.set(workspace, (log = { revision: 0, changes: [] }));
    const revision = ++log.revision;
    const logged = changes.map((change) =>
      Object.freeze({ ...change, revision, actor: author.actor, time: new Date(author.time.getTime()) } as AssetChangeRecord),
    );
    log.changes.push(...logged);
    this.#outbox?.enqueue(
      workspace,
      logged.map((change) => assetChangeEvent(workspace, change)),
    );
    const oldest = log.changes.findIndex((change) => change.revision > revision - this.#history);
    if (oldest > 0) log.changes.splice(0, oldest);
    return logged;
  }
}

function withDropped(write: AssetWrite, dropped: readonly AssetVersionRecord[] | undefined): AssetWrite {
  return dropped && dropped.length > 0 ? { ...write, droppedVersions: dropped } : write;
}

function freezeAsset(record: AssetRecord): AssetRecord {
  return Object.freeze(dropUndefined({ ...record, uploadedAt: new Date(record.uploadedAt), createdAt: new Date(record.createdAt) }));
}

/** A record without its media facts, which go with its file. */
function withoutFacts(record: AssetRecord): AssetRecord {
  const { width: _w, height: _h, durationMs: _d, pages: _p, placeholder: _ph, factsVersion: _v, ...rest } = record;
  return rest;
}

/** The facts of a file, and only those. */
function factsOf(content: AssetContent | StoredFacts): StoredFacts {
  const { width, height, durationMs, pages, placeholder } = content;
  // 0 is an absent key, as in records built before there were facts.
  return dropUndefined({ width, height, durationMs, pages, placeholder, factsVersion: content.factsVersion || undefined }) as StoredFacts;
}

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

  readonly #outbox: MemoryOutbox | undefined;

  constructor(options: { history?: number; outbox?: MemoryOutbox } = {}) {
    this.#history = options.history ?? DEFAULT_ASSET_HISTORY;
    this.#outbox = options.outbox;
  }

  async insert(record: AssetRecord, author: ChangeAuthor): Promise<AssetWrite> {
    if (this.#byId.has(record.id)) throw new SwitchyardError('already_exists', 'asset id already exists');
    const stored = freezeAsset(record);
    this.#byId.set(record.id, stored);
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
    return this.#logOne(next, author, { type: 'asset.replaced', assetId: id, asset: next, previous });
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

  async usage(workspace: string): Promise<{ readonly assets: number; readonly bytes: number }> {
    let assets = 0;
    let bytes = 0;
    for (const record of this.#byId.values()) {
      if (record.workspace !== workspace) continue;
      assets += 1;
      bytes += record.size;
    }
    return { assets, bytes };
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

  async delete(workspace: string, id: string, author: ChangeAuthor): Promise<AssetWrite | undefined> {
    return (await this.deleteMany(workspace, [id], author))[0];
  }

  async deleteMany(workspace: string, ids: readonly string[], author: ChangeAuthor): Promise<AssetWrite[]> {
    const removed: AssetRecord[] = [];
    for (const id of ids) {
      const record = this.#byId.get(id);
      if (record?.workspace !== workspace) continue;
      this.#byId.delete(id);
      removed.push(record);
    }
    if (removed.length === 0) return [];
    const changes = this.#log(
      workspace,
      author,
      removed.map((record) => ({ type: 'asset.deleted', assetId: record.id })),
    );
    return removed.map((record, i) => ({ record, change: changes[i]! }));
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

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

/** AssetStore in process memory. Operations are synchronous inside, so swaps are atomic. */
export class MemoryAssetStore implements AssetStore {
  readonly #byId = new Map<string, AssetRecord>();
  readonly #policies = new Map<string, StoredWorkspacePolicy>();

  async insert(record: AssetRecord): Promise<void> {
    if (this.#byId.has(record.id)) throw new SwitchyardError('already_exists', 'asset id already exists');
    this.#byId.set(record.id, freezeAsset(record));
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
    attributes: SwapAttributes = {},
  ): Promise<AssetRecord | undefined> {
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
    return next;
  }

  async update(workspace: string, id: string, changes: AssetChanges): Promise<AssetRecord | undefined> {
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
    return next;
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

  async delete(workspace: string, id: string): Promise<AssetRecord | undefined> {
    const record = this.#byId.get(id);
    if (record?.workspace !== workspace) return undefined;
    this.#byId.delete(id);
    return record;
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

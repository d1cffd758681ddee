import { SwitchyardError } from '../errors.js';
import type { UploadCommit, UploadRecord, UploadStore } from '../ports/upload-store.js';

interface Entry {
  record: UploadRecord;
  /** When the current finish claim was taken, if one is held. */
  finishingSince: Date | undefined;
  appending: { holder: string; since: Date } | undefined;
}

/** UploadStore in process memory: each operation runs without awaiting inside, so compare-and-set is atomic. */
export class MemoryUploadStore implements UploadStore {
  readonly #byId = new Map<string, Entry>();

  async insert(record: UploadRecord): Promise<void> {
    if (this.#byId.has(record.id)) throw new SwitchyardError('already_exists', 'upload id already exists');
    const { appendLeaseSince: _ignored, ...stored } = record;
    this.#byId.set(record.id, { record: freezeUpload(stored), finishingSince: undefined, appending: undefined });
  }

  async get(workspace: string, id: string): Promise<UploadRecord | undefined> {
    const entry = this.#entry(workspace, id);
    if (!entry) return undefined;
    return entry.appending ? Object.freeze({ ...entry.record, appendLeaseSince: entry.appending.since }) : entry.record;
  }

  async commit(workspace: string, id: string, expectedOffset: number, change: UploadCommit): Promise<UploadRecord | undefined> {
    const entry = this.#entry(workspace, id);
    if (!entry || entry.record.offset !== expectedOffset || entry.record.assetId !== undefined) return undefined;
    if (change.length !== undefined && entry.record.length !== undefined && entry.record.length !== change.length) return undefined;
    const { record } = entry;
    entry.record = freezeUpload({
      ...record,
      offset: record.offset + (change.part?.size ?? 0),
      parts: change.part ? [...record.parts, change.part] : record.parts,
      length: change.length ?? record.length,
      expiresAt: change.expiresAt,
    });
    if (change.holder !== undefined && entry.appending?.holder === change.holder) entry.appending = undefined;
    return entry.record;
  }

  async acquireAppend(workspace: string, id: string, holder: string, now: Date, staleBefore: Date): Promise<boolean> {
    const entry = this.#entry(workspace, id);
    if (!entry || entry.record.assetId !== undefined) return false;
    if (entry.appending !== undefined && entry.appending.holder !== holder && entry.appending.since >= staleBefore) return false;
    entry.appending = { holder, since: now };
    return true;
  }

  async renewAppend(workspace: string, id: string, holder: string, now: Date): Promise<void> {
    const entry = this.#entry(workspace, id);
    if (entry?.appending?.holder === holder) entry.appending = { holder, since: now };
  }

  async releaseAppend(workspace: string, id: string, holder: string): Promise<void> {
    const entry = this.#entry(workspace, id);
    if (entry?.appending?.holder === holder) entry.appending = undefined;
  }

  async claimFinish(workspace: string, id: string, now: Date, staleBefore: Date): Promise<boolean> {
    const entry = this.#entry(workspace, id);
    if (!entry || entry.record.assetId !== undefined) return false;
    if (entry.finishingSince !== undefined && entry.finishingSince >= staleBefore) return false;
    entry.finishingSince = now;
    return true;
  }

  async renewFinish(workspace: string, id: string, claimedAt: Date, now: Date): Promise<boolean> {
    const entry = this.#entry(workspace, id);
    if (!entry || entry.record.assetId !== undefined || entry.finishingSince?.getTime() !== claimedAt.getTime()) return false;
    entry.finishingSince = now;
    return true;
  }

  async releaseFinish(workspace: string, id: string): Promise<void> {
    const entry = this.#entry(workspace, id);
    if (entry) entry.finishingSince = undefined;
  }

  async finish(workspace: string, id: string, assetId: string, expiresAt: Date): Promise<void> {
    const entry = this.#entry(workspace, id);
    if (!entry) return;
    entry.record = freezeUpload({ ...entry.record, assetId, parts: [], expiresAt });
    entry.finishingSince = undefined;
  }

  async delete(workspace: string, id: string, expiredBefore?: Date): Promise<boolean> {
    const entry = this.#entry(workspace, id);
    if (!entry || (expiredBefore !== undefined && entry.record.expiresAt >= expiredBefore)) return false;
    return this.#byId.delete(id);
  }

  async referencesPart(key: string): Promise<boolean> {
    for (const { record } of this.#byId.values()) if (record.parts.some((part) => part.key === key)) return true;
    return false;
  }

  async expired(now: Date, limit: number): Promise<UploadRecord[]> {
    const found: UploadRecord[] = [];
    for (const { record } of this.#byId.values()) {
      if (found.length >= limit) break;
      if (record.expiresAt < now) found.push(record);
    }
    return found;
  }

  async countOpen(now: Date): Promise<number> {
    let open = 0;
    for (const { record } of this.#byId.values()) if (record.assetId === undefined && record.expiresAt >= now) open++;
    return open;
  }

  async has(id: string): Promise<boolean> {
    return this.#byId.has(id);
  }

  #entry(workspace: string, id: string): Entry | undefined {
    const entry = this.#byId.get(id);
    return entry?.record.workspace === workspace ? entry : undefined;
  }
}

function freezeUpload(record: UploadRecord): UploadRecord {
  return Object.freeze({
    ...record,
    parts: Object.freeze(record.parts.map((part) => Object.freeze({ ...part }))),
    intent: Object.freeze({ ...record.intent }),
  });
}

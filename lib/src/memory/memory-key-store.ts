import { SwitchyardError } from '../errors.js';
import type { KeyListQuery, KeyRecord, KeyRoll, KeyStore } from '../ports/key-store.js';

/** KeyStore in process memory; each operation runs without awaiting inside, so it is atomic. */
export class MemoryKeyStore implements KeyStore {
  readonly #byId = new Map<string, KeyRecord>();

  async insert(record: KeyRecord): Promise<void> {
    const taken = [...this.#byId.values()].some((key) => key.id === record.id || this.#holds(key, record.secretDigest));
    if (taken) throw new SwitchyardError('already_exists', 'key id or secret already exists');
    this.#byId.set(record.id, freeze(record));
  }

  async get(workspace: string, id: string): Promise<KeyRecord | undefined> {
    const record = this.#byId.get(id);
    return record?.workspace === workspace ? record : undefined;
  }

  async list(workspace: string, query: KeyListQuery): Promise<KeyRecord[]> {
    const kept = (key: KeyRecord): boolean =>
      key.expiresAt >= query.keptSince && (key.revokedAt === undefined || key.revokedAt >= query.keptSince);
    return [...this.#byId.values()]
      .filter((key) => key.workspace === workspace && (query.after === undefined || key.id > query.after) && kept(key))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, query.limit);
  }

  async findByDigest(digest: string): Promise<KeyRecord | undefined> {
    for (const key of this.#byId.values()) if (this.#holds(key, digest)) return key;
    return undefined;
  }

  async revoke(workspace: string, id: string, at: Date): Promise<KeyRecord | undefined> {
    const record = await this.get(workspace, id);
    if (record === undefined || record.revokedAt !== undefined) return record;
    return this.#put({ ...record, revokedAt: at });
  }

  async roll(workspace: string, id: string, roll: KeyRoll): Promise<KeyRecord | undefined> {
    const record = await this.get(workspace, id);
    if (record === undefined || record.revokedAt !== undefined) return undefined;
    return this.#put({
      ...record,
      secretDigest: roll.secretDigest,
      previousDigest: record.secretDigest,
      previousValidUntil: roll.previousValidUntil,
    });
  }

  async touch(id: string, at: Date, staleBefore: Date): Promise<void> {
    const record = this.#byId.get(id);
    if (record && (record.lastUsedAt === undefined || record.lastUsedAt <= staleBefore)) this.#put({ ...record, lastUsedAt: at });
  }

  async purge(before: Date, limit: number): Promise<number> {
    let purged = 0;
    for (const [id, key] of this.#byId) {
      if (purged >= limit) break;
      if (key.expiresAt < before || (key.revokedAt !== undefined && key.revokedAt < before)) {
        this.#byId.delete(id);
        purged++;
      }
    }
    return purged;
  }

  #holds(key: KeyRecord, digest: string): boolean {
    return key.secretDigest === digest || key.previousDigest === digest;
  }

  #put(record: KeyRecord): KeyRecord {
    const frozen = freeze(record);
    this.#byId.set(record.id, frozen);
    return frozen;
  }
}

function freeze(record: KeyRecord): KeyRecord {
  return Object.freeze({ ...record, scopes: Object.freeze([...record.scopes]) });
}

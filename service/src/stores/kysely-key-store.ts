import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import { isScope, SwitchyardError, type KeyListQuery, type KeyRecord, type KeyRoll, type KeyStore } from '@switchyard/core';
import { databaseError } from './database-errors.js';
import type { ApiKeysTable, Database } from './schema.js';

type KeyRow = Selectable<ApiKeysTable>;

/** KeyStore on MySQL or SQLite: one row per key, looked up by either digest (both indexed). */
export class KyselyKeyStore implements KeyStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(record: KeyRecord): Promise<void> {
    try {
      await this.#db
        .insertInto('api_keys')
        .values({
          id: record.id,
          workspace: record.workspace,
          name: record.name,
          scopes: record.scopes.join(' '),
          created_by: record.createdBy,
          created_at: record.createdAt.getTime(),
          expires_at: record.expiresAt.getTime(),
          last_used_at: record.lastUsedAt?.getTime() ?? null,
          revoked_at: record.revokedAt?.getTime() ?? null,
          secret_digest: record.secretDigest,
          previous_digest: record.previousDigest ?? null,
          previous_valid_until: record.previousValidUntil?.getTime() ?? null,
        })
        .execute();
    } catch (error) {
      throw databaseError(error, () => new SwitchyardError('already_exists', 'key id or secret already exists', [], { cause: error }));
    }
  }

  async get(workspace: string, id: string): Promise<KeyRecord | undefined> {
    return this.#read(async () => {
      const row = await this.#db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .executeTakeFirst();
      return row && toRecord(row);
    });
  }

  async list(workspace: string, query: KeyListQuery): Promise<KeyRecord[]> {
    return this.#read(async () => {
      const since = query.keptSince.getTime();
      let select = this.#db
        .selectFrom('api_keys')
        .selectAll()
        .where('workspace', '=', workspace)
        .where('expires_at', '>=', since)
        .where((eb) => eb.or([eb('revoked_at', 'is', null), eb('revoked_at', '>=', since)]));
      if (query.after !== undefined) select = select.where('id', '>', query.after);
      const rows = await select.orderBy('id').limit(query.limit).execute();
      return rows.map(toRecord);
    });
  }

  async findByDigest(digest: string): Promise<KeyRecord | undefined> {
    return this.#read(async () => {
      // Two lookups, one index each (an OR would not use both everywhere); the current digest is the usual case.
      const current = await this.#db.selectFrom('api_keys').selectAll().where('secret_digest', '=', digest).executeTakeFirst();
      const row = current ?? (await this.#db.selectFrom('api_keys').selectAll().where('previous_digest', '=', digest).executeTakeFirst());
      return row && toRecord(row);
    });
  }

  async revoke(workspace: string, id: string, at: Date): Promise<KeyRecord | undefined> {
    return this.#read(async () => {
      await this.#db
        .updateTable('api_keys')
        .set({ revoked_at: at.getTime() })
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .where('revoked_at', 'is', null)
        .execute();
      return this.get(workspace, id);
    });
  }

  async roll(workspace: string, id: string, roll: KeyRoll): Promise<KeyRecord | undefined> {
    return this.#read(async () => {
      // MySQL applies SET assignments in order: `previous_digest` takes the old secret digest before it changes
      // (SQLite reads every right-hand side from the old row anyway).
      const result = await this.#db
        .updateTable('api_keys')
        .set((eb) => ({
          previous_digest: eb.ref('secret_digest'),
          previous_valid_until: roll.previousValidUntil.getTime(),
          secret_digest: roll.secretDigest,
        }))
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n ? this.get(workspace, id) : undefined;
    });
  }

  async touch(id: string, at: Date, staleBefore: Date): Promise<void> {
    await this.#read(async () => {
      await this.#db
        .updateTable('api_keys')
        .set({ last_used_at: at.getTime() })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', staleBefore.getTime())]))
        .execute();
    });
  }

  async purge(before: Date, limit: number): Promise<number> {
    return this.#read(async () => {
      const cutoff = before.getTime();
      const gone = (eb: ExpressionBuilder<Database, 'api_keys'>) => eb.or([eb('expires_at', '<', cutoff), eb('revoked_at', '<', cutoff)]);
      // Ids first, then delete them: SQLite's DELETE takes no LIMIT.
      const rows = await this.#db.selectFrom('api_keys').select('id').where(gone).limit(limit).execute();
      if (rows.length === 0) return 0;
      const ids = rows.map((row) => row.id);
      const result = await this.#db.deleteFrom('api_keys').where('id', 'in', ids).where(gone).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }

  async #read<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw databaseError(error);
    }
  }
}

function toRecord(row: KeyRow): KeyRecord {
  const time = (value: number | null) => (value === null ? undefined : new Date(Number(value)));
  return Object.freeze({
    id: row.id,
    workspace: row.workspace,
    name: row.name,
    scopes: Object.freeze(row.scopes.split(' ').filter(isScope)),
    createdBy: row.created_by,
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
    lastUsedAt: time(row.last_used_at),
    revokedAt: time(row.revoked_at),
    secretDigest: row.secret_digest,
    previousDigest: row.previous_digest ?? undefined,
    previousValidUntil: time(row.previous_valid_until),
  });
}

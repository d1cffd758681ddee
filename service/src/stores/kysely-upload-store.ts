import { sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import {
  isVisibility,
  SwitchyardError,
  type UploadCommit,
  type UploadIntent,
  type UploadPart,
  type UploadRecord,
  type UploadStore,
} from '@switchyard/core';
import { databaseError } from './database-errors.js';
import type { Database, ResumableUploadsTable } from './schema.js';

type UploadRow = Selectable<ResumableUploadsTable>;

/**
 * UploadStore on MySQL or SQLite. Appends are a compare-and-set on the
 * offset column: the parts list changes only together with the offset, so
 * the list read at an offset is still the list while the row is at it.
 */
export class KyselyUploadStore implements UploadStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async insert(record: UploadRecord): Promise<void> {
    try {
      await this.#db
        .insertInto('resumable_uploads')
        .values({
          id: record.id,
          workspace: record.workspace,
          upload_length: record.length ?? null,
          upload_offset: record.offset,
          parts: JSON.stringify(record.parts.map(({ key, size }) => ({ key, size }))),
          is_partial: record.partial ? 1 : 0,
          intent: JSON.stringify(record.intent),
          created_at: record.createdAt.getTime(),
          expires_at: record.expiresAt.getTime(),
          asset_id: record.assetId ?? null,
          finishing_since: null,
          appending_by: null,
          appending_since: null,
        })
        .execute();
    } catch (error) {
      throw databaseError(error, () => new SwitchyardError('already_exists', 'upload id already exists', [], { cause: error }));
    }
  }

  async get(workspace: string, id: string): Promise<UploadRecord | undefined> {
    try {
      const row = await this.#db
        .selectFrom('resumable_uploads')
        .selectAll()
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .executeTakeFirst();
      return row && toRecord(row);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async commit(workspace: string, id: string, expectedOffset: number, change: UploadCommit): Promise<UploadRecord | undefined> {
    try {
      const current = await this.get(workspace, id);
      if (!current || current.offset !== expectedOffset || current.assetId !== undefined) return undefined;
      const parts = change.part ? [...current.parts, change.part] : current.parts;
      const result = await this.#db
        .updateTable('resumable_uploads')
        .set({
          upload_offset: expectedOffset + (change.part?.size ?? 0),
          expires_at: change.expiresAt.getTime(),
          ...(change.part ? { parts: JSON.stringify(parts) } : {}),
          ...(change.length === undefined ? {} : { upload_length: change.length }),
          // The committer's own lease ends; anyone else's stays. `appending_since` first: MySQL applies SET
          // assignments in order, so the second CASE would otherwise see appending_by already cleared.
          ...(change.holder === undefined
            ? {}
            : {
                appending_since: sql<number | null>`CASE WHEN appending_by = ${change.holder} THEN NULL ELSE appending_since END`,
                appending_by: sql<string | null>`CASE WHEN appending_by = ${change.holder} THEN NULL ELSE appending_by END`,
              }),
        })
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .where('upload_offset', '=', expectedOffset)
        .where('asset_id', 'is', null)
        .$if(change.length !== undefined, (query) =>
          query.where((eb) => eb.or([eb('upload_length', 'is', null), eb('upload_length', '=', change.length!)])),
        )
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return undefined;
      const { appendLeaseSince: _lease, ...unleased } = current;
      return {
        ...(change.holder === undefined ? current : unleased),
        parts,
        offset: expectedOffset + (change.part?.size ?? 0),
        length: change.length ?? current.length,
        expiresAt: change.expiresAt,
      };
    } catch (error) {
      throw databaseError(error);
    }
  }

  async acquireAppend(workspace: string, id: string, holder: string, now: Date, staleBefore: Date): Promise<boolean> {
    try {
      const result = await this.#db
        .updateTable('resumable_uploads')
        .set({ appending_by: holder, appending_since: now.getTime() })
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .where('asset_id', 'is', null)
        .where((eb) =>
          eb.or([eb('appending_by', 'is', null), eb('appending_by', '=', holder), eb('appending_since', '<', staleBefore.getTime())]),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    } catch (error) {
      throw databaseError(error);
    }
  }

  async renewAppend(workspace: string, id: string, holder: string, now: Date): Promise<void> {
    await this.#setLease(workspace, id, holder, now.getTime());
  }

  async releaseAppend(workspace: string, id: string, holder: string): Promise<void> {
    await this.#setLease(workspace, id, holder, null);
  }

  /** Renews (a time) or drops (null) the lease, if `holder` still holds it. */
  async #setLease(workspace: string, id: string, holder: string, since: number | null): Promise<void> {
    try {
      await this.#db
        .updateTable('resumable_uploads')
        .set(since === null ? { appending_by: null, appending_since: null } : { appending_since: since })
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .where('appending_by', '=', holder)
        .execute();
    } catch (error) {
      throw databaseError(error);
    }
  }

  async claimFinish(workspace: string, id: string, now: Date, staleBefore: Date): Promise<boolean> {
    return this.#setFinishClaim(workspace, id, now, (eb) =>
      eb.or([eb('finishing_since', 'is', null), eb('finishing_since', '<', staleBefore.getTime())]),
    );
  }

  async renewFinish(workspace: string, id: string, claimedAt: Date, now: Date): Promise<boolean> {
    return this.#setFinishClaim(workspace, id, now, (eb) => eb('finishing_since', '=', claimedAt.getTime()));
  }

  /** Sets an unfinished upload's claim time to `now` where `claimable` holds; true when it did. */
  async #setFinishClaim(
    workspace: string,
    id: string,
    now: Date,
    claimable: (eb: ExpressionBuilder<Database, 'resumable_uploads'>) => Expression<SqlBool>,
  ): Promise<boolean> {
    try {
      const result = await this.#db
        .updateTable('resumable_uploads')
        .set({ finishing_since: now.getTime() })
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .where('asset_id', 'is', null)
        .where(claimable)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    } catch (error) {
      throw databaseError(error);
    }
  }

  async releaseFinish(workspace: string, id: string): Promise<void> {
    try {
      await this.#db
        .updateTable('resumable_uploads')
        .set({ finishing_since: null })
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .execute();
    } catch (error) {
      throw databaseError(error);
    }
  }

  async finish(workspace: string, id: string, assetId: string, expiresAt: Date): Promise<void> {
    try {
      await this.#db
        .updateTable('resumable_uploads')
        .set({ asset_id: assetId, parts: '[]', expires_at: expiresAt.getTime(), finishing_since: null })
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .execute();
    } catch (error) {
      throw databaseError(error);
    }
  }

  async delete(workspace: string, id: string, expiredBefore?: Date): Promise<boolean> {
    try {
      const result = await this.#db
        .deleteFrom('resumable_uploads')
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .$if(expiredBefore !== undefined, (query) => query.where('expires_at', '<', expiredBefore!.getTime()))
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    } catch (error) {
      throw databaseError(error);
    }
  }

  async referencesPart(key: string): Promise<boolean> {
    try {
      // A scan of the parts lists: only gc asks, and only for part blobs whose own upload is gone.
      const needle = JSON.stringify(key);
      const row = await this.#db
        .selectFrom('resumable_uploads')
        .select('id')
        .where(sql<boolean>`INSTR(parts, ${needle}) > 0`)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    } catch (error) {
      throw databaseError(error);
    }
  }

  async expired(now: Date, limit: number): Promise<UploadRecord[]> {
    try {
      const rows = await this.#db
        .selectFrom('resumable_uploads')
        .selectAll()
        .where('expires_at', '<', now.getTime())
        .orderBy('expires_at')
        .limit(limit)
        .execute();
      return rows.map(toRecord);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async countOpen(now: Date): Promise<number> {
    try {
      const row = await this.#db
        .selectFrom('resumable_uploads')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('open'))
        .where('asset_id', 'is', null)
        .where('expires_at', '>=', now.getTime())
        .executeTakeFirstOrThrow();
      return Number(row.open);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async has(id: string): Promise<boolean> {
    try {
      return (await this.#db.selectFrom('resumable_uploads').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
    } catch (error) {
      throw databaseError(error);
    }
  }
}

function toRecord(row: UploadRow): UploadRecord {
  return {
    id: row.id,
    workspace: row.workspace,
    length: row.upload_length === null ? undefined : Number(row.upload_length),
    offset: Number(row.upload_offset),
    parts: parseParts(row.parts),
    partial: Number(row.is_partial) === 1,
    intent: parseIntent(row.intent),
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
    assetId: row.asset_id ?? undefined,
    ...(row.appending_by !== null && row.appending_since !== null ? { appendLeaseSince: new Date(Number(row.appending_since)) } : {}),
  };
}

function parseParts(json: string): UploadPart[] {
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) throw new SwitchyardError('internal', 'corrupt parts list of an upload');
  return parsed.map((part: { key?: unknown; size?: unknown }) => {
    if (typeof part?.key !== 'string' || typeof part.size !== 'number')
      throw new SwitchyardError('internal', 'corrupt parts list of an upload');
    return { key: part.key, size: part.size };
  });
}

function parseIntent(json: string): UploadIntent {
  const parsed = JSON.parse(json) as Record<string, unknown>;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return {
    ...(text(parsed.filename) !== undefined ? { filename: text(parsed.filename) } : {}),
    ...(text(parsed.label) !== undefined ? { label: text(parsed.label) } : {}),
    ...(isVisibility(parsed.visibility) ? { visibility: parsed.visibility } : {}),
    ...(text(parsed.replace) !== undefined ? { replace: text(parsed.replace) } : {}),
  };
}

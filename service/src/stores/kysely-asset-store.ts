import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import {
  assetChangeEvent,
  DEFAULT_ASSET_HISTORY,
  isVisibility,
  nameKey,
  SwitchyardError,
  type AssetChangeDraft,
  type AssetChangeRecord,
  type AssetChanges,
  type AssetContent,
  type AssetHistoryQuery,
  type AssetWrite,
  type ChangeAuthor,
  type AssetListQuery,
  type AssetRecord,
  type AssetStore,
  type AssetUsage,
  type AssetVersionRecord,
  type DeleteMode,
  type ExpiredVersionsQuery,
  type TrashedAssetRecord,
  type TrashQuery,
  type FactsQuery,
  type StoredFacts,
  type StoredWorkspacePolicy,
  type SwapAttributes,
} from '@switchyard/core';
import type { KyselyOutbox } from './kysely-outbox.js';
import { databaseError } from './database-errors.js';
import { preparedRowsQuery } from './prepared-query.js';
import { dialectOf } from './database.js';
import type { AssetsTable, AssetTrashTable, AssetVersionsTable, Database, WorkspacePoliciesTable } from './schema.js';
import { prefixRange } from './name-prefix.js';
import { KyselyAssetChangeLog, redactAssetChanges } from './kysely-asset-change-log.js';
import { retryingDeadlocks, revisionRaiser } from './workspace-revision.js';

type AssetRow = Selectable<AssetsTable>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Every column of a record, in the order `recordOf` reads a row answered as an array. */
const ASSET_COLUMNS = [
  'id',
  'workspace',
  'label',
  'blob_id',
  'blob_key',
  'type',
  'size',
  'sha256',
  'width',
  'height',
  'created_at',
  'uploaded_at',
  'version',
  'visibility',
  'link_epoch',
  'name',
  'duration_ms',
  'pages',
  'placeholder',
  'facts_version',
] as const satisfies readonly (keyof AssetsTable)[];

/** Stands for the page size while a listing's query is built once (preparedRowsQuery): no real limit is negative. */
const LIMIT_SENTINEL = -0x5e17;

type ListRun = (...params: readonly unknown[]) => Promise<{ rows: readonly (readonly unknown[])[] }>;

/** Thrown inside a write transaction to roll it back when it finds nothing to write; never escapes. */
class NothingToWrite extends Error {}

/** What a write's work did: the records it wrote (or removed) and a change for each, in order. */
interface Work {
  readonly records: readonly AssetRecord[];
  readonly drafts: readonly AssetChangeDraft[];
  /** Versions removed with each record, by its place in `records`. */
  readonly dropped?: readonly (readonly AssetVersionRecord[])[] | undefined;
}

/** Every column of a kept version. */
const VERSION_COLUMNS = [
  'id',
  'workspace',
  'asset_id',
  'blob_id',
  'blob_key',
  'type',
  'size',
  'sha256',
  'width',
  'height',
  'duration_ms',
  'pages',
  'placeholder',
  'facts_version',
  'uploaded_at',
  'uploaded_by',
  'name',
  'replaced_at',
] as const satisfies readonly (keyof AssetVersionsTable)[];

const TRASH_COLUMNS = [...ASSET_COLUMNS, 'uploaded_by', 'deleted_at', 'deleted_by'] as const satisfies readonly (keyof AssetTrashTable)[];

/**
 * AssetStore on MySQL or SQLite; `swap` is a compare-and-set on the version
 * column. Every write runs in one transaction that first raises the
 * workspace's row in asset_revisions (its lock orders the workspace's writers,
 * so revisions are gap-free in commit order), then writes the assets and
 * their change rows (kysely-asset-change-log.ts).
 */
export class KyselyAssetStore implements AssetStore {
  readonly #db: Kysely<Database>;
  readonly #log: KyselyAssetChangeLog;
  readonly #raiseRevision;
  // The two reads on every request path (GetAsset, and ReadFile behind public urls).
  readonly #selectById;
  readonly #selectByBlobId;
  /**
   * ListAssets' query for each combination of cursor and filters met so far (at most 24), built once;
   * justified by rest-list-assets (bench/hand-written-parts.md#prepared-queries).
   */
  readonly #listShapes = new Map<string, ListRun>();

  readonly #outbox: KyselyOutbox | undefined;

  constructor(db: Kysely<Database>, options: { history?: number | undefined; outbox?: KyselyOutbox | undefined } = {}) {
    this.#db = db;
    this.#outbox = options.outbox;
    this.#log = new KyselyAssetChangeLog(db, options.history ?? DEFAULT_ASSET_HISTORY);
    this.#raiseRevision = revisionRaiser(db, 'asset_revisions');
    this.#selectById = preparedRowsQuery(
      db,
      (id: string, workspace: string) =>
        db.selectFrom('assets').select(ASSET_COLUMNS).where('id', '=', id).where('workspace', '=', workspace),
      ['\0id', '\0workspace'] as const,
    );
    this.#selectByBlobId = preparedRowsQuery(
      db,
      (blobId: string) => db.selectFrom('assets').select(ASSET_COLUMNS).where('blob_id', '=', blobId),
      ['\0blob'] as const,
    );
  }

  async insert(record: AssetRecord, author: ChangeAuthor): Promise<AssetWrite> {
    const row = { ...assetRow(record), uploaded_by: author.actor };
    // The record as a read would answer it, without reading it back.
    const stored = toRecord(row as Selectable<AssetsTable>);
    const [written] = await this.#write(
      record.workspace,
      author,
      async (trx) => {
        await trx.insertInto('assets').values(row).execute();
        return { records: [stored], drafts: [{ type: 'asset.created', assetId: stored.id, asset: stored }] };
      },
      (error) => new SwitchyardError('already_exists', 'asset or blob id already exists', [], { cause: error }),
    );
    return written!;
  }

  async get(workspace: string, id: string): Promise<AssetRecord | undefined> {
    try {
      const [row] = (await this.#selectById(id, workspace)).rows;
      return row && recordOf(row);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async getByBlobId(blobId: string): Promise<AssetRecord | undefined> {
    try {
      const [row] = (await this.#selectByBlobId(blobId)).rows;
      return row && recordOf(row);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async swap(
    workspace: string,
    id: string,
    expectedVersion: number,
    content: AssetContent,
    attributes: SwapAttributes,
    author: ChangeAuthor,
  ): Promise<AssetWrite | undefined> {
    const { visibility, name, keepVersion, restoreVersion } = attributes;
    const [written] = await this.#write(
      workspace,
      author,
      async (trx) => {
        // The displaced file, for the change: read under the workspace's revision lock, so no logged write moves it meanwhile.
        const currentRow = await trx
          .selectFrom('assets')
          .select([...ASSET_COLUMNS, 'uploaded_by'])
          .where('id', '=', id)
          .where('workspace', '=', workspace)
          .executeTakeFirst();
        const current = currentRow && toRecord(currentRow);
        if (current === undefined || current.version !== expectedVersion) return undefined;
        let uploadedBy = author.actor;
        if (restoreVersion !== undefined) {
          const restored = await this.#versionIn(trx, workspace, id, restoreVersion);
          if (restored === undefined) return undefined;
          await trx.deleteFrom('asset_versions').where('id', '=', restoreVersion).execute();
          uploadedBy = restored.actor;
        }
        let dropped: AssetVersionRecord[] = [];
        if (keepVersion) {
          await trx
            .insertInto('asset_versions')
            .values({
              ...contentColumns(current),
              id: keepVersion.versionId,
              workspace,
              asset_id: id,
              name: current.name,
              uploaded_by: currentRow!.uploaded_by,
              replaced_at: author.time.getTime(),
            })
            .execute();
          dropped = await this.#trimVersions(trx, workspace, id, keepVersion.keep);
        }
        const result = await trx
          .updateTable('assets')
          .set((eb) => ({
            ...contentColumns(content),
            ...(visibility === undefined ? {} : { visibility }),
            ...(name === undefined ? {} : nameColumns(name)),
            uploaded_by: uploadedBy,
            version: eb('version', '+', 1),
          }))
          .where('id', '=', id)
          .where('workspace', '=', workspace)
          .where('version', '=', expectedVersion)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) return undefined;
        // Read back inside the transaction: the record returned and logged is exactly the one this swap wrote.
        const record = (await this.#selectIn(trx, workspace, id))!;
        const previous = { type: current.type, size: current.size, sha256: current.sha256 };
        const why = restoreVersion === undefined ? {} : { reason: 'restore' as const, versionIds: [restoreVersion] };
        return {
          records: [record],
          drafts: [{ type: 'asset.replaced', assetId: id, asset: record, previous, ...why }],
          dropped: [dropped],
        };
      },
      (error) => new SwitchyardError('already_exists', 'blob id already belongs to an asset', [], { cause: error }),
    );
    return written;
  }

  async update(workspace: string, id: string, changes: AssetChanges, author: ChangeAuthor): Promise<AssetWrite | undefined> {
    const [written] = await this.#write(workspace, author, async (trx) => {
      await trx
        .updateTable('assets')
        .set((eb) => ({
          ...(changes.label === undefined ? {} : { label: changes.label }),
          ...(changes.name === undefined ? {} : nameColumns(changes.name)),
          ...(changes.visibility === undefined ? {} : { visibility: changes.visibility }),
          // Always one column set, so an empty change still finds (and locks) the row.
          link_epoch: changes.revokeLinks ? eb('link_epoch', '+', 1) : eb.ref('link_epoch'),
        }))
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .executeTakeFirst();
      // Read back rather than trust the update's row count: MySQL counts changed rows, not matched ones.
      const record = await this.#selectIn(trx, workspace, id);
      return record && { records: [record], drafts: [{ type: 'asset.updated', assetId: id, asset: record }] };
    });
    return written;
  }

  async getPolicy(workspace: string): Promise<StoredWorkspacePolicy | undefined> {
    try {
      const row = await this.#db.selectFrom('workspace_policies').selectAll().where('workspace', '=', workspace).executeTakeFirst();
      return row && toPolicy(row);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async setPolicy(workspace: string, policy: StoredWorkspacePolicy): Promise<void> {
    const columns = {
      allowed_types: JSON.stringify(policy.allowedTypes),
      max_upload_bytes: policy.maxUploadBytes ?? null,
      default_visibility: policy.defaultVisibility,
      strip_image_metadata: policy.stripImageMetadata ? 1 : 0,
      keep_versions: policy.keepVersions ?? null,
      retention_days: policy.retentionDays ?? null,
    };
    try {
      // An upsert in each dialect's words; the last writer wins whole.
      await this.#db
        .insertInto('workspace_policies')
        .values({ workspace, ...columns })
        .$call((insert) =>
          this.#isMysql()
            ? insert.onDuplicateKeyUpdate(columns)
            : insert.onConflict((conflict) => conflict.column('workspace').doUpdateSet(columns)),
        )
        .execute();
    } catch (error) {
      throw databaseError(error);
    }
  }

  #isMysql(): boolean {
    return dialectOf(this.#db) === 'mysql';
  }

  async hasBlobKey(blobKey: string): Promise<boolean> {
    try {
      for (const table of ['assets', 'asset_trash', 'asset_versions'] as const) {
        const row = await this.#db.selectFrom(table).select('id').where('blob_key', '=', blobKey).limit(1).executeTakeFirst();
        if (row !== undefined) return true;
      }
      return false;
    } catch (error) {
      throw databaseError(error);
    }
  }

  /**
   * A keyset query on (workspace, id): as fast on page 200 as on page 1. With a name prefix, also a range on
   * (workspace, name_lower, id), which the planner takes when the prefix is the narrower way in.
   */
  async list(workspace: string, query: AssetListQuery): Promise<AssetRecord[]> {
    const { before, type, label, namePrefix, limit } = query;
    // A prefix of letters, digits and `.+-/` only (checked in lib): no LIKE wildcard can be in it.
    const typeValue = type === undefined ? undefined : 'exact' in type ? type.exact : `${type.prefix}%`;
    const name = namePrefix === undefined ? undefined : prefixRange(namePrefix);
    const shape: ListShape = {
      before: before !== undefined,
      type: type === undefined ? undefined : 'exact' in type ? 'exact' : 'prefix',
      label: label !== undefined,
      name: name !== undefined,
    };
    const params = [workspace, before, typeValue, label, name?.from, name?.to, name?.bytes].filter((value) => value !== undefined);
    try {
      const { rows } = await this.#listRun(shape)(...params, limit);
      return rows.map(recordOf);
    } catch (error) {
      throw databaseError(error);
    }
  }

  #listRun(shape: ListShape): ListRun {
    const key = `${shape.before}/${shape.type}/${shape.label}/${shape.name}`;
    let run = this.#listShapes.get(key);
    if (run === undefined) {
      const sentinels: readonly unknown[] = [
        '\0workspace',
        ...(shape.before ? ['\0before'] : []),
        ...(shape.type ? ['\0type'] : []),
        ...(shape.label ? ['\0label'] : []),
        ...(shape.name ? ['\0from', '\0to', '\0bytes'] : []),
        LIMIT_SENTINEL,
      ];
      run = preparedRowsQuery(this.#db, (...params: readonly unknown[]) => listQuery(this.#db, shape, params), sentinels);
      this.#listShapes.set(key, run);
    }
    return run;
  }

  async usage(workspace: string): Promise<AssetUsage> {
    try {
      const row = await this.#db
        .selectFrom('assets')
        .select((eb) => [
          eb.fn.countAll<number | string | bigint>().as('assets'),
          eb.fn.coalesce(eb.fn.sum<number | string | bigint>('size'), eb.lit(0)).as('bytes'),
        ])
        .where('workspace', '=', workspace)
        .executeTakeFirstOrThrow();
      const trash = await this.#db
        .selectFrom('asset_trash')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string | bigint>('size'), eb.lit(0)).as('bytes'))
        .where('workspace', '=', workspace)
        .executeTakeFirstOrThrow();
      // Versions are the trash's when their asset is in it.
      const versions = await this.#db
        .selectFrom('asset_versions')
        .select((eb) => [
          eb.fn.coalesce(eb.fn.sum<number | string | bigint>('size'), eb.lit(0)).as('bytes'),
          eb.ref('asset_id').as('asset_id'),
        ])
        .where('workspace', '=', workspace)
        .groupBy('asset_id')
        .execute();
      const trashed = new Set<string>();
      if (versions.length > 0) {
        const ids = versions.map((version) => version.asset_id);
        const rows = await this.#db
          .selectFrom('asset_trash')
          .select('id')
          .where('workspace', '=', workspace)
          .where('id', 'in', ids)
          .execute();
        for (const entry of rows) trashed.add(entry.id);
      }
      let versionBytes = 0;
      let trashBytes = Number(trash.bytes);
      for (const version of versions) {
        if (trashed.has(version.asset_id)) trashBytes += Number(version.bytes);
        else versionBytes += Number(version.bytes);
      }
      return { assets: Number(row.assets), bytes: Number(row.bytes), versionBytes, trashBytes };
    } catch (error) {
      throw databaseError(error);
    }
  }

  /** A walk of the primary key from `after`, filtered: a batch command's query, not a request's. */
  async listForFacts(query: FactsQuery): Promise<AssetRecord[]> {
    try {
      let select = this.#db.selectFrom('assets').select(ASSET_COLUMNS).where('facts_version', '<', query.belowVersion);
      if (query.after !== undefined) select = select.where('id', '>', query.after);
      const rows = await select.orderBy('id', 'asc').limit(query.limit).execute();
      return rows.map(toRecord);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async setFacts(workspace: string, id: string, blobId: string, facts: StoredFacts): Promise<AssetRecord | undefined> {
    try {
      // As in update: the row stays locked by our update until it is read back.
      return await this.#db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('assets')
          .set(factColumns(facts))
          .where('id', '=', id)
          .where('workspace', '=', workspace)
          .where('blob_id', '=', blobId)
          .executeTakeFirst();
        // MySQL counts changed rows: facts written again as they were count 0, so the row is read back either way.
        const row = await trx
          .selectFrom('assets')
          .select(ASSET_COLUMNS)
          .where('id', '=', id)
          .where('workspace', '=', workspace)
          .where('blob_id', '=', blobId)
          .executeTakeFirst();
        return row === undefined || result === undefined ? undefined : toRecord(row);
      });
    } catch (error) {
      throw databaseError(error);
    }
  }

  async delete(workspace: string, id: string, author: ChangeAuthor, mode: DeleteMode = {}): Promise<AssetWrite | undefined> {
    return (await this.deleteMany(workspace, [id], author, mode))[0];
  }

  async deleteMany(workspace: string, ids: readonly string[], author: ChangeAuthor, mode: DeleteMode = {}): Promise<AssetWrite[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    return this.#write(workspace, author, async (trx) => {
      const rows = await trx
        .selectFrom('assets')
        .select([...ASSET_COLUMNS, 'uploaded_by'])
        .where('workspace', '=', workspace)
        .where('id', 'in', wanted)
        .execute();
      if (rows.length === 0) return undefined;
      const found = new Map(rows.map((row) => [row.id, toRecord(row)]));
      const foundIds = [...found.keys()];
      if (mode.trash) {
        const deleted = { deleted_at: author.time.getTime(), deleted_by: author.actor };
        await trx
          .insertInto('asset_trash')
          .values(rows.map((row) => ({ ...row, name_lower: nameKey(row.name), ...deleted })))
          .execute();
      }
      await trx.deleteFrom('assets').where('workspace', '=', workspace).where('id', 'in', foundIds).execute();
      // In the order listed, each once.
      const records = wanted.flatMap((id) => found.get(id) ?? []);
      const dropped = mode.trash ? [] : await this.#dropVersionsOf(trx, workspace, foundIds);
      if (mode.purge && !mode.trash) for (const id of foundIds) await redactAssetChanges(trx, workspace, id);
      const why = mode.purge && !mode.trash ? { reason: 'purge' as const } : {};
      return {
        records,
        drafts: records.map((record) => ({ type: 'asset.deleted', assetId: record.id, ...why })),
        dropped: records.map((record) => dropped.filter((version) => version.assetId === record.id)),
      };
    });
  }

  async listVersions(workspace: string, assetId: string): Promise<AssetVersionRecord[]> {
    try {
      // A trashed asset's versions are not listed: the asset is not there.
      const live = await this.get(workspace, assetId);
      if (!live) return [];
      const rows = await this.#db
        .selectFrom('asset_versions')
        .select(VERSION_COLUMNS)
        .where('workspace', '=', workspace)
        .where('asset_id', '=', assetId)
        .orderBy('replaced_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toVersion);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async getVersion(workspace: string, assetId: string, versionId: string): Promise<AssetVersionRecord | undefined> {
    try {
      if (!(await this.get(workspace, assetId))) return undefined;
      const row = await this.#db
        .selectFrom('asset_versions')
        .select(VERSION_COLUMNS)
        .where('id', '=', versionId)
        .where('workspace', '=', workspace)
        .where('asset_id', '=', assetId)
        .executeTakeFirst();
      return row && toVersion(row);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async listTrash(workspace: string, query: TrashQuery): Promise<TrashedAssetRecord[]> {
    try {
      let select = this.#db.selectFrom('asset_trash').select(TRASH_COLUMNS).where('workspace', '=', workspace);
      if (query.before !== undefined) select = select.where('id', '<', query.before);
      if (query.deletedBefore !== undefined) select = select.where('deleted_at', '<', query.deletedBefore.getTime());
      const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
      return rows.map(toTrashed);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async restoreFromTrash(workspace: string, id: string, author: ChangeAuthor): Promise<AssetWrite | undefined> {
    const [written] = await this.#write(workspace, author, async (trx) => {
      const row = await takeFromTrash(trx, workspace, id);
      if (row === undefined) return undefined;
      const { deleted_at: _at, deleted_by: _by, ...assetColumns } = row;
      // A new link epoch: links signed before the delete stay dead.
      const back = { ...assetColumns, name_lower: nameKey(row.name), link_epoch: Number(row.link_epoch) + 1 };
      await trx.insertInto('assets').values(back).execute();
      const record = toRecord(back);
      return { records: [record], drafts: [{ type: 'asset.created', assetId: id, asset: record, reason: 'restore' }] };
    });
    return written;
  }

  async purgeFromTrash(workspace: string, id: string, author: ChangeAuthor): Promise<AssetWrite | undefined> {
    const [written] = await this.#write(workspace, author, async (trx) => {
      const row = await takeFromTrash(trx, workspace, id);
      if (row === undefined) return undefined;
      const dropped = await this.#dropVersionsOf(trx, workspace, [id]);
      await redactAssetChanges(trx, workspace, id);
      return { records: [toRecord(row)], drafts: [{ type: 'asset.deleted', assetId: id, reason: 'purge' }], dropped: [dropped] };
    });
    return written;
  }

  /** Ranked in SQL (a window function, in MariaDB 10.2+ and SQLite 3.25+): past `keep` of their asset, or too old. */
  async expiredVersions(workspace: string, query: ExpiredVersionsQuery): Promise<AssetVersionRecord[]> {
    try {
      const ranked = this.#db
        .selectFrom('asset_versions as v')
        .innerJoin('assets as a', (join) => join.onRef('a.id', '=', 'v.asset_id').onRef('a.workspace', '=', 'v.workspace'))
        .select(VERSION_COLUMNS.map((column) => `v.${column}` as const))
        .select(sql<number>`row_number() over (partition by v.asset_id order by v.replaced_at desc, v.id desc)`.as('rank'))
        .where('v.workspace', '=', workspace);
      const rows = await this.#db
        .selectFrom(ranked.as('r'))
        .selectAll()
        .where((eb) => eb.or([eb('r.rank', '>', query.keep), eb('r.replaced_at', '<', query.replacedBefore.getTime())]))
        .orderBy('r.asset_id')
        .orderBy('r.replaced_at')
        .limit(query.limit)
        .execute();
      return rows.map(toVersion);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async purgeVersions(
    workspace: string,
    assetId: string,
    versionIds: readonly string[],
    author: ChangeAuthor,
  ): Promise<AssetWrite | undefined> {
    if (versionIds.length === 0) return undefined;
    const [written] = await this.#write(workspace, author, async (trx) => {
      const record = await this.#selectIn(trx, workspace, assetId);
      if (record === undefined) return undefined;
      const rows = await trx
        .selectFrom('asset_versions')
        .select(VERSION_COLUMNS)
        .where('workspace', '=', workspace)
        .where('asset_id', '=', assetId)
        .where('id', 'in', [...versionIds])
        .execute();
      if (rows.length === 0) return undefined;
      const dropped = rows.map(toVersion);
      await trx
        .deleteFrom('asset_versions')
        .where(
          'id',
          'in',
          dropped.map((version) => version.id),
        )
        .execute();
      const ids = dropped.map((version) => version.id);
      return {
        records: [record],
        drafts: [{ type: 'asset.updated', assetId, asset: record, reason: 'purge', versionIds: ids }],
        dropped: [dropped],
      };
    });
    return written;
  }

  async retainingWorkspaces(): Promise<string[]> {
    try {
      const trash = await this.#db.selectFrom('asset_trash').select('workspace').distinct().execute();
      const versions = await this.#db.selectFrom('asset_versions').select('workspace').distinct().execute();
      return [...new Set([...trash, ...versions].map((row) => row.workspace))].sort();
    } catch (error) {
      throw databaseError(error);
    }
  }

  async #versionIn(trx: Transaction<Database>, workspace: string, assetId: string, id: string): Promise<AssetVersionRecord | undefined> {
    const row = await trx
      .selectFrom('asset_versions')
      .select(VERSION_COLUMNS)
      .where('id', '=', id)
      .where('workspace', '=', workspace)
      .where('asset_id', '=', assetId)
      .executeTakeFirst();
    return row && toVersion(row);
  }

  /** Removes an asset's versions past the `keep` newest; answers them. */
  async #trimVersions(trx: Transaction<Database>, workspace: string, assetId: string, keep: number): Promise<AssetVersionRecord[]> {
    const rows = await trx
      .selectFrom('asset_versions')
      .select(VERSION_COLUMNS)
      .where('workspace', '=', workspace)
      .where('asset_id', '=', assetId)
      .orderBy('replaced_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    const dropped = rows.slice(keep).map(toVersion);
    if (dropped.length > 0)
      await trx
        .deleteFrom('asset_versions')
        .where(
          'id',
          'in',
          dropped.map((version) => version.id),
        )
        .execute();
    return dropped;
  }

  /** Removes every version of the assets; answers them. */
  async #dropVersionsOf(trx: Transaction<Database>, workspace: string, assetIds: readonly string[]): Promise<AssetVersionRecord[]> {
    const rows = await trx
      .selectFrom('asset_versions')
      .select(VERSION_COLUMNS)
      .where('workspace', '=', workspace)
      .where('asset_id', 'in', [...assetIds])
      .execute();
    if (rows.length > 0)
      await trx
        .deleteFrom('asset_versions')
        .where('workspace', '=', workspace)
        .where('asset_id', 'in', [...assetIds])
        .execute();
    return rows.map(toVersion);
  }

  async revision(workspace: string): Promise<number> {
    try {
      return await this.#log.revision(workspace);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async changesSince(workspace: string, revision: number, limit: number): Promise<AssetChangeRecord[] | undefined> {
    try {
      return await this.#log.changesSince(workspace, revision, limit);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async history(workspace: string, assetId: string, query: AssetHistoryQuery): Promise<AssetChangeRecord[]> {
    try {
      return await this.#log.history(workspace, assetId, query);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async #selectIn(trx: Transaction<Database>, workspace: string, id: string): Promise<AssetRecord | undefined> {
    const row = await trx
      .selectFrom('assets')
      .select(ASSET_COLUMNS)
      .where('id', '=', id)
      .where('workspace', '=', workspace)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /**
   * One logged write: raise the revision, run `work` at it, log its changes.
   * `work` answering `undefined` (nothing to write) rolls everything back, the
   * revision included, and answers `[]`.
   */
  async #write(
    workspace: string,
    author: ChangeAuthor,
    work: (trx: Transaction<Database>) => Promise<Work | undefined>,
    duplicate?: (error: unknown) => SwitchyardError,
  ): Promise<AssetWrite[]> {
    try {
      /** Whether the committed write made webhook deliveries due: the relay is woken only after the commit. */
      let due = false;
      const written = await retryingDeadlocks(() =>
        this.#db.transaction().execute(async (trx) => {
          const revision = await this.#raiseRevision(trx, workspace);
          const done = await work(trx);
          if (done === undefined) throw new NothingToWrite();
          const changes = await this.#log.append(trx, workspace, revision, author, done.drafts);
          if (this.#outbox)
            due = await this.#outbox.enqueue(trx, workspace, () => changes.map((change) => assetChangeEvent(workspace, change)));
          return done.records.map((record, i) => {
            const dropped = done.dropped?.[i] ?? [];
            return dropped.length > 0 ? { record, change: changes[i]!, droppedVersions: dropped } : { record, change: changes[i]! };
          });
        }),
      );
      if (due) this.#outbox?.committed();
      return written;
    } catch (error) {
      if (error instanceof NothingToWrite) return [];
      throw databaseError(error, duplicate && (() => duplicate(error)));
    }
  }
}

/** A record's row in `assets` (its uploader unknown: ''). */
export function assetRow(record: AssetRecord): Insertable<AssetsTable> {
  return {
    id: record.id,
    workspace: record.workspace,
    label: record.label,
    created_at: record.createdAt.getTime(),
    version: record.version,
    visibility: record.visibility,
    link_epoch: record.linkEpoch,
    ...nameColumns(record.name),
    ...contentColumns(record),
  };
}

/** The name and the key `list` searches it by. */
function nameColumns(name: string) {
  return { name, name_lower: nameKey(name) };
}

/** ListAssets' select for a shape, its parameters in the order `list` passes them. */
export function listQuery(db: Kysely<Database>, shape: ListShape, params: readonly unknown[]) {
  let i = 0;
  const next = () => params[i++] as string;
  let select = db.selectFrom('assets').select(ASSET_COLUMNS).where('workspace', '=', next());
  if (shape.before) select = select.where('id', '<', next());
  if (shape.type) select = select.where('type', shape.type === 'exact' ? '=' : 'like', next());
  if (shape.label) select = select.where('label', '=', next());
  if (shape.name) {
    select = select.where('name_lower', '>=', next()).where('name_lower', '<', next());
    select = select.where(sql<number>`octet_length(${sql.ref('name_lower')})`, '>=', next() as unknown as number);
  }
  return select.orderBy('id', 'desc').limit(next() as unknown as number);
}

function contentColumns(content: AssetContent) {
  return {
    blob_id: content.blobId,
    blob_key: content.blobKey,
    type: content.type,
    size: content.size,
    sha256: content.sha256,
    ...factColumns(content),
    uploaded_at: content.uploadedAt.getTime(),
  };
}

/** A file's media facts, NULL where unknown. */
function factColumns(facts: AssetContent | StoredFacts) {
  return {
    width: facts.width ?? null,
    height: facts.height ?? null,
    duration_ms: facts.durationMs ?? null,
    pages: facts.pages ?? null,
    placeholder: facts.placeholder ?? null,
    facts_version: facts.factsVersion ?? 0,
  };
}

/** Which parts of ListAssets' query a listing has: each combination is its own prepared query. */
export interface ListShape {
  readonly before: boolean;
  readonly type: 'exact' | 'prefix' | undefined;
  readonly label: boolean;
  /** A name prefix: a range on name_lower, and its length (name-prefix.ts). */
  readonly name: boolean;
}

function toRecord(row: Pick<AssetRow, (typeof ASSET_COLUMNS)[number]>): AssetRecord {
  return recordOf(ASSET_COLUMNS.map((column) => row[column]));
}

/** A record from a row's values in ASSET_COLUMNS order. */
function recordOf(values: readonly unknown[]): AssetRecord {
  const width = values[8];
  const height = values[9];
  const visibility = values[13];
  const [durationMs, pages, placeholder, factsVersion] = values.slice(16, 20);
  const record: Mutable<AssetRecord> = {
    id: values[0] as string,
    workspace: values[1] as string,
    label: values[2] as string,
    blobId: values[3] as string,
    blobKey: values[4] as string,
    type: values[5] as string,
    size: Number(values[6]),
    sha256: values[7] as string,
    createdAt: new Date(Number(values[10])),
    uploadedAt: new Date(Number(values[11])),
    version: Number(values[12]),
    visibility: isVisibility(visibility) ? visibility : 'private',
    linkEpoch: Number(values[14]),
    name: values[15] as string,
  };
  // Absent dimensions are absent keys, not `undefined` values, as in records callers build. Set, not spread:
  // spreading built two objects more per row.
  if (width !== null) record.width = Number(width);
  if (height !== null) record.height = Number(height);
  if (durationMs !== null && durationMs !== undefined) record.durationMs = Number(durationMs);
  if (pages !== null && pages !== undefined) record.pages = Number(pages);
  if (typeof placeholder === 'string') record.placeholder = placeholder;
  // 0 is an absent key, as in records built before there were facts.
  if (Number(factsVersion) > 0) record.factsVersion = Number(factsVersion);
  return Object.freeze(record);
}

function toVersion(row: Pick<Selectable<AssetVersionsTable>, (typeof VERSION_COLUMNS)[number]>): AssetVersionRecord {
  const version = {
    id: row.id,
    workspace: row.workspace,
    assetId: row.asset_id,
    blobId: row.blob_id,
    blobKey: row.blob_key,
    type: row.type,
    size: Number(row.size),
    sha256: row.sha256,
    uploadedAt: new Date(Number(row.uploaded_at)),
    name: row.name,
    actor: row.uploaded_by,
    replacedAt: new Date(Number(row.replaced_at)),
    ...(row.width === null ? {} : { width: Number(row.width) }),
    ...(row.height === null ? {} : { height: Number(row.height) }),
    ...(row.duration_ms === null ? {} : { durationMs: Number(row.duration_ms) }),
    ...(row.pages === null ? {} : { pages: Number(row.pages) }),
    ...(row.placeholder === null ? {} : { placeholder: row.placeholder }),
    ...(Number(row.facts_version) > 0 ? { factsVersion: Number(row.facts_version) } : {}),
  };
  return Object.freeze(version);
}

/** The trash entry `id` of `workspace`, removed from the trash, or `undefined` when it is not there. */
async function takeFromTrash(trx: Transaction<Database>, workspace: string, id: string) {
  const row = await trx
    .selectFrom('asset_trash')
    .select(TRASH_COLUMNS)
    .where('id', '=', id)
    .where('workspace', '=', workspace)
    .executeTakeFirst();
  if (row !== undefined) await trx.deleteFrom('asset_trash').where('id', '=', id).execute();
  return row;
}

function toTrashed(row: Pick<Selectable<AssetTrashTable>, (typeof TRASH_COLUMNS)[number]>): TrashedAssetRecord {
  return Object.freeze({ ...toRecord(row), deletedAt: new Date(Number(row.deleted_at)), deletedBy: row.deleted_by });
}

function toPolicy(row: Selectable<WorkspacePoliciesTable>): StoredWorkspacePolicy {
  const allowedTypes: unknown = JSON.parse(row.allowed_types);
  return Object.freeze({
    allowedTypes: Object.freeze(Array.isArray(allowedTypes) ? allowedTypes.filter((type): type is string => typeof type === 'string') : []),
    ...(row.max_upload_bytes === null ? {} : { maxUploadBytes: Number(row.max_upload_bytes) }),
    defaultVisibility: isVisibility(row.default_visibility) ? row.default_visibility : 'public',
    // Stored only when on, as validatePolicy returns it.
    ...(Number(row.strip_image_metadata) === 1 ? { stripImageMetadata: true } : {}),
    ...(row.keep_versions === null ? {} : { keepVersions: Number(row.keep_versions) }),
    ...(row.retention_days === null ? {} : { retentionDays: Number(row.retention_days) }),
  });
}

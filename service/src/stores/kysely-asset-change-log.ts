import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type {
  AssetChangeDraft,
  AssetChangeReason,
  AssetChangeRecord,
  AssetHistoryQuery,
  AssetRecord,
  ChangeAuthor,
  ReplacedFile,
} from '@switchyard/core';
import { preparedStatement } from './prepared-query.js';
import { revisionReader } from './workspace-revision.js';
import type { AssetChangesTable, Database } from './schema.js';

/**
 * The log is trimmed on one write in this many, not on every write past
 * `history`: it then holds up to TRIM_EVERY - 1 revisions more than `history`,
 * and reads answer from the last `history` only, so callers see exactly the
 * bounded history. The routes' log does the same (kysely-route-store.ts), for
 * the same reason: a DELETE in every write transaction would add to the CPU
 * of every write.
 */
const TRIM_EVERY = 64;

const CHANGE_COLUMNS = [
  'workspace',
  'revision',
  'seq',
  'type',
  'asset_id',
  'actor',
  'time',
  'record',
  'previous',
  'detail',
] as const satisfies readonly (keyof AssetChangesTable)[];

/** The asset change log on MySQL or SQLite: written inside the asset store's write transactions, read outside them. */
export class KyselyAssetChangeLog {
  readonly #db: Kysely<Database>;
  readonly #history: number;
  readonly #revisionOf;
  // The one-change insert runs on every upload: built and compiled once (prepared-query.ts).
  readonly #insertOne;

  constructor(db: Kysely<Database>, history: number) {
    this.#db = db;
    this.#history = history;
    this.#revisionOf = revisionReader(db, 'asset_revisions');
    this.#insertOne = preparedStatement<Database, unknown, unknown[]>(
      (...values) =>
        db.insertInto('asset_changes').values(Object.fromEntries(CHANGE_COLUMNS.map((column, i) => [column, values[i]])) as never),
      CHANGE_COLUMNS.map((column) => `\0${column}`),
    );
  }

  /** Logs `drafts` at `revision` inside `trx`, and trims the log every TRIM_EVERY revisions; answers the changes as logged. */
  async append(
    trx: Transaction<Database>,
    workspace: string,
    revision: number,
    author: ChangeAuthor,
    drafts: readonly AssetChangeDraft[],
  ): Promise<AssetChangeRecord[]> {
    const time = new Date(author.time.getTime());
    const changes = drafts.map((draft) => Object.freeze({ ...draft, revision, actor: author.actor, time }) as AssetChangeRecord);
    const rows = changes.map((change, seq) => rowOf(workspace, seq, change));
    if (rows.length === 1) await this.#insertOne(trx, ...CHANGE_COLUMNS.map((column) => rows[0]![column]));
    else await trx.insertInto('asset_changes').values(rows).execute();
    if (revision > this.#history && revision % TRIM_EVERY === 0)
      await trx
        .deleteFrom('asset_changes')
        .where('workspace', '=', workspace)
        .where('revision', '<=', revision - this.#history)
        .execute();
    return changes;
  }

  revision(workspace: string): Promise<number> {
    return this.#revisionOf(this.#db, workspace);
  }

  async changesSince(workspace: string, revision: number, limit: number): Promise<AssetChangeRecord[] | undefined> {
    const current = await this.revision(workspace);
    if (revision > current || revision < 0 || revision < current - this.#history) return undefined;
    if (revision === current) return [];
    const rows = await this.#db
      .selectFrom('asset_changes')
      .selectAll()
      .where('workspace', '=', workspace)
      .where('revision', '>', revision)
      .where('revision', '<=', revision + limit)
      .orderBy('revision')
      .orderBy('seq')
      .execute();
    // Revisions are gap-free: a missing first one was trimmed away meanwhile.
    if (rows.length === 0 || Number(rows[0]!.revision) !== revision + 1) return undefined;
    return rows.map(changeOf);
  }

  async history(workspace: string, assetId: string, query: AssetHistoryQuery): Promise<AssetChangeRecord[]> {
    // The log may still hold older revisions (it is trimmed in batches); the history is the last `history`.
    const oldest = (await this.revision(workspace)) - this.#history;
    let select = this.#db
      .selectFrom('asset_changes')
      .selectAll()
      .where('workspace', '=', workspace)
      .where('asset_id', '=', assetId)
      .where('revision', '>', oldest);
    if (query.before !== undefined) select = select.where('revision', '<', query.before);
    const rows = await select.orderBy('revision', 'desc').orderBy('seq', 'desc').limit(query.limit).execute();
    return rows.map(changeOf);
  }
}

function rowOf(workspace: string, seq: number, change: AssetChangeRecord): Insertable<AssetChangesTable> & { detail: string | null } {
  return {
    workspace,
    revision: change.revision,
    seq,
    type: change.type,
    asset_id: change.assetId,
    actor: change.actor,
    time: change.time.getTime(),
    record: change.asset === undefined ? null : JSON.stringify(recordJson(change.asset)),
    previous: change.type === 'asset.replaced' ? JSON.stringify(fileOf(change.previous)) : null,
    detail: change.reason === undefined ? null : JSON.stringify({ reason: change.reason, versionIds: change.versionIds }),
  };
}

/** Why a change was made (restore, purge) and the versions it names, from `detail`; nothing for plain writes. */
function detailOf(row: Selectable<AssetChangesTable>): Pick<AssetChangeRecord, 'reason' | 'versionIds'> {
  if (row.detail === null || row.detail === undefined) return {};
  const detail = JSON.parse(row.detail) as { reason?: AssetChangeReason; versionIds?: string[] };
  return {
    ...(detail.reason === undefined ? {} : { reason: detail.reason }),
    ...(detail.versionIds === undefined ? {} : { versionIds: Object.freeze([...detail.versionIds]) }),
  };
}

/**
 * Clears a purged asset's name from the bodies of its kept changes, inside
 * the purge's transaction: the log then holds no name of it beyond the
 * purge. Bounded by the history kept per workspace.
 */
export async function redactAssetChanges(trx: Transaction<Database>, workspace: string, assetId: string): Promise<void> {
  const rows = await trx
    .selectFrom('asset_changes')
    .select(['revision', 'seq', 'record'])
    .where('workspace', '=', workspace)
    .where('asset_id', '=', assetId)
    .where('record', 'is not', null)
    .execute();
  for (const row of rows) {
    const record = JSON.parse(row.record!) as Record<string, unknown>;
    if (record.name === '') continue;
    await trx
      .updateTable('asset_changes')
      .set({ record: JSON.stringify({ ...record, name: '' }) })
      .where('workspace', '=', workspace)
      .where('revision', '=', row.revision)
      .where('seq', '=', row.seq)
      .execute();
  }
}

function changeOf(row: Selectable<AssetChangesTable>): AssetChangeRecord {
  const base = {
    revision: Number(row.revision),
    time: new Date(Number(row.time)),
    actor: row.actor,
    assetId: row.asset_id,
    ...detailOf(row),
  };
  const asset = row.record === null ? undefined : recordFromJson(row.record);
  switch (row.type) {
    case 'asset.deleted':
      return Object.freeze({ ...base, type: row.type });
    case 'asset.replaced':
      return Object.freeze({
        ...base,
        type: row.type,
        asset: required(asset, row),
        previous: fileOf(JSON.parse(row.previous ?? 'null') as ReplacedFile),
      });
    case 'asset.created':
    case 'asset.updated':
      return Object.freeze({ ...base, type: row.type, asset: required(asset, row) });
    default:
      throw new Error(`asset change ${row.workspace}@${row.revision} has an unknown type ${row.type}`);
  }
}

function required(asset: AssetRecord | undefined, row: Selectable<AssetChangesTable>): AssetRecord {
  if (asset === undefined) throw new Error(`asset change ${row.workspace}@${row.revision} (${row.type}) has no record`);
  return asset;
}

function fileOf(file: ReplacedFile): ReplacedFile {
  return Object.freeze({ type: file.type, size: Number(file.size), sha256: file.sha256 });
}

/** A record as JSON: its fields, times as epoch milliseconds, absent facts absent. */
function recordJson(record: AssetRecord): Record<string, unknown> {
  return { ...record, createdAt: record.createdAt.getTime(), uploadedAt: record.uploadedAt.getTime() };
}

function recordFromJson(text: string): AssetRecord {
  const json = JSON.parse(text) as AssetRecord & { createdAt: number; uploadedAt: number };
  return Object.freeze({ ...json, createdAt: new Date(json.createdAt), uploadedAt: new Date(json.uploadedAt) });
}

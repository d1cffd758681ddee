import Database from 'better-sqlite3';
import { createPool } from 'mysql2/promise';
import { ulid } from 'ulid';

/** The asset columns the baseline reads: the same row shape the service's schema holds. */
export interface AssetRow {
  id: string;
  workspace: string;
  label: string;
  blob_id: string;
  blob_key: string;
  type: string;
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  created_at: number;
  uploaded_at: number;
  version: number;
}

/**
 * `count` asset rows of `workspace` shaped like uploaded 1x1 PNGs, ids in
 * time order from now and blob keys as the service stores an upload's: the
 * seed of the listing benchmark (rest-list-assets), the same rows for ours
 * and the baseline.
 */
export function seedRows(workspace: string, count: number): AssetRow[] {
  const at = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const id = `as_${ulid(at + i).toLowerCase()}`;
    const blobId = `bl_${ulid(at + i).toLowerCase()}`;
    return {
      id,
      workspace,
      label: 'bench',
      blob_id: blobId,
      blob_key: `${workspace}/${id}/${blobId}.png`,
      type: 'image/png',
      size: 68,
      sha256: 'f'.repeat(64),
      width: 1,
      height: 1,
      created_at: at + i,
      uploaded_at: at + i,
      version: 1,
    };
  });
}

export interface RouteRow {
  id: string;
  workspace: string;
  method: string;
  path: string;
  shape: string;
  shape_hash: string;
  middleware: string;
  handler: string;
  created_at: number;
}

export interface BaselineStore {
  getAsset(workspace: string, id: string): Promise<AssetRow | undefined>;
  /** A workspace's assets newest first (descending id), below `before` when given: the keyset query of a page. */
  listAssets(workspace: string, before: string | undefined, limit: number): Promise<AssetRow[]>;
  insertAsset(row: AssetRow): Promise<void>;
  /** Many rows in one transaction (seeding). */
  insertAssets(rows: readonly AssetRow[]): Promise<void>;
  /** False when the workspace already has a route with this method and shape. */
  insertRoute(row: RouteRow): Promise<boolean>;
  close(): Promise<void>;
}

/** The service's schema (service/src/migrations/0001-initial.ts), written out as plain DDL. */
function schema(tableSuffix = ''): string[] {
  return [
    `CREATE TABLE routes (id VARCHAR(40) PRIMARY KEY, workspace VARCHAR(128) NOT NULL, method VARCHAR(16) NOT NULL,
      path TEXT NOT NULL, shape TEXT NOT NULL, shape_hash CHAR(64) NOT NULL, middleware TEXT NOT NULL, handler VARCHAR(255) NOT NULL,
      created_at BIGINT NOT NULL, CONSTRAINT routes_workspace_method_shape UNIQUE (workspace, method, shape_hash))${tableSuffix}`,
    'CREATE INDEX routes_workspace_created ON routes (workspace, created_at, id)',
    `CREATE TABLE assets (id VARCHAR(40) PRIMARY KEY, workspace VARCHAR(128) NOT NULL, label TEXT NOT NULL,
      blob_id VARCHAR(40) NOT NULL, blob_key VARCHAR(512) NOT NULL, type VARCHAR(255) NOT NULL, size BIGINT NOT NULL,
      sha256 CHAR(64) NOT NULL, width INTEGER, height INTEGER, created_at BIGINT NOT NULL, uploaded_at BIGINT NOT NULL,
      version INTEGER NOT NULL, CONSTRAINT assets_blob_id UNIQUE (blob_id))${tableSuffix}`,
    'CREATE INDEX assets_blob_key ON assets (blob_key)',
    // 0002-assets-by-workspace: pages of a workspace's assets by id.
    'CREATE INDEX assets_workspace_id ON assets (workspace, id)',
  ];
}
const ASSET_COLUMNS = 'id, workspace, label, blob_id, blob_key, type, size, sha256, width, height, created_at, uploaded_at, version';
const ROUTE_COLUMNS = 'id, workspace, method, path, shape, shape_hash, middleware, handler, created_at';
const SELECT_ASSET = `SELECT ${ASSET_COLUMNS} FROM assets WHERE workspace = ? AND id = ?`;
const LIST_FIRST = `SELECT ${ASSET_COLUMNS} FROM assets WHERE workspace = ? ORDER BY id DESC LIMIT ?`;
const LIST_BELOW = `SELECT ${ASSET_COLUMNS} FROM assets WHERE workspace = ? AND id < ? ORDER BY id DESC LIMIT ?`;
const INSERT_ASSET = `INSERT INTO assets (${ASSET_COLUMNS}) VALUES (${ASSET_COLUMNS.replace(/\w+/g, '?')})`;
const INSERT_ROUTE = `INSERT INTO routes (${ROUTE_COLUMNS}) VALUES (${ROUTE_COLUMNS.replace(/\w+/g, '?')})`;

/** A row's values in the order of a column list. */
function values(columns: string, row: AssetRow | RouteRow): (string | number | null)[] {
  return columns.split(', ').map((column) => row[column as keyof typeof row]);
}

/** SQLite through better-sqlite3 in WAL mode, prepared statements: the direct way, as durable as ours (every commit fsynced). */
export function openSqliteStore(file: string): BaselineStore {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  for (const sql of schema()) db.exec(sql);
  const select = db.prepare<[string, string], AssetRow>(SELECT_ASSET);
  const listFirst = db.prepare<[string, number], AssetRow>(LIST_FIRST);
  const listBelow = db.prepare<[string, string, number], AssetRow>(LIST_BELOW);
  const insertAsset = db.prepare(INSERT_ASSET);
  const insertRoute = db.prepare(INSERT_ROUTE);
  const insertMany = db.transaction((rows: readonly AssetRow[]) => {
    for (const row of rows) insertAsset.run(values(ASSET_COLUMNS, row));
  });
  return {
    getAsset: async (workspace, id) => select.get(workspace, id),
    listAssets: async (workspace, before, limit) =>
      before === undefined ? listFirst.all(workspace, limit) : listBelow.all(workspace, before, limit),
    insertAsset: async (row) => void insertAsset.run(values(ASSET_COLUMNS, row)),
    insertAssets: async (rows) => void insertMany(rows),
    async insertRoute(row) {
      try {
        insertRoute.run(values(ROUTE_COLUMNS, row));
        return true;
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
        throw error;
      }
    },
    close: async () => void db.close(),
  };
}

/** MySQL/MariaDB through a mysql2 pool with server-side prepared statements. */
export async function openMysqlStore(url: string): Promise<BaselineStore> {
  const pool = createPool({ uri: url, connectionLimit: 10, supportBigNumbers: true, bigNumberStrings: false });
  for (const sql of schema(' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin')) await pool.query(sql);
  return {
    async getAsset(workspace, id) {
      const [rows] = await pool.execute(SELECT_ASSET, [workspace, id]);
      return (rows as AssetRow[])[0];
    },
    async listAssets(workspace, before, limit) {
      const [rows] =
        before === undefined ? await pool.query(LIST_FIRST, [workspace, limit]) : await pool.query(LIST_BELOW, [workspace, before, limit]);
      return rows as AssetRow[];
    },
    insertAsset: async (row) => void (await pool.execute(INSERT_ASSET, values(ASSET_COLUMNS, row))),
    async insertAssets(rows) {
      const connection = await pool.getConnection();
      try {
        await connection.beginTransaction();
        for (const row of rows) await connection.execute(INSERT_ASSET, values(ASSET_COLUMNS, row));
        await connection.commit();
      } finally {
        connection.release();
      }
    },
    async insertRoute(row) {
      try {
        await pool.execute(INSERT_ROUTE, values(ROUTE_COLUMNS, row));
        return true;
      } catch (error) {
        if ((error as { code?: string }).code === 'ER_DUP_ENTRY') return false;
        throw error;
      }
    },
    close: () => pool.end(),
  };
}

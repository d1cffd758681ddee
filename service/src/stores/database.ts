import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, MysqlAdapter, MysqlDialect, SqliteDialect } from 'kysely';
import { createPool } from 'mysql2';
import { SwitchyardError } from '@switchyard/core';
import type { Database } from './schema.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import { allowDirectReads } from './prepared-query.js';
import { allowDirectWrites } from './sqlite-write-now.js';
import { withQueryTimeout } from './mysql-query-timeout.js';
import { DEFAULT_STORAGE_TIMEOUT_MS, type DatabaseConfig } from './storage-config.js';

/** How long SQLite waits for another process's write lock before SQLITE_BUSY. */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens the records database: one Kysely type for both dialects, so every
 * store has a single code path. The caller owns it and ends it with
 * `db.destroy()`.
 */
export function openDatabase(config: DatabaseConfig): Kysely<Database> {
  return config.kind === 'sqlite' ? openSqlite(config.file) : openMysql(config.url, config.timeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS);
}

export function dialectOf(db: Kysely<Database>): DatabaseConfig['kind'] {
  return db.getExecutor().adapter instanceof MysqlAdapter ? 'mysql' : 'sqlite';
}

function openSqlite(file: string): Kysely<Database> {
  let database: SqliteDatabase.Database;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    database = new SqliteDatabase(file);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SwitchyardError('unavailable', `cannot open the SQLite database ${file}: ${reason}`, [], { cause: error });
  }
  // WAL lets readers run beside the writer. synchronous = FULL, said explicitly: better-sqlite3 is built with
  // SQLITE_DEFAULT_WAL_SYNCHRONOUS=1, so entering WAL mode would drop it to NORMAL, where a commit is not fsynced
  // and power loss may take acknowledged records (strace: 8 fsyncs for 100 inserts, 109 with FULL).
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  database.pragma('foreign_keys = ON');
  const cached = withStatementCache(database);
  // No plugins: prepared reads may then skip Kysely's executor (allowDirectReads).
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached }) });
  allowDirectReads(db, cached.readNow);
  allowDirectWrites(db, database);
  return db;
}

function openMysql(url: string, timeoutMs: number): Kysely<Database> {
  const pool = createPool({
    uri: url,
    // Times are stored as epoch milliseconds; UTC here keeps any DATETIME the driver meets unambiguous.
    timezone: 'Z',
    dateStrings: true,
    // BIGINTs come back as numbers, and as strings only past 2^53 (never for our sizes and times).
    supportBigNumbers: true,
    bigNumberStrings: false,
    connectionLimit: 10,
    connectTimeout: timeoutMs,
    enableKeepAlive: true,
  });
  return new Kysely<Database>({ dialect: new MysqlDialect({ pool: withQueryTimeout(pool, timeoutMs) }) });
}

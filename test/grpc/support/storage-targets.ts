import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { openStorage, type StorageConfig } from '@switchyard/service';
import { createTestMysqlDatabase } from '../../support/mysql.js';
import { startS3rver } from '../../support/s3rver.js';
import { tempDir } from './test-service.js';

/** What storage holds, compared before and after an operation that must leave nothing behind. */
export interface StorageSnapshot {
  /** Number of asset records. */
  readonly assetRows: number;
  /** Every key the blob store lists. */
  readonly blobKeys: string[];
  /** Every file under DATA_DIR but the database and the secret (disk only: catches stray temp files). */
  readonly files: string[];
}

export interface StorageTarget {
  readonly name: string;
  readonly storage: StorageConfig;
  readonly dataDir: string;
  snapshot(): Promise<StorageSnapshot>;
  cleanup(): Promise<void>;
}

/** The embedded default: SQLite and files under a fresh DATA_DIR. */
export async function sqliteDiskTarget(): Promise<StorageTarget> {
  const dir = await tempDir('grpc-sqlite');
  const storage: StorageConfig = {
    database: { kind: 'sqlite', file: join(dir.path, 'switchyard.sqlite') },
    blobs: { kind: 'disk', root: join(dir.path, 'files') },
  };
  return target('sqlite-disk', storage, dir.path, dir.remove);
}

/** MySQL (its own database) and S3 (s3rver); `undefined` when MySQL is unreachable and not required. */
export async function mysqlS3Target(): Promise<StorageTarget | undefined> {
  const database = await createTestMysqlDatabase();
  if (!database) return undefined;
  const s3 = await startS3rver();
  const dir = await tempDir('grpc-mysql');
  const storage: StorageConfig = { database: { kind: 'mysql', url: database.url }, blobs: s3.config };
  return target('mysql-s3', storage, dir.path, async () => {
    await s3.close();
    await database.drop();
    await dir.remove();
  });
}

function target(name: string, storage: StorageConfig, dataDir: string, cleanup: () => Promise<void>): StorageTarget {
  return {
    name,
    storage,
    dataDir,
    cleanup,
    snapshot: async () => ({
      assetRows: await assetRows(storage),
      blobKeys: await blobKeys(storage),
      files: storage.blobs.kind === 'disk' ? await filesUnder(dataDir) : [],
    }),
  };
}

export async function blobKeys(storage: StorageConfig): Promise<string[]> {
  const reader = await openStorage(storage, { migrate: false });
  try {
    const keys: string[] = [];
    for await (const blob of reader.blobStore.list()) keys.push(blob.key);
    return keys.sort();
  } finally {
    await reader.close();
  }
}

const NOT_BLOBS = /(\.sqlite(-wal|-shm|-journal)?|auth-secret|url-signing-key)$/;

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((path) => !NOT_BLOBS.test(path))
    .sort();
}

/** Asset records, counted straight from the database. */
async function assetRows(storage: StorageConfig): Promise<number> {
  const reader = await openStorage(storage, { migrate: false });
  try {
    const row = await reader.db
      .selectFrom('assets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await reader.close();
  }
}

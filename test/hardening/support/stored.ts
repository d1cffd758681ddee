import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { loadServiceConfig, openStorage, type StorageConfig } from '@switchyard/service';

/** What a stack has stored: records (resumable uploads with their offsets), blobs, and any other file under DATA_DIR (temp files included). */
export interface Stored {
  readonly assetRows: number;
  readonly routeRows: number;
  /** Resumable uploads, one `id offset/length parts` line each, sorted: a refused call moves no offset and adds no part. */
  readonly uploads: readonly string[];
  readonly blobKeys: readonly string[];
  /** Files under DATA_DIR but the database and the secret. */
  readonly files: readonly string[];
  /** API keys, one `id workspace revokedAt secretDigest` line each, sorted: a refused call makes, revokes and rolls none. */
  readonly keys: readonly string[];
}

const NOT_BLOBS = /(\.sqlite(-wal|-shm|-journal)?|auth-secret|url-signing-key)$/;

/** Reads what a SQLite + disk stack in `dataDir` holds, straight from its database and folder. */
export async function storedIn(
  dataDir: string,
  storage: StorageConfig = loadServiceConfig({ DATA_DIR: dataDir }).storage,
): Promise<Stored> {
  const reader = await openStorage(storage, { migrate: false });
  try {
    const count = async (table: 'assets' | 'routes') =>
      Number(
        (
          await reader.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const blobKeys: string[] = [];
    for await (const blob of reader.blobStore.list()) blobKeys.push(blob.key);
    const entries = storage.blobs.kind === 'disk' ? await readdir(dataDir, { recursive: true, withFileTypes: true }) : [];
    const files = entries
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dataDir, join(entry.parentPath, entry.name)))
      .filter((path) => !NOT_BLOBS.test(path));
    const uploads = (await reader.db.selectFrom('resumable_uploads').select(['id', 'upload_offset', 'upload_length', 'parts']).execute())
      .map((row) => `${row.id} ${row.upload_offset}/${row.upload_length ?? '?'} ${row.parts}`)
      .sort();
    const keys = (await reader.db.selectFrom('api_keys').select(['id', 'workspace', 'revoked_at', 'secret_digest']).execute())
      .map((row) => `${row.id} ${row.workspace} ${row.revoked_at ?? '-'} ${row.secret_digest}`)
      .sort();
    return {
      assetRows: await count('assets'),
      routeRows: await count('routes'),
      uploads,
      blobKeys: blobKeys.sort(),
      files: files.sort(),
      keys,
    };
  } finally {
    await reader.close();
  }
}

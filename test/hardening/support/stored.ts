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
  /** Webhook endpoints, one `id workspace url events description enabled updatedAt secret previousSecret` line each, sorted. */
  readonly webhooks: readonly string[];
  /** Webhook deliveries: a refused call queues none (the relay changes their status, never their number). */
  readonly deliveryRows: number;
}

const NOT_BLOBS = /(\.sqlite(-wal|-shm|-journal)?|auth-secret|url-signing-key)$/;

/** Reads what a SQLite + disk stack in `dataDir` holds, straight from its database and folder. */
export async function storedIn(
  dataDir: string,
  storage: StorageConfig = loadServiceConfig({ DATA_DIR: dataDir }).storage,
): Promise<Stored> {
  const reader = await openStorage(storage, { migrate: false });
  try {
    const count = async (table: 'assets' | 'routes' | 'webhook_deliveries') =>
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
    // Not failing_since: the relay sets it as deliveries fail, whoever asked.
    const webhooks = (
      await reader.db
        .selectFrom('webhook_endpoints')
        .select(['id', 'workspace', 'url', 'events', 'description', 'enabled', 'updated_at', 'secret', 'previous_secret'])
        .execute()
    )
      .map((row) =>
        [
          row.id,
          row.workspace,
          row.url,
          row.events,
          row.description,
          row.enabled,
          row.updated_at,
          row.secret,
          row.previous_secret ?? '-',
        ].join(' '),
      )
      .sort();
    return {
      assetRows: await count('assets'),
      routeRows: await count('routes'),
      uploads,
      blobKeys: blobKeys.sort(),
      files: files.sort(),
      keys,
      webhooks,
      deliveryRows: await count('webhook_deliveries'),
    };
  } finally {
    await reader.close();
  }
}

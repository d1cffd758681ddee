import { sql, type Kysely } from 'kysely';
import {
  SwitchyardError,
  type AssetStore,
  type BlobStore,
  type KeyStore,
  type RouteStore,
  type UploadStore,
  type WebhookStore,
} from '@switchyard/core';
import { migrateToLatest } from '../migrations/index.js';
import { openDatabase } from './database.js';
import { DiskBlobStore } from './disk-blob-store.js';
import { KyselyAssetStore } from './kysely-asset-store.js';
import { KyselyKeyStore } from './kysely-key-store.js';
import { KyselyRouteStore } from './kysely-route-store.js';
import { KyselyUploadStore } from './kysely-upload-store.js';
import { KyselyWebhookStore } from './kysely-webhook-store.js';
import { S3BlobStore } from './s3-blob-store.js';
import type { Database } from './schema.js';
import type { BlobStoreConfig, StorageConfig } from './storage-config.js';

/** The adapters the core needs, with a health check and an explicit end. */
export interface Storage {
  readonly routeStore: RouteStore;
  readonly assetStore: AssetStore;
  readonly blobStore: BlobStore;
  /** Resumable uploads' state, in the same database as the records. */
  readonly uploadStore: UploadStore;
  /** Workspace API keys (digests only), in the same database. */
  readonly keyStore: KeyStore;
  /** Webhook endpoints and the outbox the asset and route stores write in their transactions. */
  readonly webhookStore: WebhookStore;
  /** Resolves when the database and the blob store both answer; else throws `unavailable`. */
  check(): Promise<void>;
  /** Ends the database pool and the blob store's client. Idempotent. */
  close(): Promise<void>;
}

/** Storage on a real database, which tools (migrations, tests) can reach directly. */
export interface DatabaseStorage extends Storage {
  readonly db: Kysely<Database>;
}

export interface OpenStorageOptions {
  /** Apply pending migrations before returning (default true). */
  readonly migrate?: boolean | undefined;
}

export async function openStorage(config: StorageConfig, options: OpenStorageOptions = {}): Promise<DatabaseStorage> {
  const db = openDatabase(config.database);
  const blobs = openBlobStore(config.blobs);
  try {
    if (options.migrate ?? true) await migrateToLatest(db);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    blobs.close();
    throw error;
  }

  let closing: Promise<void> | undefined;
  const webhookStore = new KyselyWebhookStore(db);
  return Object.freeze({
    db,
    routeStore: new KyselyRouteStore(db, { history: config.routeHistory, outbox: webhookStore }),
    assetStore: new KyselyAssetStore(db, { history: config.assetHistory, outbox: webhookStore }),
    webhookStore,
    uploadStore: new KyselyUploadStore(db),
    keyStore: new KyselyKeyStore(db),
    blobStore: blobs.store,
    check: async () => {
      await Promise.all([checkDatabase(db), blobs.store.check()]);
    },
    close: () =>
      (closing ??= (async () => {
        blobs.close();
        await db.destroy();
      })()),
  });
}

async function checkDatabase(db: Kysely<Database>): Promise<void> {
  try {
    await sql`SELECT 1`.execute(db);
  } catch (error) {
    throw new SwitchyardError('unavailable', 'database unavailable', [], { cause: error });
  }
}

function openBlobStore(config: BlobStoreConfig): { store: BlobStore; close(): void } {
  if (config.kind === 'disk') return { store: new DiskBlobStore(config.root), close: () => undefined };
  const store = new S3BlobStore(config);
  return { store, close: () => store.close() };
}

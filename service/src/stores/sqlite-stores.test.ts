// The record stores on SQLite: the library's conformance suites, on a fresh file database.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import {
  assetStoreConformance,
  keyStoreConformance,
  routeStoreConformance,
  uploadStoreConformance,
  webhookStoreConformance,
} from '@switchyard/core/testing';
import { migrateToLatest } from '../migrations/index.js';
import { openDatabase } from './database.js';
import { KyselyAssetStore } from './kysely-asset-store.js';
import { KyselyKeyStore } from './kysely-key-store.js';
import { KyselyRouteStore } from './kysely-route-store.js';
import { KyselyUploadStore } from './kysely-upload-store.js';
import { KyselyWebhookStore } from './kysely-webhook-store.js';
import { rolledBackWritesQueueNothing } from './webhook-outbox.test-support.js';
import type { Database } from './schema.js';

let dir: string;
let db: Kysely<Database>;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchyard-sqlite-stores-'));
  db = openDatabase({ kind: 'sqlite', file: join(dir, 'nested', 'records.sqlite') });
  await migrateToLatest(db);
});

test.after.always(async () => {
  await db?.destroy();
  await rm(dir, { recursive: true, force: true });
});

// One shared database: every conformance test uses its own workspaces.
routeStoreConformance(test, { name: 'sqlite', create: async () => ({ store: new KyselyRouteStore(db) }) });
assetStoreConformance(test, {
  name: 'sqlite',
  create: async () => ({ store: new KyselyAssetStore(db) }),
  createWithHistory: async (history) => ({ store: new KyselyAssetStore(db, { history }) }),
});
uploadStoreConformance(test, { name: 'sqlite', create: async () => ({ store: new KyselyUploadStore(db) }) });
keyStoreConformance(test, { name: 'sqlite', create: async () => ({ store: new KyselyKeyStore(db) }) });
webhookStoreConformance(test, {
  name: 'sqlite',
  create: async () => {
    const webhooks = new KyselyWebhookStore(db);
    return {
      store: { webhooks, assets: new KyselyAssetStore(db, { outbox: webhooks }), routes: new KyselyRouteStore(db, { outbox: webhooks }) },
    };
  },
});
test('sqlite: a write whose transaction fails after the outbox wrote leaves no change and no delivery', (t) =>
  rolledBackWritesQueueNothing(t, db));

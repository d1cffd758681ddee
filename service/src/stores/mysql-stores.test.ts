// The record stores on MySQL (MariaDB): the library's conformance suites, in a database of their own.
import test from 'ava';
import type { Kysely } from 'kysely';
import {
  assetStoreConformance,
  keyStoreConformance,
  routeStoreConformance,
  uploadStoreConformance,
  webhookStoreConformance,
} from '@switchyard/core/testing';
import { migrateToLatest } from '../migrations/index.js';
import { createTestMysqlDatabase } from '../../../test/support/mysql.js';
import { openDatabase } from './database.js';
import { KyselyAssetStore } from './kysely-asset-store.js';
import { KyselyKeyStore } from './kysely-key-store.js';
import { KyselyRouteStore } from './kysely-route-store.js';
import { KyselyUploadStore } from './kysely-upload-store.js';
import { KyselyWebhookStore } from './kysely-webhook-store.js';
import { rolledBackWritesQueueNothing } from './webhook-outbox.test-support.js';
import type { Database } from './schema.js';

/** Nothing listens on port 1: connections are refused at once. */
const UNREACHABLE_URL = 'mysql://root@127.0.0.1:1/switchyard';

const database = await createTestMysqlDatabase();

if (!database) {
  test.skip('MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () => undefined);
} else {
  const db: Kysely<Database> = openDatabase({ kind: 'mysql', url: database.url });
  test.before(async () => {
    await migrateToLatest(db);
  });
  test.after.always(async () => {
    await db.destroy();
    await database.drop();
  });

  const unreachable =
    <Store>(make: (db: Kysely<Database>) => Store) =>
    async () => {
      const closed = openDatabase({ kind: 'mysql', url: UNREACHABLE_URL });
      return { store: make(closed), close: () => closed.destroy() };
    };
  routeStoreConformance(test, {
    name: 'mysql',
    create: async () => ({ store: new KyselyRouteStore(db) }),
    createUnavailable: unreachable((closed) => new KyselyRouteStore(closed)),
  });
  assetStoreConformance(test, {
    name: 'mysql',
    create: async () => ({ store: new KyselyAssetStore(db) }),
    createWithHistory: async (history) => ({ store: new KyselyAssetStore(db, { history }) }),
    createUnavailable: unreachable((closed) => new KyselyAssetStore(closed)),
  });
  uploadStoreConformance(test, { name: 'mysql', create: async () => ({ store: new KyselyUploadStore(db) }) });
  keyStoreConformance(test, {
    name: 'mysql',
    create: async () => ({ store: new KyselyKeyStore(db) }),
    createUnavailable: unreachable((closed) => new KyselyKeyStore(closed)),
  });
  webhookStoreConformance(test, {
    name: 'mysql',
    create: async () => {
      const webhooks = new KyselyWebhookStore(db);
      return {
        store: { webhooks, assets: new KyselyAssetStore(db, { outbox: webhooks }), routes: new KyselyRouteStore(db, { outbox: webhooks }) },
      };
    },
  });
  test('mysql: a write whose transaction fails after the outbox wrote leaves no change and no delivery', (t) =>
    rolledBackWritesQueueNothing(t, db));
}

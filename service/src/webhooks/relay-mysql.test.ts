// The relay on MySQL (MariaDB): claims with FOR UPDATE SKIP LOCKED keep each delivery with one instance.
import test from 'ava';
import type { Kysely } from 'kysely';
import { createTestMysqlDatabase } from '../../../test/support/mysql.js';
import { migrateToLatest } from '../migrations/index.js';
import { openDatabase } from '../stores/database.js';
import type { Database } from '../stores/schema.js';
import { aLocalCommitWakesTheRelay, claimsOfADeadInstanceResume, twoInstancesSendEachDeliveryOnce } from './relay-stores.test-support.js';

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
  test.serial('mysql: the deliveries a dead instance had claimed are sent by another once its claims lapse', (t) =>
    claimsOfADeadInstanceResume(t, db),
  );
  test.serial('mysql: two relays on one database send each delivery once', (t) => twoInstancesSendEachDeliveryOnce(t, db, 100));
  test.serial('mysql: a change committed in this process wakes the relay before its poll', (t) => aLocalCommitWakesTheRelay(t, db));
}

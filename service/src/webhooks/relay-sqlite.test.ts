// The relay on SQLite: a claim left by a dead instance resumes after its lease; two relays on one file send each delivery once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../migrations/index.js';
import { openDatabase } from '../stores/database.js';
import type { Database } from '../stores/schema.js';
import { aLocalCommitWakesTheRelay, claimsOfADeadInstanceResume, twoInstancesSendEachDeliveryOnce } from './relay-stores.test-support.js';

let dir: string;
let db: Kysely<Database>;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchyard-webhook-relay-'));
  db = openDatabase({ kind: 'sqlite', file: join(dir, 'records.sqlite') });
  await migrateToLatest(db);
});

test.after.always(async () => {
  await db?.destroy();
  await rm(dir, { recursive: true, force: true });
});

test.serial('sqlite: the deliveries a dead instance had claimed are sent by another once its claims lapse', (t) =>
  claimsOfADeadInstanceResume(t, db),
);
test.serial('sqlite: two relays on one database send each delivery once', (t) => twoInstancesSendEachDeliveryOnce(t, db, 30));
test.serial('sqlite: a change committed in this process wakes the relay before its poll', (t) => aLocalCommitWakesTheRelay(t, db));

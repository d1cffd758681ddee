import { randomBytes } from 'node:crypto';
import { createUlidSource } from '../ids.js';
import type { KeyRecord, KeyStore } from '../ports/key-store.js';
import { assertRejectsWithCode, defineCase, uniqueName, type ConformanceOptions, type RegisterTest } from './conformance.js';

const ids = createUlidSource();
const BASE_TIME = Date.parse('2024-05-06T07:08:09.123Z');
const DAY = 24 * 60 * 60 * 1000;
const at = (ms: number): Date => new Date(BASE_TIME + ms);
const digest = (): string => randomBytes(32).toString('hex');

/** A fresh key of `workspace`, made at 2024-05-06, expiring 30 days later. */
export function sampleKey(workspace: string, overrides: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: ids.next('key'),
    workspace,
    name: 'Deploy bot – ✓',
    scopes: ['routes:read', 'routes:write'],
    createdBy: 'alice@example.com',
    createdAt: at(0),
    expiresAt: at(30 * DAY),
    lastUsedAt: undefined,
    revokedAt: undefined,
    secretDigest: digest(),
    previousDigest: undefined,
    previousValidUntil: undefined,
    ...overrides,
  };
}

/** Every field spelled out, times as ISO strings. */
function view(record: KeyRecord | undefined): unknown {
  if (!record) return record;
  const iso = (date: Date | undefined) => date?.toISOString();
  return {
    id: record.id,
    workspace: record.workspace,
    name: record.name,
    scopes: [...record.scopes],
    createdBy: record.createdBy,
    createdAt: iso(record.createdAt),
    expiresAt: iso(record.expiresAt),
    lastUsedAt: iso(record.lastUsedAt),
    revokedAt: iso(record.revokedAt),
    secretDigest: record.secretDigest,
    previousDigest: record.previousDigest,
    previousValidUntil: iso(record.previousValidUntil),
  };
}

/** Registers the KeyStore contract tests (see `ports/key-store.ts`). */
export function keyStoreConformance(test: RegisterTest, options: ConformanceOptions<KeyStore>): void {
  const name = 'KeyStore';

  defineCase(test, options, `${name}: insert then get and find by digest, get only within its workspace`, async (t, store) => {
    const workspace = uniqueName();
    const record = sampleKey(workspace, { scopes: ['assets:read', 'workspace:admin'] });
    await store.insert(record);
    t.deepEqual(view(await store.get(workspace, record.id)), view(record));
    t.is(await store.get(uniqueName(), record.id), undefined);
    t.is(await store.get(workspace, ids.next('key')), undefined);
    t.deepEqual(view(await store.findByDigest(record.secretDigest)), view(record));
    t.is(await store.findByDigest(digest()), undefined);
  });

  defineCase(test, options, `${name}: a taken id or digest is already_exists`, async (t, store) => {
    const workspace = uniqueName();
    const record = sampleKey(workspace);
    await store.insert(record);
    await assertRejectsWithCode(t, store.insert(sampleKey(workspace, { id: record.id })), 'already_exists', 'same id');
    await assertRejectsWithCode(
      t,
      store.insert(sampleKey(workspace, { secretDigest: record.secretDigest })),
      'already_exists',
      'same digest',
    );
  });

  defineCase(test, options, `${name}: list is in id order, paged by the last id, of one workspace`, async (t, store) => {
    const workspace = uniqueName();
    const keys = [sampleKey(workspace), sampleKey(workspace), sampleKey(workspace)];
    for (const key of [keys[2]!, keys[0]!, keys[1]!]) await store.insert(key);
    await store.insert(sampleKey(uniqueName()));
    const keptSince = at(-DAY);
    t.deepEqual((await store.list(workspace, { limit: 10, keptSince })).map(view), keys.map(view));
    t.deepEqual(
      (await store.list(workspace, { limit: 2, keptSince })).map((key) => key.id),
      [keys[0]!.id, keys[1]!.id],
    );
    t.deepEqual(
      (await store.list(workspace, { limit: 2, after: keys[1]!.id, keptSince })).map((key) => key.id),
      [keys[2]!.id],
    );
  });

  defineCase(test, options, `${name}: list leaves out keys revoked or expired before keptSince`, async (t, store) => {
    const workspace = uniqueName();
    const live = sampleKey(workspace);
    const expiredLong = sampleKey(workspace, { expiresAt: at(DAY) });
    const expiredLately = sampleKey(workspace, { expiresAt: at(3 * DAY) });
    const revokedLong = sampleKey(workspace, { revokedAt: at(DAY) });
    const revokedLately = sampleKey(workspace, { revokedAt: at(3 * DAY) });
    for (const key of [live, expiredLong, expiredLately, revokedLong, revokedLately]) await store.insert(key);
    const listed = await store.list(workspace, { limit: 10, keptSince: at(2 * DAY) });
    t.deepEqual(listed.map((key) => key.id).sort(), [live.id, expiredLately.id, revokedLately.id].sort());
  });

  defineCase(test, options, `${name}: revoke sets revokedAt once and returns the record`, async (t, store) => {
    const workspace = uniqueName();
    const record = sampleKey(workspace);
    await store.insert(record);
    t.is(await store.revoke(uniqueName(), record.id, at(1000)), undefined);
    t.is(await store.revoke(workspace, ids.next('key'), at(1000)), undefined);
    t.is((await store.revoke(workspace, record.id, at(1000)))?.revokedAt?.toISOString(), at(1000).toISOString());
    t.is((await store.revoke(workspace, record.id, at(2000)))?.revokedAt?.toISOString(), at(1000).toISOString());
    t.is((await store.findByDigest(record.secretDigest))?.revokedAt?.toISOString(), at(1000).toISOString());
  });

  defineCase(test, options, `${name}: roll keeps one previous digest, and none for a revoked key`, async (t, store) => {
    const workspace = uniqueName();
    const record = sampleKey(workspace);
    await store.insert(record);
    const second = digest();
    const rolled = await store.roll(workspace, record.id, { secretDigest: second, previousValidUntil: at(5000) });
    t.deepEqual(view(rolled), view({ ...record, secretDigest: second, previousDigest: record.secretDigest, previousValidUntil: at(5000) }));
    t.is((await store.findByDigest(record.secretDigest))?.id, record.id);
    t.is((await store.findByDigest(second))?.id, record.id);
    const third = digest();
    await store.roll(workspace, record.id, { secretDigest: third, previousValidUntil: at(6000) });
    t.is(await store.findByDigest(record.secretDigest), undefined);
    t.is((await store.findByDigest(second))?.previousDigest, second);
    t.is(await store.roll(uniqueName(), record.id, { secretDigest: digest(), previousValidUntil: at(0) }), undefined);
    await store.revoke(workspace, record.id, at(7000));
    t.is(await store.roll(workspace, record.id, { secretDigest: digest(), previousValidUntil: at(0) }), undefined);
    t.is((await store.get(workspace, record.id))?.secretDigest, third);
  });

  defineCase(test, options, `${name}: touch writes lastUsedAt only when it is unset or stale`, async (t, store) => {
    const workspace = uniqueName();
    const record = sampleKey(workspace);
    await store.insert(record);
    const lastUsed = async () => (await store.get(workspace, record.id))?.lastUsedAt?.toISOString();
    await store.touch(record.id, at(60_000), at(0));
    t.is(await lastUsed(), at(60_000).toISOString());
    await store.touch(record.id, at(90_000), at(30_000));
    t.is(await lastUsed(), at(60_000).toISOString());
    await store.touch(record.id, at(120_000), at(60_000));
    t.is(await lastUsed(), at(120_000).toISOString());
    await store.touch(ids.next('key'), at(0), at(0));
  });

  defineCase(
    test,
    options,
    `${name}: purge deletes keys expired or revoked before a time, of any workspace, up to a limit`,
    async (t, store) => {
      // Long before every other case's keys, so a purge here leaves theirs alone.
      const long = -400 * DAY;
      const live = sampleKey(uniqueName(), { createdAt: at(long), expiresAt: at(long + 100 * DAY) });
      const expired = sampleKey(uniqueName(), { createdAt: at(long), expiresAt: at(long + DAY) });
      const revoked = sampleKey(uniqueName(), { createdAt: at(long), revokedAt: at(long + DAY) });
      const lately = sampleKey(uniqueName(), { createdAt: at(long), expiresAt: at(long + 3 * DAY) });
      for (const key of [live, expired, revoked, lately]) await store.insert(key);
      const before = at(long + 2 * DAY);
      t.is(await store.purge(before, 1), 1, 'one at most');
      t.is(await store.purge(before, 10), 1);
      t.is(await store.purge(before, 10), 0);
      t.is(await store.get(expired.workspace, expired.id), undefined);
      t.is(await store.findByDigest(revoked.secretDigest), undefined);
      t.is((await store.get(live.workspace, live.id))?.id, live.id);
      t.is((await store.get(lately.workspace, lately.id))?.id, lately.id);
    },
  );

  if (options.createUnavailable) {
    defineCase(
      test,
      options,
      `${name} unreachable backend: every operation is unavailable`,
      async (t, store) => {
        const workspace = uniqueName();
        const id = ids.next('key');
        await assertRejectsWithCode(t, store.insert(sampleKey(workspace)), 'unavailable', 'insert');
        await assertRejectsWithCode(t, store.get(workspace, id), 'unavailable', 'get');
        await assertRejectsWithCode(t, store.list(workspace, { limit: 1, keptSince: at(0) }), 'unavailable', 'list');
        await assertRejectsWithCode(t, store.findByDigest(digest()), 'unavailable', 'findByDigest');
        await assertRejectsWithCode(t, store.revoke(workspace, id, at(0)), 'unavailable', 'revoke');
        await assertRejectsWithCode(
          t,
          store.roll(workspace, id, { secretDigest: digest(), previousValidUntil: at(0) }),
          'unavailable',
          'roll',
        );
        await assertRejectsWithCode(t, store.touch(id, at(0), at(0)), 'unavailable', 'touch');
        await assertRejectsWithCode(t, store.purge(at(0), 1), 'unavailable', 'purge');
      },
      options.createUnavailable,
    );
  }
}

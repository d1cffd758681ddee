import { createUlidSource } from '../ids.js';
import type { UploadRecord, UploadStore } from '../ports/upload-store.js';
import { assertRejectsWithCode, defineCase, uniqueName, type ConformanceOptions, type RegisterTest } from './conformance.js';

const ids = createUlidSource();
const HOUR = 60 * 60 * 1000;

/** A fresh, empty upload of `workspace` that expires in an hour from 2024-05-06. */
export function sampleUpload(workspace: string, overrides: Partial<UploadRecord> = {}): UploadRecord {
  const createdAt = new Date('2024-05-06T07:08:09.123Z');
  return {
    id: ids.next('upload'),
    workspace,
    length: 300,
    offset: 0,
    parts: [],
    partial: false,
    intent: { filename: 'Sommer ☀.jpg', label: 'Fotos – 📷', visibility: 'private', replace: ids.next('asset') },
    createdAt,
    expiresAt: new Date(createdAt.getTime() + HOUR),
    assetId: undefined,
    ...overrides,
  };
}

/** Every field spelled out, times as ISO strings. */
function view(record: UploadRecord | undefined): unknown {
  if (!record) return record;
  const { intent } = record;
  return {
    id: record.id,
    workspace: record.workspace,
    length: record.length,
    offset: record.offset,
    parts: record.parts.map((part) => ({ key: part.key, size: part.size })),
    partial: record.partial,
    intent: { filename: intent.filename, label: intent.label, visibility: intent.visibility, replace: intent.replace },
    createdAt: record.createdAt.toISOString(),
    expiresAt: record.expiresAt.toISOString(),
    assetId: record.assetId,
  };
}

const later = (record: UploadRecord, ms: number): Date => new Date(record.expiresAt.getTime() + ms);

/** Registers the UploadStore contract tests (see `ports/upload-store.ts`). */
export function uploadStoreConformance(test: RegisterTest, options: ConformanceOptions<UploadStore>): void {
  const name = 'UploadStore';

  defineCase(test, options, `${name}: insert then get returns the record, only within its workspace`, async (t, store) => {
    const workspace = uniqueName();
    const record = sampleUpload(workspace);
    const deferred = sampleUpload(workspace, { length: undefined, partial: true, intent: {} });
    await store.insert(record);
    await store.insert(deferred);
    t.deepEqual(view(await store.get(workspace, record.id)), view(record));
    t.deepEqual(view(await store.get(workspace, deferred.id)), view(deferred));
    t.is(await store.get(uniqueName(), record.id), undefined);
    t.true(await store.has(record.id));
    t.false(await store.has(ids.next('upload')));
    await assertRejectsWithCode(t, store.insert(record), 'already_exists', 'a repeated id');
  });

  defineCase(test, options, `${name}: commit is a compare-and-set on the offset`, async (t, store) => {
    const workspace = uniqueName();
    const record = sampleUpload(workspace);
    await store.insert(record);
    const first = { key: `_uploads/${workspace}/${record.id}/a`, size: 100 };
    const after = await store.commit(workspace, record.id, 0, { part: first, expiresAt: later(record, 1000) });
    t.deepEqual(view(after), view({ ...record, offset: 100, parts: [first], expiresAt: later(record, 1000) }));
    t.is(
      await store.commit(workspace, record.id, 0, { part: first, expiresAt: later(record, 2000) }),
      undefined,
      'a stale offset changes nothing',
    );
    t.is(
      await store.commit(uniqueName(), record.id, 100, { part: first, expiresAt: later(record, 2000) }),
      undefined,
      'another workspace changes nothing',
    );
    const second = { key: `_uploads/${workspace}/${record.id}/b`, size: 200 };
    const racing = await Promise.all(
      [1, 2, 3, 4].map(() => store.commit(workspace, record.id, 100, { part: second, expiresAt: later(record, 3000) })),
    );
    t.is(racing.filter(Boolean).length, 1, 'exactly one of racing commits at one offset wins');
    t.deepEqual(
      view(await store.get(workspace, record.id)),
      view({ ...record, offset: 300, parts: [first, second], expiresAt: later(record, 3000) }),
    );
  });

  defineCase(test, options, `${name}: a deferred length is set by a commit, with or without bytes`, async (t, store) => {
    const workspace = uniqueName();
    const record = sampleUpload(workspace, { length: undefined });
    await store.insert(record);
    const after = await store.commit(workspace, record.id, 0, { length: 5_000_000_000, expiresAt: record.expiresAt });
    t.is(after?.length, 5_000_000_000, 'lengths past 32 bits survive');
    t.is(after?.offset, 0);
    t.deepEqual(after?.parts, []);
  });

  defineCase(
    test,
    options,
    `${name}: a commit that contradicts the upload's length changes nothing; a commit ends only its own holder's lease`,
    async (t, store) => {
      const workspace = uniqueName();
      const record = sampleUpload(workspace, { length: undefined });
      await store.insert(record);
      t.truthy(await store.commit(workspace, record.id, 0, { length: 100, expiresAt: record.expiresAt }));
      t.is(
        await store.commit(workspace, record.id, 0, { length: 90, expiresAt: record.expiresAt }),
        undefined,
        'a second, different length is refused',
      );
      t.is((await store.get(workspace, record.id))?.length, 100);
      const now = new Date('2024-05-06T08:00:00.000Z');
      t.true(await store.acquireAppend(workspace, record.id, 'runner', now, new Date(now.getTime() - 20_000)));
      await store.commit(workspace, record.id, 0, {
        part: { key: `_uploads/${workspace}/${record.id}/a`, size: 10 },
        expiresAt: record.expiresAt,
        holder: 'stranger',
      });
      t.false(
        await store.acquireAppend(workspace, record.id, 'third', now, new Date(now.getTime() - 20_000)),
        'the runner still holds its lease',
      );
      t.truthy((await store.get(workspace, record.id))?.appendLeaseSince, 'and it still reads as leased');
    },
  );

  defineCase(test, options, `${name}: referencesPart finds a part's key in any upload's parts list`, async (t, store) => {
    const workspace = uniqueName();
    const record = sampleUpload(workspace);
    await store.insert(record);
    const key = `_uploads/${uniqueName()}/up_${'0'.repeat(26)}/bl_${uniqueName()}`;
    t.false(await store.referencesPart(key));
    await store.commit(workspace, record.id, 0, { part: { key, size: 10 }, expiresAt: record.expiresAt });
    t.true(await store.referencesPart(key));
    t.false(await store.referencesPart(key.slice(0, -1)), 'a prefix of a key is not the key');
  });

  defineCase(
    test,
    options,
    `${name}: one finish claim at a time, renewed by its own time; finish records the asset and ends commits`,
    async (t, store) => {
      const workspace = uniqueName();
      const record = sampleUpload(workspace, { length: 10 });
      await store.insert(record);
      const part = { key: `_uploads/${workspace}/${record.id}/a`, size: 10 };
      await store.commit(workspace, record.id, 0, { part, expiresAt: record.expiresAt });
      const now = new Date('2024-05-06T08:00:00.000Z');
      const staleBefore = new Date(now.getTime() - HOUR);
      const claims = await Promise.all([1, 2, 3].map(() => store.claimFinish(workspace, record.id, now, staleBefore)));
      t.is(claims.filter(Boolean).length, 1, 'one claim wins');
      t.false(await store.claimFinish(workspace, record.id, now, staleBefore), 'a fresh claim is held');
      // Renewed, a claim stays fresh where the first time would have gone stale; only the claim's own time renews it.
      const renewedAt = new Date(now.getTime() + 2 * HOUR);
      t.false(
        await store.renewFinish(workspace, record.id, new Date(now.getTime() + 1), renewedAt),
        'another claim time does not renew it',
      );
      t.true(await store.renewFinish(workspace, record.id, now, renewedAt));
      t.false(
        await store.claimFinish(workspace, record.id, new Date(now.getTime() + 2 * HOUR), new Date(now.getTime() + HOUR)),
        'a renewed claim is not stale',
      );
      t.false(
        await store.renewFinish(workspace, record.id, now, new Date(now.getTime() + 3 * HOUR)),
        'the claim moved on: its old time is no token any more',
      );
      t.true(
        await store.claimFinish(workspace, record.id, new Date(now.getTime() + 4 * HOUR), new Date(now.getTime() + 3 * HOUR)),
        'a stale claim is taken over',
      );
      t.false(
        await store.renewFinish(workspace, record.id, renewedAt, new Date(now.getTime() + 4 * HOUR)),
        'a claim taken over is not renewed by its old holder',
      );
      await store.releaseFinish(workspace, record.id);
      t.false(
        await store.renewFinish(workspace, record.id, new Date(now.getTime() + 4 * HOUR), new Date(now.getTime() + 5 * HOUR)),
        'a released claim is not renewed',
      );
      t.true(await store.claimFinish(workspace, record.id, now, staleBefore), 'a released claim can be taken');
      const assetId = ids.next('asset');
      await store.finish(workspace, record.id, assetId, later(record, HOUR));
      const finished = await store.get(workspace, record.id);
      t.is(finished?.assetId, assetId);
      t.deepEqual(finished?.parts, []);
      t.is(finished?.expiresAt.toISOString(), later(record, HOUR).toISOString());
      t.false(
        await store.claimFinish(workspace, record.id, new Date(now.getTime() + 9 * HOUR), now),
        'a finished upload is not claimed again',
      );
      t.false(await store.renewFinish(workspace, record.id, now, new Date(now.getTime() + 9 * HOUR)), 'nor its claim renewed');
      t.is(await store.commit(workspace, record.id, 10, { expiresAt: record.expiresAt }), undefined, 'a finished upload takes no commit');
    },
  );

  defineCase(
    test,
    options,
    `${name}: one append lease at a time; a commit naming its holder or a release ends it; a stale one is taken over`,
    async (t, store) => {
      const workspace = uniqueName();
      const record = sampleUpload(workspace);
      await store.insert(record);
      const now = new Date('2024-05-06T08:00:00.000Z');
      const staleBefore = new Date(now.getTime() - 20_000);
      const racing = await Promise.all(
        ['a', 'b', 'c'].map((holder) => store.acquireAppend(workspace, record.id, holder, now, staleBefore)),
      );
      t.is(racing.filter(Boolean).length, 1, 'one of racing holders gets the lease');
      const winner = ['a', 'b', 'c'][racing.indexOf(true)]!;
      const other = winner === 'a' ? 'b' : 'a';
      t.false(await store.acquireAppend(workspace, record.id, other, now, staleBefore));
      await store.releaseAppend(workspace, record.id, other);
      t.false(await store.acquireAppend(workspace, record.id, other, now, staleBefore), 'only the holder releases its lease');
      await store.renewAppend(workspace, record.id, winner, new Date(now.getTime() + 30_000));
      t.false(
        await store.acquireAppend(workspace, record.id, other, new Date(now.getTime() + 40_000), new Date(now.getTime() + 20_000)),
        'a renewed lease is not stale',
      );
      await store.commit(workspace, record.id, 0, {
        part: { key: `_uploads/${workspace}/${record.id}/a`, size: 10 },
        expiresAt: record.expiresAt,
        holder: winner,
      });
      t.true(await store.acquireAppend(workspace, record.id, other, now, staleBefore), 'the commit ended the lease');
      t.true(
        await store.acquireAppend(workspace, record.id, winner, new Date(now.getTime() + 60_000), new Date(now.getTime() + 40_000)),
        'a stale lease is taken over',
      );
      await store.releaseAppend(workspace, record.id, winner);
      t.true(await store.acquireAppend(workspace, record.id, other, now, staleBefore), 'a released lease is free');
      t.false(await store.acquireAppend(uniqueName(), record.id, 'z', now, staleBefore), 'not from another workspace');
    },
  );

  defineCase(
    test,
    options,
    `${name}: delete removes the record within its workspace; expired lists past-expiry records of any workspace`,
    async (t, store) => {
      const workspace = uniqueName();
      const old = sampleUpload(workspace, { expiresAt: new Date('2001-01-01T00:00:00.000Z') });
      const fresh = sampleUpload(uniqueName(), { expiresAt: new Date('2999-01-01T00:00:00.000Z') });
      await store.insert(old);
      await store.insert(fresh);
      const expired = await store.expired(new Date('2002-01-01T00:00:00.000Z'), 1000);
      const listed = new Set(expired.map((record) => record.id));
      t.true(listed.has(old.id) && !listed.has(fresh.id), 'expired lists the past-expiry record, not the fresh one');
      // Counted across workspaces, so at a time no other case reaches: years past every other expiry here.
      const horizon = new Date(Date.UTC(3500, 0, 1) + Math.floor(Math.random() * 1e9));
      t.is(await store.countOpen(horizon), 0);
      const far = sampleUpload(uniqueName(), { expiresAt: horizon });
      await store.insert(far);
      t.is(await store.countOpen(horizon), 1, 'an unfinished upload not expired is open');
      t.is(await store.countOpen(new Date(horizon.getTime() + 1)), 0, 'an expired one is not');
      await store.finish(far.workspace, far.id, ids.next('asset'), horizon);
      t.is(await store.countOpen(horizon), 0, 'a finished one is not');
      t.false(await store.delete(uniqueName(), old.id), 'another workspace deletes nothing');
      t.false(await store.delete(workspace, old.id, new Date('2000-01-01T00:00:00.000Z')), 'not expired before that time: kept');
      t.true(await store.delete(workspace, old.id, new Date('2002-01-01T00:00:00.000Z')));
      t.false(await store.delete(workspace, old.id));
      t.is(await store.get(workspace, old.id), undefined);
      t.false(await store.has(old.id));
      await store.delete(fresh.workspace, fresh.id);
    },
  );
}

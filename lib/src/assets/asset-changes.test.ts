import test from 'ava';
import { createHash } from 'node:crypto';
import { createPrincipal } from '../auth/principal.js';
import { SwitchyardError } from '../errors.js';
import { MemoryAssetStore } from '../memory/memory-asset-store.js';
import type { AssetWrite } from '../ports/asset-change-log.js';
import { uploadsSetup } from '../uploads/test-support.js';
import { alice, bob, chunked, principalWith, setup } from './test-support.js';
import type { AssetChange } from './types.js';

// Every mutating path of the asset service logs its change, by its caller, at the clock's time; and the reads.

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const body = (text: string) => chunked(Buffer.from(text));

/** A change without its asset's every field: what a test compares. */
function summary(change: AssetChange) {
  return {
    type: change.type,
    revision: change.revision,
    time: change.time.toISOString(),
    actor: change.actor,
    assetId: change.assetId,
    asset: change.asset && { id: change.asset.id, name: change.asset.name, label: change.asset.label, visibility: change.asset.visibility },
    previous: change.previous,
  };
}

async function allChanges(service: ReturnType<typeof setup>['service'], principal = alice) {
  const since = await service.changesSince(principal, 0);
  if (since.reset) throw new Error('the history was reset');
  return since.changes;
}

test('upload, replace, update, revoke, delete: each logs one change by the caller, at the clock, in order', async (t) => {
  const { service, clock } = setup();
  const t0 = clock.now().getTime();
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const asset = await service.upload(alice, { body: body('first'), filename: 'a.txt', label: 'one' });
  clock.advance(1);
  const replaced = await service.replace(alice, asset.id, { body: body('second!'), filename: 'b.txt' });
  clock.advance(1);
  await service.update(alice, asset.id, { label: 'two', visibility: 'private' });
  clock.advance(1);
  const carol = principalWith('assets:write', 'assets:read');
  await service.revokeSignedUrls(carol, asset.id);
  clock.advance(1);
  await service.delete(alice, asset.id);
  const view = { id: asset.id, name: 'b.txt', label: 'two', visibility: 'private' };
  t.deepEqual((await allChanges(service)).map(summary), [
    {
      type: 'asset.created',
      revision: 1,
      time: at(0),
      actor: 'alice',
      assetId: asset.id,
      asset: { id: asset.id, name: 'a.txt', label: 'one', visibility: 'public' },
      previous: undefined,
    },
    {
      type: 'asset.replaced',
      revision: 2,
      time: at(1),
      actor: 'alice',
      assetId: asset.id,
      asset: { id: asset.id, name: 'b.txt', label: 'one', visibility: 'public' },
      previous: { type: 'text/plain', size: 5, sha256: sha256(Buffer.from('first')) },
    },
    { type: 'asset.updated', revision: 3, time: at(2), actor: 'alice', assetId: asset.id, asset: view, previous: undefined },
    { type: 'asset.updated', revision: 4, time: at(3), actor: 'carol', assetId: asset.id, asset: view, previous: undefined },
    { type: 'asset.deleted', revision: 5, time: at(4), actor: 'alice', assetId: asset.id, asset: null, previous: undefined },
  ]);
  const [created, replace] = await allChanges(service);
  t.deepEqual(created?.asset, asset, 'the asset as the upload answered it');
  t.deepEqual(replace?.asset, replaced, 'the asset as the replace answered it');
  t.is(await service.revision(alice), 5);
  t.is(await service.revision(bob), 0, "another workspace's revision is its own");
});

test('a batch delete is one revision with a change per deleted asset, in the order asked', async (t) => {
  const { service, assetStore } = setup();
  const [a, b, c] = [
    await service.upload(alice, { body: body('a') }),
    await service.upload(alice, { body: body('b') }),
    await service.upload(bob, { body: body('c') }),
  ];
  const results = await service.batchDelete(alice, [b.id, 'nonsense', a.id, b.id, c.id]);
  t.deepEqual(results, [
    { id: b.id, code: 'ok' },
    { id: 'nonsense', code: 'invalid_argument' },
    { id: a.id, code: 'ok' },
    { id: b.id, code: 'not_found' },
    { id: c.id, code: 'not_found' },
  ]);
  const since = await service.changesSince(alice, 2);
  t.deepEqual(since.reset ? since : since.changes.map((change) => [change.revision, change.type, change.assetId, change.asset]), [
    [3, 'asset.deleted', b.id, null],
    [3, 'asset.deleted', a.id, null],
  ]);
  t.deepEqual(await service.batchDelete(alice, [a.id]), [{ id: a.id, code: 'not_found' }]);
  t.is(await assetStore.revision('ws-alice'), 3, 'a batch that deletes nothing makes no revision');
  t.truthy(await service.get(bob, c.id), "another workspace's asset stays");
});

test('a batch delete that the store fails deletes none of its assets and logs nothing', async (t) => {
  class FailingBatch extends MemoryAssetStore {
    override async deleteMany(): Promise<AssetWrite[]> {
      throw new SwitchyardError('unavailable', 'database down');
    }
  }
  const { service } = setup({ assetStore: new FailingBatch() });
  const a = await service.upload(alice, { body: body('a') });
  t.is((await t.throwsAsync<SwitchyardError>(service.batchDelete(alice, [a.id])))?.code, 'unavailable');
  t.truthy(await service.get(alice, a.id));
  t.is(await service.revision(alice), 1);
});

test('refused and failed writes log nothing', async (t) => {
  class FailingInsert extends MemoryAssetStore {
    override async insert(): Promise<AssetWrite> {
      throw new SwitchyardError('unavailable', 'database down');
    }
  }
  const failing = setup({ assetStore: new FailingInsert() });
  await t.throwsAsync(failing.service.upload(alice, { body: body('x') }));
  t.is(await failing.service.revision(alice), 0, 'a record that could not be written');
  const { service } = setup({ maxUploadBytes: 4 });
  await t.throwsAsync(service.upload(alice, { body: body('too large') }));
  await t.throwsAsync(service.upload(alice, { body: body('ok'), label: () => '\u0000' }));
  const asset = await service.upload(alice, { body: body('ok') });
  await t.throwsAsync(service.replace(alice, asset.id, { body: body('too large') }));
  await t.throwsAsync(service.update(alice, asset.id, { label: '\u0007' }));
  await t.throwsAsync(service.delete(bob, asset.id));
  t.deepEqual(
    (await allChanges(service)).map((change) => change.type),
    ['asset.created'],
    'only the upload that stood',
  );
});

test('tus uploads log asset.created when they finish, and asset.replaced when they replace', async (t) => {
  const { uploads, service } = uploadsSetup();
  const created = await uploads.create(alice, { length: 5, intent: { filename: 'tus.txt' } });
  t.is(await service.revision(alice), 0, 'an unfinished upload is no change');
  await uploads.append(alice, created.id, { offset: 0, body: body('hello') });
  const assetId = (await uploads.get(alice, created.id)).assetId!;
  const replacing = await uploads.create(alice, { length: 3, intent: { replace: assetId } });
  await uploads.append(alice, replacing.id, { offset: 0, body: body('bye') });
  t.deepEqual(
    (await allChanges(service)).map((change) => [change.revision, change.type, change.assetId, change.actor]),
    [
      [1, 'asset.created', assetId, 'alice'],
      [2, 'asset.replaced', assetId, 'alice'],
    ],
  );
});

test('changesSince: whole revisions after the one given; reset with the current revision when they are no longer kept', async (t) => {
  const { service } = setup({ assetStore: new MemoryAssetStore({ history: 2 }) });
  const asset = await service.upload(alice, { body: body('a') });
  for (const label of ['x', 'y', 'z']) await service.update(alice, asset.id, { label });
  const since = async (revision: number, limit?: number) => {
    const answer = await service.changesSince(alice, revision, limit);
    return answer.reset ? answer : answer.changes.map((change) => change.revision);
  };
  t.deepEqual(await since(2), [3, 4]);
  t.deepEqual(await since(2, 1), [3]);
  t.deepEqual(await since(4), []);
  t.deepEqual(await since(1), { reset: true, revision: 4 }, 'older than the kept history');
  t.deepEqual(await since(9), { reset: true, revision: 4 }, 'a revision the workspace never had');
  for (const [revision, limit, field] of [
    [-1, undefined, 'sinceRevision'],
    [1.5, undefined, 'sinceRevision'],
    [0, 0, 'limit'],
    [0, 1001, 'limit'],
  ] as const) {
    const error = await t.throwsAsync<SwitchyardError>(service.changesSince(alice, revision, limit));
    t.is(error?.code, 'invalid_argument');
    t.is(error?.details[0]?.field, field);
  }
});

test("history pages an asset's changes newest first; a deleted asset's stay; unknown ids and other workspaces are not_found", async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: body('a') });
  const other = await service.upload(alice, { body: body('b') });
  for (const label of ['1', '2', '3']) {
    await service.update(alice, asset.id, { label });
    await service.update(alice, other.id, { label });
  }
  await service.delete(alice, asset.id);
  const first = await service.history(alice, asset.id, { pageSize: 2 });
  t.deepEqual(
    first.changes.map((change) => [change.revision, change.type]),
    [
      [9, 'asset.deleted'],
      [7, 'asset.updated'],
    ],
  );
  const second = await service.history(alice, asset.id, { pageSize: 2, pageToken: first.nextPageToken });
  t.deepEqual(
    second.changes.map((change) => change.revision),
    [5, 3],
  );
  const last = await service.history(alice, asset.id, { pageSize: 2, pageToken: second.nextPageToken });
  t.deepEqual(
    last.changes.map((change) => [change.revision, change.type]),
    [[1, 'asset.created']],
  );
  t.is(last.nextPageToken, '', 'the last page says so');
  t.is((await service.history(alice, asset.id, {})).changes.length, 5, '50 by default');
  const code = async (promise: Promise<unknown>) => (await t.throwsAsync<SwitchyardError>(promise))?.code;
  t.is(await code(service.history(alice, other.id, { pageToken: first.nextPageToken })), 'invalid_argument', "another asset's token");
  t.is(await code(service.history(alice, asset.id, { pageToken: 'forged' })), 'invalid_argument', 'a forged token');
  t.is(await code(service.history(alice, asset.id, { pageSize: 1001 })), 'invalid_argument');
  t.is(await code(service.history(alice, 'as_nonsense', {})), 'invalid_argument', 'a malformed id');
  t.is(await code(service.history(bob, other.id, {})), 'not_found', "another workspace's asset does not exist for bob");
  t.is(await code(service.history(alice, 'as_00000000000000000000000099', {})), 'not_found', 'an unknown id');
});

test('reading changes needs assets:read, in every workspace', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: body('a') });
  const writer = createPrincipal('writer', 'ws-alice', ['assets:write']);
  for (const read of [service.revision(writer), service.changesSince(writer, 0), service.history(writer, asset.id, {})])
    t.is((await t.throwsAsync<SwitchyardError>(read))?.code, 'permission_denied');
});

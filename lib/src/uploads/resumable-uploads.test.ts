import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { alice, bob, chunked, listBlobs, principalWith, readFixture } from '../assets/test-support.js';
import { systemTime } from '../clock.js';
import { SwitchyardError } from '../errors.js';
import { collectGarbage } from '../maintenance/collect-garbage.js';
import { MemoryAssetStore } from '../memory/memory-asset-store.js';
import type { AssetWrite } from '../ports/asset-change-log.js';
import { CHECKSUM_MISMATCH_FIELD } from './store-part.js';
import { cutAfter, DAY, rejection, settledOnFakeTime, sha256, uploadsSetup } from './test-support.js';

test('an upload in three appends becomes an asset with the sha256 of all its bytes; its parts are gone after', async (t) => {
  const { uploads, service, blobStore } = uploadsSetup();
  const file = randomBytes(300_000);
  const created = await uploads.create(alice, { length: file.length, intent: { filename: 'a.bin', label: 'three runs' } });
  t.regex(created.id, /^up_/);
  t.is(created.offset, 0);
  let status = await uploads.append(alice, created.id, { offset: 0, body: chunked(file.subarray(0, 100_000)) });
  t.is(status.offset, 100_000);
  status = await uploads.append(alice, created.id, { offset: 100_000, body: chunked(file.subarray(100_000, 250_000)) });
  t.is(status.assetId, undefined);
  status = await uploads.append(alice, created.id, { offset: 250_000, body: chunked(file.subarray(250_000)) });
  t.is(status.offset, file.length);
  t.regex(status.assetId ?? '', /^as_/);
  const asset = await service.get(alice, status.assetId!);
  t.is(asset.sha256, sha256(file));
  t.is(asset.size, file.length);
  t.is(asset.label, 'three runs');
  t.is((await uploads.get(alice, created.id)).assetId, asset.id, 'the upload tells its asset afterwards');
  t.false(
    (await listBlobs(blobStore)).some((blob) => blob.key.startsWith('_uploads/')),
    'no part is left',
  );
});

test('a cut body keeps the bytes that arrived; the client resumes from the offset it reads', async (t) => {
  const { uploads, service } = uploadsSetup();
  const file = randomBytes(50_000);
  const { id } = await uploads.create(alice, { length: file.length });
  const cut = await rejection(uploads.append(alice, id, { offset: 0, body: cutAfter(file.subarray(0, 20_000)) }));
  t.is(cut.code, 'canceled');
  const { offset } = await uploads.get(alice, id);
  t.is(offset, 20_000);
  const done = await uploads.append(alice, id, { offset, body: chunked(file.subarray(offset)) });
  t.is((await service.get(alice, done.assetId!)).sha256, sha256(file));
});

test('with a checksum a run is all or nothing: a cut or a mismatch keeps no byte; a match is kept', async (t) => {
  const { uploads } = uploadsSetup();
  const file = randomBytes(10_000);
  const { id } = await uploads.create(alice, { length: file.length });
  const digest = createHash('sha1').update(file.subarray(0, 4_000)).digest();
  t.is(
    (
      await rejection(
        uploads.append(alice, id, { offset: 0, body: cutAfter(file.subarray(0, 2_000)), checksum: { algorithm: 'sha1', digest } }),
      )
    ).code,
    'canceled',
  );
  t.is((await uploads.get(alice, id)).offset, 0);
  const wrong = await rejection(
    uploads.append(alice, id, {
      offset: 0,
      body: chunked(file.subarray(0, 4_000)),
      checksum: { algorithm: 'sha1', digest: Buffer.alloc(20) },
    }),
  );
  t.is(wrong.code, 'invalid_argument');
  t.true(wrong.details.some((detail) => detail.field === CHECKSUM_MISMATCH_FIELD));
  t.is((await uploads.get(alice, id)).offset, 0);
  const ok = await uploads.append(alice, id, {
    offset: 0,
    body: chunked(file.subarray(0, 4_000)),
    checksum: { algorithm: 'sha1', digest },
  });
  t.is(ok.offset, 4_000);
  const sha = createHash('sha256').update(file.subarray(4_000)).digest();
  t.truthy(
    (
      await uploads.append(alice, id, {
        offset: 4_000,
        body: chunked(file.subarray(4_000)),
        checksum: { algorithm: 'sha256', digest: sha },
      })
    ).assetId,
  );
});

test('a wrong offset is aborted (409) and bytes past the length are refused, keeping nothing', async (t) => {
  const { uploads, fake } = uploadsSetup();
  const { id } = await uploads.create(alice, { length: 10 });
  t.is((await rejection(uploads.append(alice, id, { offset: 3, body: chunked(Buffer.alloc(3)) }))).code, 'aborted');
  t.is((await rejection(uploads.append(alice, id, { offset: 0, body: chunked(Buffer.alloc(11)) }))).code, 'resource_exhausted');
  t.is((await uploads.get(alice, id)).offset, 0);
  // The losers wait for the winner's lease; time moves on until they give up.
  const racing = await settledOnFakeTime(
    fake,
    Promise.allSettled([1, 2, 3].map(() => uploads.append(alice, id, { offset: 0, body: chunked(Buffer.alloc(4)) }))),
  );
  t.is(racing.filter((result) => result.status === 'fulfilled').length, 1, 'of racing appends at one offset one wins');
  t.is((await uploads.get(alice, id)).offset, 4);
});

test('a deferred length is declared by a later append; sizes above the policy are refused at creation and while bytes arrive', async (t) => {
  const { uploads, service } = uploadsSetup({ maxUploadBytes: 1000 });
  t.is((await rejection(uploads.create(alice, { length: 1001 }))).code, 'resource_exhausted');
  const { id } = await uploads.create(alice, {});
  t.is((await uploads.get(alice, id)).length, undefined);
  await uploads.append(alice, id, { offset: 0, body: chunked(Buffer.alloc(600, 1)) });
  t.is((await rejection(uploads.append(alice, id, { offset: 600, body: chunked(Buffer.alloc(401, 1)) }))).code, 'resource_exhausted');
  const done = await uploads.append(alice, id, { offset: 600, body: chunked(Buffer.alloc(100, 1)), length: 700 });
  t.is((await service.get(alice, done.assetId!)).size, 700);

  await service.setPolicy(alice, { maxUploadBytes: 500 });
  t.is((await rejection(uploads.create(alice, { length: 501 }))).code, 'resource_exhausted', 'the workspace policy lowers the limit');
});

test('partial uploads concatenate into one asset; the partials are gone after', async (t) => {
  const { uploads, service, blobStore } = uploadsSetup();
  const file = randomBytes(90_000);
  const pieces = [file.subarray(0, 30_000), file.subarray(30_000, 70_000), file.subarray(70_000)];
  const partials = await Promise.all(pieces.map((piece) => uploads.create(alice, { length: piece.length, concat: 'partial' })));
  await Promise.all(partials.map((partial, index) => uploads.append(alice, partial.id, { offset: 0, body: chunked(pieces[index]!) })));
  t.is((await uploads.get(alice, partials[0]!.id)).assetId, undefined, 'a complete partial is no asset');
  const final = await uploads.create(alice, { concat: { final: partials.map((partial) => partial.id) }, intent: { label: 'joined' } });
  t.is(final.offset, file.length);
  const asset = await service.get(alice, final.assetId!);
  t.is(asset.sha256, sha256(file));
  t.is(asset.label, 'joined');
  for (const partial of partials) t.is((await rejection(uploads.get(alice, partial.id))).code, 'not_found');
  t.false((await listBlobs(blobStore)).some((blob) => blob.key.startsWith('_uploads/')));
});

test('a final upload refuses unfinished, non-partial, foreign and repeated parts', async (t) => {
  const { uploads } = uploadsSetup();
  const unfinished = await uploads.create(alice, { length: 10, concat: 'partial' });
  const whole = await uploads.create(alice, { length: 10 });
  const foreign = await uploads.create(bob, { length: 0, concat: 'partial' });
  t.is((await rejection(uploads.create(alice, { concat: { final: [unfinished.id] } }))).code, 'invalid_argument');
  t.is((await rejection(uploads.create(alice, { concat: { final: [whole.id] } }))).code, 'invalid_argument');
  t.is((await rejection(uploads.create(alice, { concat: { final: [foreign.id] } }))).code, 'not_found');
  t.is((await rejection(uploads.create(alice, { concat: { final: [] } }))).code, 'invalid_argument');
  await uploads.append(alice, unfinished.id, { offset: 0, body: chunked(Buffer.alloc(10)) });
  t.is((await rejection(uploads.create(alice, { concat: { final: [unfinished.id, unfinished.id] } }))).code, 'invalid_argument');
});

test('the workspace policy refuses the sniffed type at finish: 415-marked, and nothing of the upload is kept', async (t) => {
  const { uploads, service, blobStore } = uploadsSetup();
  await service.setPolicy(alice, { allowedTypes: ['image/*'] });
  const text = Buffer.from('just some words, not an image\n'.repeat(100));
  const { id } = await uploads.create(alice, { length: text.length });
  await uploads.append(alice, id, { offset: 0, body: chunked(text.subarray(0, 1000)) });
  const refused = await rejection(uploads.append(alice, id, { offset: 1000, body: chunked(text.subarray(1000)) }));
  t.is(refused.code, 'invalid_argument');
  t.true(refused.details.some((detail) => detail.field === 'mediaType'));
  t.is((await rejection(uploads.get(alice, id))).code, 'not_found');
  t.deepEqual(await listBlobs(blobStore), []);
  t.is((await service.list(alice, {})).assets.length, 0);
});

test('the replace metadata swaps the file of an existing asset and keeps its id; an unknown asset is refused at creation', async (t) => {
  const { uploads, service } = uploadsSetup();
  const original = await service.upload(alice, { body: chunked(await readFixture('image.png')) });
  const jpeg = await readFixture('photo.jpg');
  const { id } = await uploads.create(alice, { length: jpeg.length, intent: { replace: original.id } });
  const done = await uploads.append(alice, id, { offset: 0, body: chunked(jpeg) });
  t.is(done.assetId, original.id);
  const replaced = await service.get(alice, original.id);
  t.is(replaced.type, 'image/jpeg');
  t.is(replaced.sha256, sha256(jpeg));
  t.is((await rejection(uploads.create(alice, { length: 5, intent: { replace: 'as_00000000000000000000000000' } }))).code, 'not_found');
  t.is((await rejection(uploads.create(alice, { length: 5, intent: { replace: 'nope' } }))).code, 'invalid_argument');
});

test("the filename becomes the asset's name, cleaned and cut (never refused); a replace keeps the name unless it names a file", async (t) => {
  const { uploads, service } = uploadsSetup();
  const bytes = Buffer.from('named\n');
  const created = await uploads.create(alice, { length: bytes.length, intent: { filename: `Bericht\r\n${'x'.repeat(2000)}.txt` } });
  t.is(created.filename, `Bericht${'x'.repeat(244)}.txt`, 'the upload keeps what can become the name');
  const done = await uploads.append(alice, created.id, { offset: 0, body: chunked(bytes) });
  const asset = await service.get(alice, done.assetId!);
  t.is(asset.name, `Bericht${'x'.repeat(244)}.txt`);
  const keep = await uploads.create(alice, { length: bytes.length, intent: { replace: asset.id } });
  await uploads.append(alice, keep.id, { offset: 0, body: chunked(bytes) });
  t.is((await service.get(alice, asset.id)).name, asset.name, 'no filename: kept');
  const rename = await uploads.create(alice, { length: bytes.length, intent: { replace: asset.id, filename: 'neu.txt' } });
  await uploads.append(alice, rename.id, { offset: 0, body: chunked(bytes) });
  t.is((await service.get(alice, asset.id)).name, 'neu.txt');
  t.is((await rejection(uploads.create(alice, { length: 1, intent: { filename: 42 as unknown as string } }))).code, 'invalid_argument');
});

test('unfinished uploads expire: they read as not found, and gc removes them with their parts', async (t) => {
  const { uploads, fake, time, uploadStore, blobStore, assetStore } = uploadsSetup();
  const { id } = await uploads.create(alice, { length: 100 });
  fake.tick(1_000);
  await uploads.append(alice, id, { offset: 0, body: chunked(Buffer.alloc(40)) });
  fake.tick(DAY - 1);
  t.is((await uploads.get(alice, id)).offset, 40, 'an append renews the expiry: one ms before a day past it, the upload lives');
  fake.tick(1);
  t.is((await rejection(uploads.get(alice, id))).code, 'not_found');
  t.is((await rejection(uploads.append(alice, id, { offset: 40, body: chunked(Buffer.alloc(60)) }))).code, 'not_found');
  t.is((await listBlobs(blobStore)).length, 1, 'the part is still stored until gc');
  // gc sweeps an upload once its expiry is past, a millisecond after reads stop finding it.
  fake.tick(1);
  const report = await collectGarbage({ blobStore, assetStore, uploadStore, clock: time, graceMs: 0 });
  t.deepEqual(report.expiredUploads, [id]);
  t.deepEqual(await listBlobs(blobStore), []);
});

test('gc keeps the parts of live uploads whatever their age, and removes parts whose upload is gone', async (t) => {
  const { uploads, fake, time, uploadStore, blobStore, assetStore } = uploadsSetup();
  // The memory blob store stamps blobs with the real time.
  fake.setSystemTime(Date.now());
  const live = await uploads.create(alice, { length: 100 });
  await uploads.append(alice, live.id, { offset: 0, body: chunked(Buffer.alloc(40)) });
  await blobStore.put(
    '_uploads/ws-alice/up_00000000000000000000000099/bl_00000000000000000000000001',
    (await import('node:stream')).Readable.from([Buffer.alloc(5)]),
  );
  fake.tick(DAY / 2);
  const report = await collectGarbage({ blobStore, assetStore, uploadStore, clock: time, graceMs: 0 });
  t.deepEqual(report.deleted, ['_uploads/ws-alice/up_00000000000000000000000099/bl_00000000000000000000000001']);
  t.is((await uploads.get(alice, live.id)).offset, 40);
  t.is((await listBlobs(blobStore)).length, 1);
});

test('concurrent finals of the same partials make one asset, the other is refused; a termination never breaks a concatenation under way', async (t) => {
  // The waits here are incidental (a termination waits for a finish doing real work): on real time their order is true.
  const { uploads, service, blobStore } = uploadsSetup({ time: systemTime });
  for (let round = 0; round < 10; round++) {
    const pieces = [randomBytes(150_000), randomBytes(150_000)];
    const partials = await Promise.all(pieces.map((piece) => uploads.create(alice, { length: piece.length, concat: 'partial' })));
    await Promise.all(partials.map((partial, index) => uploads.append(alice, partial.id, { offset: 0, body: chunked(pieces[index]!) })));
    const final = { concat: { final: partials.map((partial) => partial.id) } };
    // Two finals at once, or a final and a termination of one of its partials.
    const rival = round % 2 === 0 ? uploads.create(alice, final) : uploads.terminate(alice, partials[round % 4 === 1 ? 0 : 1]!.id);
    const outcomes = await Promise.allSettled([uploads.create(alice, final), rival]);
    const codes = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? 'ok' : (outcome.reason as SwitchyardError).code));
    // Before, both ran: the one that finished first removed the parts the other was reading (a 500 for a "missing part").
    t.false(codes.includes('internal'), `round ${round}: ${codes.join(', ')}`);
    t.is(
      codes.filter((code) => code === 'ok').length,
      round % 2 === 0 ? 1 : codes[0] === 'ok' ? 2 : 1,
      `round ${round}: ${codes.join(', ')}`,
    );
    for (const outcome of outcomes) {
      const made = outcome.status === 'fulfilled' ? (outcome.value as { assetId?: string } | undefined)?.assetId : undefined;
      if (made) t.is((await service.get(alice, made)).sha256, sha256(Buffer.concat(pieces)));
    }
    // A partial the refused request left is free again: it terminates at once (no claim is left on it).
    for (const partial of partials)
      await uploads.terminate(alice, partial.id).catch((error: SwitchyardError) => t.is(error.code, 'not_found'));
  }
  t.false(
    (await listBlobs(blobStore)).some((blob) => blob.key.startsWith('_uploads/')),
    'no part is left behind',
  );
});

test('termination removes the upload and its bytes; scopes and workspaces are enforced', async (t) => {
  const { uploads, blobStore } = uploadsSetup();
  const { id } = await uploads.create(alice, { length: 100 });
  await uploads.append(alice, id, { offset: 0, body: chunked(Buffer.alloc(40)) });
  t.is((await rejection(uploads.get(bob, id))).code, 'not_found');
  t.is((await rejection(uploads.terminate(bob, id))).code, 'not_found');
  t.is((await rejection(uploads.get(principalWith('assets:read'), id))).code, 'permission_denied');
  t.is((await rejection(uploads.create(principalWith('assets:read'), { length: 1 }))).code, 'permission_denied');
  t.is((await rejection(uploads.get(alice, 'up_bad'))).code, 'invalid_argument');
  await uploads.terminate(alice, id);
  t.is((await rejection(uploads.get(alice, id))).code, 'not_found');
  t.deepEqual(await listBlobs(blobStore), []);
});

test('an empty upload is an empty asset at once', async (t) => {
  const { uploads, service } = uploadsSetup();
  const created = await uploads.create(alice, { length: 0, intent: { filename: 'empty.dat' } });
  t.is((await service.get(alice, created.assetId!)).size, 0);
});

test('a finish that fails for a passing reason keeps the upload; the next get finishes it, never answering "complete" without an asset', async (t) => {
  const { uploads, service, assetStore } = uploadsSetup();
  const insert = assetStore.insert.bind(assetStore);
  let failures = 1;
  assetStore.insert = async (record, author) => {
    if (failures-- > 0) throw new SwitchyardError('unavailable', 'database unavailable');
    return insert(record, author);
  };
  const file = randomBytes(5_000);
  const { id } = await uploads.create(alice, { length: file.length });
  t.is((await rejection(uploads.append(alice, id, { offset: 0, body: chunked(file) }))).code, 'unavailable');
  const status = await uploads.get(alice, id);
  t.is(status.offset, file.length);
  t.is((await service.get(alice, status.assetId!)).sha256, sha256(file));
});

test('a concatenation whose finish fails for a passing reason answers the final upload; gc keeps the parts it took over; a get finishes it', async (t) => {
  const { uploads, service, assetStore, blobStore, uploadStore, fake } = uploadsSetup();
  // The memory blob store stamps blobs with the real time.
  fake.setSystemTime(Date.now());
  const file = randomBytes(20_000);
  const pieces = [file.subarray(0, 8_000), file.subarray(8_000)];
  const partials = await Promise.all(pieces.map((piece) => uploads.create(alice, { length: piece.length, concat: 'partial' })));
  await Promise.all(partials.map((partial, index) => uploads.append(alice, partial.id, { offset: 0, body: chunked(pieces[index]!) })));
  const insert = assetStore.insert.bind(assetStore);
  let failures = 1;
  assetStore.insert = async (record, author) => {
    if (failures-- > 0) throw new SwitchyardError('unavailable', 'database unavailable');
    return insert(record, author);
  };
  const final = await uploads.create(alice, { concat: { final: partials.map((partial) => partial.id) } });
  t.is(final.assetId, undefined, 'answered, not finished');
  t.is(final.offset, file.length);
  const report = await collectGarbage({
    blobStore,
    assetStore,
    uploadStore,
    clock: { now: () => new Date(Date.now() + 60_000) },
    graceMs: 0,
  });
  t.deepEqual(report.deleted, [], 'the parts the final took over are kept, though their partial uploads are gone');
  const done = await uploads.get(alice, final.id);
  t.is((await service.get(alice, done.assetId!)).sha256, sha256(file));
});

test('a finish that runs longer than its claim lives keeps renewing it: no other request takes the upload over meanwhile', async (t) => {
  // The asset store holds the finish at its insert until the test lets it go.
  let reached: () => void = () => {};
  const atInsert = new Promise<void>((resolve) => (reached = resolve));
  let letGo: () => void = () => {};
  const released = new Promise<void>((resolve) => (letGo = resolve));
  const assetStore = new (class extends MemoryAssetStore {
    override async insert(...args: Parameters<MemoryAssetStore['insert']>): Promise<AssetWrite> {
      reached();
      await released;
      return super.insert(...args);
    }
  })();
  const claimMs = 600;
  const { uploads, uploadStore, fake, time } = uploadsSetup({ assetStore, finishClaimMs: claimMs });
  const created = await uploads.create(alice, { length: 5 });
  const finishing = uploads.append(alice, created.id, { offset: 0, body: chunked(Buffer.from('hello')) });
  await atInsert;
  const claimedAt = time.now().getTime();
  // Ten claim lifetimes pass; the claim is renewed every 100 ms meanwhile, the last time at the last of them.
  await fake.tickAsync(10 * claimMs);
  const now = time.now();
  t.is(now.getTime(), claimedAt + 10 * claimMs);
  t.false(
    await uploadStore.claimFinish(alice.workspace, created.id, now, now),
    'the claim was renewed at this very millisecond, so it is not stale even by a claim lifetime of 0',
  );
  letGo();
  t.regex((await finishing).assetId ?? '', /^as_/);
  t.is((await uploads.get(alice, created.id)).assetId, (await finishing).assetId);
});

test('finishClaimMs must be a whole number of milliseconds, at least 60', (t) => {
  for (const finishClaimMs of [0, 59, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    t.throws(() => uploadsSetup({ finishClaimMs }), { message: /finishClaimMs/ });
  }
});

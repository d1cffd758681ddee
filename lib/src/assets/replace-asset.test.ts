import test from 'ava';
import { createHash } from 'node:crypto';
import { SwitchyardError } from '../errors.js';
import { MemoryAssetStore } from '../memory/memory-asset-store.js';
import type { AssetRecord } from '../ports/asset-store.js';
import type { AssetWrite } from '../ports/asset-change-log.js';
import { bytesOf, failingStream } from '../testing/streams.js';
import { MAX_SWAP_ATTEMPTS } from './replace-asset.js';
import { alice, chunked, listBlobs, pathOf, readFixture, setup } from './test-support.js';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

test('replace keeps id, label and createdAt; changes type, size, url, sha256, uploadedAt; keeps the old file as a version', async (t) => {
  const { service, blobStore, clock } = setup();
  const png = await readFixture('image.png');
  const pdf = await readFixture('document.pdf');
  const before = await service.upload(alice, { body: chunked(png), label: 'brochure' });
  const [oldBlob] = await listBlobs(blobStore);
  clock.advance(60_000);
  const after = await service.replace(alice, before.id, { body: chunked(pdf), filename: 'x.png', declaredType: 'image/png' });
  t.is(after.id, before.id);
  t.is(after.label, 'brochure');
  t.deepEqual(after.createdAt, before.createdAt);
  t.is(after.type, 'application/pdf');
  t.is(after.size, pdf.length);
  t.is(after.sha256, sha256(pdf));
  t.not(after.url, before.url);
  t.true(after.url.endsWith('.pdf'));
  t.is(after.uploadedAt.toISOString(), '2024-05-01T12:01:00.000Z');
  t.is(after.width, undefined, 'dimensions follow the new content');
  t.deepEqual(await service.get(alice, before.id), after);

  const blobs = (await listBlobs(blobStore)).map((blob) => blob.key);
  t.is(blobs.length, 2, 'the new blob, and the old one kept by the version');
  t.true(blobs.includes(oldBlob!.key));
  const [version] = await service.listVersions(alice, before.id);
  t.deepEqual([version?.sha256, version?.type, version?.size, version?.actor], [sha256(png), 'image/png', png.length, 'alice']);
  t.deepEqual(await bytesOf((await service.openVersion(alice, before.id, version!.id)).body!), png);
});

test('with retentionDays 0 (or keepVersions 0) a replace deletes the old blob and keeps no version', async (t) => {
  const { service, blobStore } = setup();
  for (const policy of [{ retentionDays: 0 }, { keepVersions: 0 }]) {
    await service.setPolicy(alice, policy);
    const before = await service.upload(alice, { body: chunked(Buffer.from('old bytes')) });
    const [oldBlob] = (await listBlobs(blobStore)).filter((blob) => blob.key.includes(before.id));
    await service.replace(alice, before.id, { body: chunked(Buffer.from('new bytes')) });
    const blobs = (await listBlobs(blobStore)).filter((blob) => blob.key.includes(before.id));
    t.is(blobs.length, 1, JSON.stringify(policy));
    t.not(blobs[0]!.key, oldBlob!.key);
    t.deepEqual(await service.listVersions(alice, before.id), []);
  }
});

test('after a replace the old url is not_found and the new one serves the new bytes', async (t) => {
  const { service } = setup();
  const before = await service.upload(alice, { body: chunked(Buffer.from('old bytes')) });
  const after = await service.replace(alice, before.id, { body: chunked(Buffer.from('new bytes!')) });
  t.is(before.url.slice(-4), after.url.slice(-4), 'same type, same extension: only the blob id differs');
  t.is((await t.throwsAsync<SwitchyardError>(service.openFile(pathOf(before.url))))?.code, 'not_found');
  const file = await service.openFile(pathOf(after.url));
  t.is((await bytesOf(file.body!)).toString(), 'new bytes!');
});

test('replace of a malformed id is invalid_argument, of an unknown one not_found, before the body is read', async (t) => {
  const { service, blobStore } = setup();
  let pulled = false;
  const body = async function* (): AsyncGenerator<Uint8Array> {
    pulled = true;
    yield Buffer.from('x');
  };
  t.is((await t.throwsAsync<SwitchyardError>(service.replace(alice, '../etc', { body: body() })))?.code, 'invalid_argument');
  t.is(
    (await t.throwsAsync<SwitchyardError>(service.replace(alice, 'as_00000000000000000000000077', { body: body() })))?.code,
    'not_found',
  );
  t.false(pulled);
  t.deepEqual(await listBlobs(blobStore), []);
});

test('a replace whose body fails or is too large leaves the asset and its blob as they were', async (t) => {
  const { service, blobStore } = setup({ maxUploadBytes: 100_000 });
  const asset = await service.upload(alice, { body: chunked(Buffer.from('keep me')) });
  const blobsBefore = await listBlobs(blobStore);
  const broken = await t.throwsAsync<SwitchyardError>(
    service.replace(alice, asset.id, { body: failingStream({ bytesBeforeFailure: 50_000 }) }),
  );
  t.is(broken?.code, 'canceled');
  const tooLarge = await t.throwsAsync<SwitchyardError>(service.replace(alice, asset.id, { body: chunked(Buffer.alloc(100_001)) }));
  t.is(tooLarge?.code, 'resource_exhausted');
  t.deepEqual(await service.get(alice, asset.id), asset);
  t.deepEqual(await listBlobs(blobStore), blobsBefore);
});

/** Memory store with a turn of the event loop before each read and swap, as a database would have: replaces interleave. */
class LatentAssetStore extends MemoryAssetStore {
  lostSwaps = 0;
  override async get(workspace: string, id: string): Promise<AssetRecord | undefined> {
    await new Promise((resolve) => setImmediate(resolve));
    return super.get(workspace, id);
  }
  override async swap(...args: Parameters<MemoryAssetStore['swap']>): Promise<AssetWrite | undefined> {
    await new Promise((resolve) => setImmediate(resolve));
    const written = await super.swap(...args);
    if (!written) this.lostSwaps++;
    return written;
  }
}

test('50 concurrent replaces: every one succeeds, the record matches its blob, 5 versions keep theirs, every other replaced blob is gone', async (t) => {
  const assetStore = new LatentAssetStore();
  const { service, blobStore } = setup({ assetStore });
  const asset = await service.upload(alice, { body: chunked(Buffer.from('original')) });
  const bodies = Array.from({ length: 50 }, (_, i) => Buffer.from(`replacement number ${i} `.repeat(1 + (i % 5))));
  const results = await Promise.allSettled(bodies.map((body) => service.replace(alice, asset.id, { body: chunked(body) })));
  t.deepEqual(
    results.filter((result) => result.status === 'rejected'),
    [],
  );
  t.true(assetStore.lostSwaps > 0, 'the replaces must actually have raced for this test to mean anything');

  const record = (await assetStore.get('ws-alice', asset.id)) as AssetRecord;
  t.is(record.version, 51);
  const versions = await assetStore.listVersions('ws-alice', asset.id);
  t.is(versions.length, 5, 'the default keepVersions');
  const blobs = (await listBlobs(blobStore)).map((blob) => blob.key).sort();
  t.deepEqual(blobs, [record.blobKey, ...versions.map((version) => version.blobKey)].sort(), 'no blob but the current and the versions');
  t.is(record.sha256, sha256(await bytesOf((await blobStore.get(record.blobKey))!)));
  t.true(bodies.some((body) => sha256(body) === record.sha256));
});

test('when the asset vanishes during a replace, the new blob is removed and the result is not_found', async (t) => {
  class VanishingStore extends MemoryAssetStore {
    reads = 0;
    override async get(workspace: string, id: string): Promise<AssetRecord | undefined> {
      return ++this.reads > 1 ? undefined : super.get(workspace, id);
    }
  }
  const assetStore = new VanishingStore();
  const { service, blobStore } = setup({ assetStore });
  const asset = await service.upload(alice, { body: chunked(Buffer.from('first')) });
  const blobsBefore = await listBlobs(blobStore);
  assetStore.reads = 0;
  t.is(
    (await t.throwsAsync<SwitchyardError>(service.replace(alice, asset.id, { body: chunked(Buffer.from('second')) })))?.code,
    'not_found',
  );
  t.deepEqual(await listBlobs(blobStore), blobsBefore);
});

test('a replace that keeps losing the compare-and-set gives up with aborted and removes its blob', async (t) => {
  class AlwaysConflicting extends MemoryAssetStore {
    swaps = 0;
    override async swap(): Promise<AssetWrite | undefined> {
      this.swaps++;
      return undefined;
    }
  }
  const assetStore = new AlwaysConflicting();
  const { service, blobStore } = setup({ assetStore });
  const asset = await service.upload(alice, { body: chunked(Buffer.from('first')) });
  const blobsBefore = await listBlobs(blobStore);
  t.is((await t.throwsAsync<SwitchyardError>(service.replace(alice, asset.id, { body: chunked(Buffer.from('second')) })))?.code, 'aborted');
  t.is(assetStore.swaps, MAX_SWAP_ATTEMPTS);
  t.deepEqual(await listBlobs(blobStore), blobsBefore);
});

import test from 'ava';
import { createHash } from 'node:crypto';
import { SwitchyardError } from '../errors.js';
import { MemoryAssetStore } from '../memory/memory-asset-store.js';
import type { AssetRecord } from '../ports/asset-store.js';
import type { AssetWrite } from '../ports/asset-change-log.js';
import { bytesOf, failingStream } from '../testing/streams.js';
import { alice, bob, CDN_URL, chunked, FIXTURE_TYPES, listBlobs, principalWith, readFixture, setup } from './test-support.js';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const ASSET_URL = new RegExp(`^${CDN_URL}/as_[0-9a-z]{26}/bl_[0-9a-z]{26}\\.([a-z0-9]+)$`);

test('upload stores the bytes and returns the asset; get returns the same', async (t) => {
  const { service, blobStore } = setup();
  const png = await readFixture('image.png');
  const asset = await service.upload(alice, { body: chunked(png.subarray(0, 10), png.subarray(10)), label: 'Logos' });
  t.regex(asset.id, /^as_/);
  t.is(asset.type, 'image/png');
  t.is(asset.size, png.length);
  t.is(asset.sha256, sha256(png));
  t.is(asset.label, 'Logos');
  t.is(asset.width, 3);
  t.is(asset.height, 2);
  t.regex(asset.url, ASSET_URL);
  t.true(asset.url.endsWith('.png'));
  t.is(asset.uploadedAt.toISOString(), '2024-05-01T12:00:00.000Z');
  t.deepEqual(asset.createdAt, asset.uploadedAt);
  t.deepEqual(await service.get(alice, asset.id), asset);
  const [blob] = await listBlobs(blobStore);
  t.regex(blob!.key, new RegExp(`^ws-alice/${asset.id}/bl_[0-9a-z]{26}$`), 'blobs live in per-workspace folders');
  t.deepEqual(await bytesOf((await blobStore.get(blob!.key))!), png);
});

for (const [name, type] of Object.entries(FIXTURE_TYPES)) {
  test(`upload of ${name} is typed ${type} from its content`, async (t) => {
    const { service } = setup();
    const bytes = await readFixture(name);
    const asset = await service.upload(alice, { body: chunked(bytes), filename: 'upload.exe', declaredType: 'application/x-msdownload' });
    t.is(asset.type, type);
    t.is(asset.size, bytes.length);
  });
}

test('a PNG named .txt and declared text/plain is image/png with a .png url', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, {
    body: chunked(await readFixture('png-named.txt')),
    filename: 'png-named.txt',
    declaredType: 'text/plain',
  });
  t.is(asset.type, 'image/png');
  t.true(asset.url.endsWith('.png'));
});

test('non-images have no width and height; the label defaults to empty', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: chunked(await readFixture('document.pdf')) });
  t.is(asset.width, undefined);
  t.is(asset.height, undefined);
  t.is(asset.label, '');
  t.true(asset.url.endsWith('.pdf'));
});

test('the size limit: exactly the maximum is accepted, one byte more is resource_exhausted and leaves nothing', async (t) => {
  const { service, blobStore, assetStore } = setup({ maxUploadBytes: 1000 });
  t.is((await service.upload(alice, { body: chunked(Buffer.alloc(1000, 'a')) })).size, 1000);
  const before = await listBlobs(blobStore);
  const error = await t.throwsAsync<SwitchyardError>(
    service.upload(alice, { body: chunked(Buffer.alloc(600, 'b'), Buffer.alloc(401, 'b')) }),
  );
  t.is(error?.code, 'resource_exhausted');
  t.deepEqual(await listBlobs(blobStore), before);
  t.is(await assetStore.getByBlobId('bl_00000000000000000000000002'), undefined);
});

test('a body that fails mid-way leaves no blob and no record', async (t) => {
  const { service, blobStore, assetStore } = setup();
  const error = await t.throwsAsync<SwitchyardError>(
    service.upload(alice, { body: failingStream({ bytesBeforeFailure: 150_000, error: new Error('reset') }) }),
  );
  t.is(error?.code, 'invalid_argument');
  t.deepEqual(await listBlobs(blobStore), []);
  t.is(await assetStore.get('ws-alice', 'as_00000000000000000000000001'), undefined);
});

test('when the record cannot be written, the blob is removed again', async (t) => {
  class FailingInsert extends MemoryAssetStore {
    override async insert(): Promise<AssetWrite> {
      throw new SwitchyardError('unavailable', 'database down');
    }
  }
  const { service, blobStore } = setup({ assetStore: new FailingInsert() });
  const error = await t.throwsAsync<SwitchyardError>(service.upload(alice, { body: chunked(Buffer.from('hello')) }));
  t.is(error?.code, 'unavailable');
  t.deepEqual(await listBlobs(blobStore), []);
});

test('a bad label is refused before the body is read', async (t) => {
  const { service, blobStore } = setup();
  let pulled = false;
  async function* body(): AsyncGenerator<Uint8Array> {
    pulled = true;
    yield Buffer.from('x');
  }
  const error = await t.throwsAsync<SwitchyardError>(service.upload(alice, { body: body(), label: 'a\nb' }));
  t.is(error?.code, 'invalid_argument');
  t.is(error?.details[0]?.field, 'label');
  t.false(pulled);
  t.deepEqual(await listBlobs(blobStore), []);
});

test('a label given as a function is asked once the body has been read', async (t) => {
  const { service } = setup();
  let bodyDone = false;
  async function* body(): AsyncGenerator<Uint8Array> {
    yield Buffer.from('hello');
    bodyDone = true;
  }
  const asset = await service.upload(alice, { body: body(), label: () => (bodyDone ? 'after the bytes' : 'too early') });
  t.is(asset.label, 'after the bytes');
  t.is((await service.get(alice, asset.id)).label, 'after the bytes');
  t.is((await service.upload(alice, { body: chunked(Buffer.from('x')), label: () => undefined })).label, '');
});

test('a late label that is invalid stores nothing: no record, no blob', async (t) => {
  const { service, blobStore } = setup();
  const error = await t.throwsAsync<SwitchyardError>(
    service.upload(alice, { body: chunked(Buffer.from('hello')), label: () => 'a\u0000b' }),
  );
  t.is(error?.code, 'invalid_argument');
  t.is(error?.details[0]?.field, 'label');
  t.deepEqual(await listBlobs(blobStore), []);
});

test('get: a malformed id is invalid_argument, an unknown one not_found', async (t) => {
  const { service } = setup();
  t.is((await t.throwsAsync<SwitchyardError>(service.get(alice, 'nope')))?.code, 'invalid_argument');
  t.is((await t.throwsAsync<SwitchyardError>(service.get(alice, 'rt_00000000000000000000000001')))?.code, 'invalid_argument');
  t.is((await t.throwsAsync<SwitchyardError>(service.get(alice, 'as_00000000000000000000000009')))?.code, 'not_found');
});

test("another workspace's asset does not exist for the caller", async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: chunked(Buffer.from('mine')) });
  t.is((await t.throwsAsync<SwitchyardError>(service.get(bob, asset.id)))?.code, 'not_found');
  t.is((await t.throwsAsync<SwitchyardError>(service.replace(bob, asset.id, { body: chunked(Buffer.from('theirs')) })))?.code, 'not_found');
  t.is((await service.get(alice, asset.id)).sha256, sha256(Buffer.from('mine')));
});

test('scopes: read needs assets:read, upload and replace need assets:write', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: chunked(Buffer.from('x')) });
  const readOnly = principalWith('assets:read');
  const writeOnly = principalWith('assets:write');
  const routesOnly = principalWith('routes:read', 'routes:write');
  const denied = async (promise: Promise<unknown>): Promise<string | undefined> => (await t.throwsAsync<SwitchyardError>(promise))?.code;
  t.is(await denied(service.upload(readOnly, { body: chunked(Buffer.from('y')) })), 'permission_denied');
  t.is(await denied(service.replace(readOnly, asset.id, { body: chunked(Buffer.from('y')) })), 'permission_denied');
  t.is(await denied(service.get(writeOnly, asset.id)), 'permission_denied');
  t.is(await denied(service.get(routesOnly, asset.id)), 'permission_denied');
  t.is((await service.get(readOnly, asset.id)).id, asset.id);
  t.is((await service.upload(writeOnly, { body: chunked(Buffer.from('z')) })).size, 1);
});

test('uploaded records carry version 1 and the workspace', async (t) => {
  const { service, assetStore } = setup();
  const asset = await service.upload(alice, { body: chunked(Buffer.from('v1')) });
  const record = (await assetStore.get('ws-alice', asset.id)) as AssetRecord;
  t.is(record.version, 1);
  t.is(record.workspace, 'ws-alice');
});

import test from 'ava';
import type { Readable } from 'node:stream';
import { SwitchyardError } from '../errors.js';
import { MemoryBlobStore } from '../memory/memory-blob-store.js';
import { UNSUPPORTED_MEDIA_TYPE_FIELD } from './workspace-policy.js';
import { alice, bob, chunked, listBlobs, pathOf, principalWith, readFixture, setup } from './test-support.js';

/** A memory blob store that counts every byte a put reads. */
function countingStore(): { store: MemoryBlobStore; bytesRead: () => number } {
  const store = new MemoryBlobStore();
  let bytes = 0;
  const put = store.put.bind(store);
  store.put = async (key: string, body: Readable) => {
    body.on('data', (chunk: Buffer) => void (bytes += chunk.length));
    return put(key, body);
  };
  return { store, bytesRead: () => bytes };
}

test('a sniffed type the policy refuses fails before the blob store reads a byte, whatever the name and declared type', async (t) => {
  const { store, bytesRead } = countingStore();
  const { service, assetStore } = setup({ blobStore: store });
  await service.setPolicy(alice, { allowedTypes: ['image/jpeg'] });
  const gif = await readFixture('anim.gif');
  const big = Buffer.concat([gif, Buffer.alloc(1024 * 1024)]);
  for (const body of [gif, big]) {
    const error = await t.throwsAsync(
      service.upload(alice, {
        body: chunked(body.subarray(0, 100), body.subarray(100)),
        filename: 'photo.jpg',
        declaredType: 'image/jpeg',
      }),
      { instanceOf: SwitchyardError },
    );
    t.is(error?.code, 'invalid_argument');
    t.is(error?.details[0]?.field, UNSUPPORTED_MEDIA_TYPE_FIELD);
  }
  t.is(bytesRead(), 0);
  t.deepEqual(await listBlobs(store), []);
  t.deepEqual(await assetStore.list('ws-alice', { limit: 10 }), []);
  const jpeg = await service.upload(alice, { body: chunked(await readFixture('photo.jpg')) });
  t.is(jpeg.type, 'image/jpeg');
});

test("the workspace limit applies while the bytes stream; another workspace keeps the server's", async (t) => {
  const { service } = setup({ maxUploadBytes: 10_000 });
  t.deepEqual(await service.setPolicy(alice, { maxUploadBytes: 100 }), {
    allowedTypes: [],
    maxUploadBytes: 100,
    defaultVisibility: 'public',
    stripImageMetadata: false,
    keepVersions: 5,
    retentionDays: 7,
  });
  const error = await t.throwsAsync(service.upload(alice, { body: chunked(Buffer.alloc(101)) }), { instanceOf: SwitchyardError });
  t.is(error?.code, 'resource_exhausted');
  t.is((await service.upload(alice, { body: chunked(Buffer.alloc(100)) })).size, 100);
  t.is((await service.upload(bob, { body: chunked(Buffer.alloc(5000)) })).size, 5000);
  await t.throwsAsync(service.setPolicy(alice, { maxUploadBytes: 10_001 }), { message: /maxUploadBytes/ });
});

test('policy calls need workspace:admin; the default visibility applies unless an upload names one', async (t) => {
  const { service } = setup();
  const notAdmin = principalWith('assets:read', 'assets:write');
  await t.throwsAsync(service.getPolicy(notAdmin), { message: /workspace:admin/ });
  await t.throwsAsync(service.setPolicy(notAdmin, {}), { message: /workspace:admin/ });
  await service.setPolicy(alice, { defaultVisibility: 'private' });
  t.is((await service.upload(alice, { body: chunked(Buffer.from('x')) })).visibility, 'private');
  t.is((await service.upload(alice, { body: chunked(Buffer.from('x')), visibility: 'public' })).visibility, 'public');
  t.is(
    (await service.upload(alice, { body: chunked(Buffer.from('x')), visibility: () => 'public' })).visibility,
    'public',
    'a visibility known after the body',
  );
  await t.throwsAsync(service.upload(alice, { body: chunked(Buffer.from('x')), visibility: 'secret' as never }), { message: /visibility/ });
  t.is((await service.upload(bob, { body: chunked(Buffer.from('x')) })).visibility, 'public', "bob's workspace has no policy");
});

test('a private file opens only through a valid, unexpired, unrevoked signed url', async (t) => {
  const { service, clock } = setup();
  const asset = await service.upload(alice, { body: chunked(Buffer.from('secret')), visibility: 'private' });
  const path = pathOf(asset.url);
  await t.throwsAsync(service.openFile(path), { message: /needs a signature/ });
  const signed = await service.createSignedUrl(alice, asset.id, { expiresIn: 60 });
  t.is(signed.expiresAt.getTime(), clock.now().getTime() + 60_000);
  const query = new URL(signed.url).search.slice(1);
  t.is((await service.openFile(path, { query, infoOnly: true })).visibility, 'private');
  clock.advance(59_999);
  await t.notThrowsAsync(service.openFile(path, { query, infoOnly: true }));
  clock.advance(1);
  await t.throwsAsync(service.openFile(path, { query }), { message: /expired/ });
  const again = new URL((await service.createSignedUrl(alice, asset.id, { expiresIn: 60 })).url).search.slice(1);
  await service.revokeSignedUrls(alice, asset.id);
  await t.throwsAsync(service.openFile(path, { query: again }), { message: /not valid/ });
  await t.throwsAsync(service.createSignedUrl(bob, asset.id, { expiresIn: 60 }), { message: /not found/ });
  await t.throwsAsync(service.createSignedUrl(alice, asset.id, { expiresIn: 604_801 }), { message: /expiresIn/ });
  t.regex(
    (await service.createSignedUrl(alice, asset.id, { expiresIn: 60, transform: { w: 64, format: 'auto' } })).url,
    /\?format=auto&w=64&expires=|\?w=64&format=auto&expires=/,
    'transform parameters are signed with the url',
  );
  await t.throwsAsync(service.createSignedUrl(alice, asset.id, { expiresIn: 60, transform: { w: 65 } }), { message: /w: must be one of/ });
  await t.throwsAsync(service.revokeSignedUrls(principalWith('assets:read'), asset.id), { message: /assets:write/ });
});

test('update changes label and visibility only; the url and file stay', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: chunked(Buffer.from('x')), label: 'a' });
  const updated = await service.update(alice, asset.id, { label: 'b', visibility: 'private' });
  t.deepEqual({ ...updated }, { ...asset, label: 'b', visibility: 'private' });
  await t.throwsAsync(service.update(bob, asset.id, { label: 'c' }), { message: /not found/ });
  await t.throwsAsync(service.update(alice, asset.id, { label: '\u0007' }), { message: /label/ });
  await t.throwsAsync(service.update(principalWith('assets:read'), asset.id, {}), { message: /assets:write/ });
});

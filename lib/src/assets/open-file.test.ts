import test from 'ava';
import { SwitchyardError } from '../errors.js';
import { bytesOf } from '../testing/streams.js';
import { resolveRange } from './open-file.js';
import { alice, chunked, pathOf, readFixture, setup } from './test-support.js';

test('openFile serves the current file with its type, size, sha256 and whole range', async (t) => {
  const { service } = setup();
  const jpeg = await readFixture('photo.jpg');
  const asset = await service.upload(alice, { body: chunked(jpeg) });
  const file = await service.openFile(pathOf(asset.url));
  t.is(file.type, 'image/jpeg');
  t.is(file.size, jpeg.length);
  t.is(file.sha256, asset.sha256);
  t.deepEqual(file.uploadedAt, asset.uploadedAt);
  t.deepEqual(file.range, { start: 0, end: jpeg.length - 1 });
  t.deepEqual(await bytesOf(file.body!), jpeg);
});

test('ranges are served inclusive and clamped to the end; infoOnly has no body', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: chunked(Buffer.from('0123456789')) });
  const path = pathOf(asset.url);
  const middle = await service.openFile(path, { range: { start: 2, end: 4 } });
  t.deepEqual(middle.range, { start: 2, end: 4 });
  t.is((await bytesOf(middle.body!)).toString(), '234');
  const tail = await service.openFile(path, { range: { start: 7, end: 1000 } });
  t.deepEqual(tail.range, { start: 7, end: 9 });
  t.is((await bytesOf(tail.body!)).toString(), '789');
  const info = await service.openFile(path, { infoOnly: true, range: { start: 9, end: 9 } });
  t.is(info.body, undefined);
  t.deepEqual(info.range, { start: 9, end: 9 });
});

test('unsatisfiable ranges are out_of_range; malformed ones invalid_argument', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: chunked(Buffer.from('0123456789')) });
  const path = pathOf(asset.url);
  const code = async (range: { start: number; end: number }): Promise<string | undefined> =>
    (await t.throwsAsync<SwitchyardError>(service.openFile(path, { range })))?.code;
  t.is(await code({ start: 10, end: 12 }), 'out_of_range');
  t.is(await code({ start: 5, end: 4 }), 'out_of_range');
  t.is(await code({ start: -1, end: 4 }), 'invalid_argument');
  t.is(await code({ start: 1.5, end: 4 }), 'invalid_argument');
});

test('an empty file opens without a body; any range of it is out_of_range', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: chunked(await readFixture('empty.dat')) });
  t.true(asset.url.endsWith('.bin'));
  const file = await service.openFile(pathOf(asset.url));
  t.is(file.size, 0);
  t.is(file.body, undefined);
  t.deepEqual(file.range, { start: 0, end: -1 });
  t.is((await t.throwsAsync<SwitchyardError>(service.openFile(pathOf(asset.url), { range: { start: 0, end: 0 } })))?.code, 'out_of_range');
});

test('paths: malformed is invalid_argument; unknown blob, wrong asset or wrong extension is not_found', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: chunked(await readFixture('image.png')) });
  const path = pathOf(asset.url);
  const code = async (candidate: string): Promise<string | undefined> =>
    (await t.throwsAsync<SwitchyardError>(service.openFile(candidate)))?.code;
  t.is(await code('../../etc/passwd'), 'invalid_argument');
  t.is(await code(path.replace('.png', '')), 'invalid_argument');
  t.is(await code(path.replace('.png', '.jpg')), 'not_found');
  t.is(await code(path.replace(/bl_[0-9a-z]+/, 'bl_0000000000000000000000zzzz')), 'not_found');
  t.is(await code(path.replace(asset.id, 'as_0000000000000000000000zzzz')), 'not_found');
});

test('resolveRange', (t) => {
  t.deepEqual(resolveRange(undefined, 10), { start: 0, end: 9 });
  t.deepEqual(resolveRange(undefined, 0), { start: 0, end: -1 });
  t.deepEqual(resolveRange({ start: 0, end: 0 }, 1), { start: 0, end: 0 });
  t.deepEqual(resolveRange({ start: 3, end: Number.MAX_SAFE_INTEGER }, 5), { start: 3, end: 4 });
  t.is(t.throws<SwitchyardError>(() => resolveRange({ start: 5, end: 5 }, 5))?.code, 'out_of_range');
});

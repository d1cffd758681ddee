// Names through the asset service: from the upload, through replace and update, into lists and file downloads.
import test from 'ava';
import type { SwitchyardError } from '../errors.js';
import { alice, bob, chunked, pathOf, readFixture, setup } from './test-support.js';

const text = (value: string) => chunked(Buffer.from(value));

test("an upload's filename becomes its name, cleaned and cut, never its type or url", async (t) => {
  const { service } = setup();
  const png = await readFixture('image.png');
  const asset = await service.upload(alice, { body: chunked(png), filename: 'Ur\nlaub\u0000 📷.exe' });
  t.is(asset.name, 'Urlaub 📷.exe');
  t.is(asset.type, 'image/png');
  t.true(asset.url.endsWith('.png'));
  t.false(asset.url.includes('Urlaub'));
  t.is((await service.get(alice, asset.id)).name, 'Urlaub 📷.exe');
  const long = await service.upload(alice, { body: text('x'), filename: `${'n'.repeat(400)}.txt` });
  t.is(long.name, `${'n'.repeat(251)}.txt`);
  t.is((await service.upload(alice, { body: text('x') })).name, '', 'none given');
});

test('a replace keeps the name unless the new upload names a file', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: text('one'), filename: 'one.txt' });
  t.is((await service.replace(alice, asset.id, { body: text('two') })).name, 'one.txt', 'no filename');
  t.is((await service.replace(alice, asset.id, { body: text('three'), filename: '' })).name, 'one.txt', 'an empty filename');
  t.is((await service.replace(alice, asset.id, { body: text('four'), filename: '\n\t' })).name, 'one.txt', 'nothing left after cleaning');
  const renamed = await service.replace(alice, asset.id, { body: text('five'), filename: 'five.txt', visibility: 'private' });
  t.like(renamed, { name: 'five.txt', visibility: 'private' });
  t.is((await service.get(alice, asset.id)).name, 'five.txt');
});

test('update sets or clears the name; one too long or not a string is invalid_argument on field name', async (t) => {
  const { service } = setup();
  const asset = await service.upload(alice, { body: text('x'), filename: 'a.txt', label: 'keep' });
  t.like(await service.update(alice, asset.id, { name: 'Neu\r\n.txt' }), { name: 'Neu.txt', label: 'keep', url: asset.url });
  t.like(await service.update(alice, asset.id, { label: 'other' }), { name: 'Neu.txt', label: 'other' });
  t.is((await service.update(alice, asset.id, { name: '' })).name, '');
  for (const name of ['x'.repeat(256), 42 as unknown as string]) {
    const error = await t.throwsAsync<SwitchyardError>(service.update(alice, asset.id, { name }));
    t.is(error?.code, 'invalid_argument');
    t.deepEqual(
      error?.details.map((detail) => detail.field),
      ['name'],
    );
  }
  t.is((await service.get(alice, asset.id)).name, '', 'unchanged by refusals');
  t.is((await t.throwsAsync<SwitchyardError>(service.update(bob, asset.id, { name: 'theirs' })))?.code, 'not_found');
});

test('list q: a case-insensitive name prefix, wildcards literal, with type and label, paged with its own tokens', async (t) => {
  const { service } = setup();
  const png = await readFixture('image.png');
  const up = (filename: string, label = '', body = text(filename)) => service.upload(alice, { body, filename, label });
  const report = await up('Report 2024.txt', 'docs');
  const cover = await up('report-cover.png', 'docs', chunked(png));
  const percent = await up('100%_done.txt');
  await up('100 done.txt');
  await up('axb.txt');
  const underscore = await up('a_b.txt');
  await service.upload(bob, { body: text('x'), filename: 'Report of bob.txt' });
  const ids = async (input: Parameters<typeof service.list>[1]) => (await service.list(alice, input)).assets.map((asset) => asset.id);
  t.deepEqual(await ids({ q: 'REPORT' }), [cover.id, report.id]);
  t.deepEqual(await ids({ q: '100%' }), [percent.id]);
  t.deepEqual(await ids({ q: 'a_' }), [underscore.id]);
  t.deepEqual(await ids({ q: 'report', type: 'image/*' }), [cover.id]);
  t.deepEqual(await ids({ q: 'report', label: 'docs', type: 'text/plain' }), [report.id]);
  t.deepEqual(await ids({ q: '' }), await ids({}), 'empty is no filter');

  const first = await service.list(alice, { q: 'rep', pageSize: 1 });
  t.deepEqual(
    first.assets.map((asset) => asset.id),
    [cover.id],
  );
  const second = await service.list(alice, { q: 'REP', pageSize: 1, pageToken: first.nextPageToken });
  t.deepEqual(
    [second.assets.map((asset) => asset.id), second.nextPageToken],
    [[report.id], ''],
    'the same prefix in another case is the same listing',
  );
  const foreign = await t.throwsAsync<SwitchyardError>(service.list(alice, { q: 'x', pageSize: 1, pageToken: first.nextPageToken }));
  t.deepEqual([foreign?.code, foreign?.details[0]?.field], ['invalid_argument', 'pageToken'], 'a token of another prefix');
  const unfiltered = await service.list(alice, { pageSize: 1 });
  t.is(
    (await t.throwsAsync<SwitchyardError>(service.list(alice, { q: 'rep', pageSize: 1, pageToken: unfiltered.nextPageToken })))?.code,
    'invalid_argument',
  );
  const tooLong = await t.throwsAsync<SwitchyardError>(service.list(alice, { q: 'x'.repeat(256) }));
  t.deepEqual([tooLong?.code, tooLong?.details[0]?.field], ['invalid_argument', 'q']);
});

test("openFile names the file to save: the asset's name, else its id and extension; a variant takes its format's extension", async (t) => {
  const { service } = setup();
  const png = await readFixture('image.png');
  const named = await service.upload(alice, { body: chunked(png), filename: 'Logo.final.PNG' });
  t.is((await service.openFile(pathOf(named.url), { infoOnly: true })).name, 'Logo.final.PNG');
  t.is((await service.openFile(pathOf(named.url))).name, 'Logo.final.PNG', 'with its bytes');
  t.is((await service.openFile(pathOf(named.url), { infoOnly: true, transform: { w: '16', format: 'webp' } })).name, 'Logo.final.webp');
  const unnamed = await service.upload(alice, { body: chunked(png) });
  t.is((await service.openFile(pathOf(unnamed.url), { infoOnly: true })).name, `${unnamed.id}.png`);
  t.is((await service.openFile(pathOf(unnamed.url), { infoOnly: true, transform: { w: '16', format: 'jpeg' } })).name, `${unnamed.id}.jpg`);
});

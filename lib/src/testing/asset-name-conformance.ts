import { MAX_NAME_LENGTH, nameKey } from '../assets/asset-name.js';
import type { AssetRecord, AssetStore } from '../ports/asset-store.js';
import type { Check } from './assertions.js';
import { by, sampleAsset, sampleContent, swapped, view } from './asset-samples.js';
import { uniqueName } from './conformance.js';

type Define = (title: string, body: (t: Check, store: AssetStore) => Promise<void>) => void;

/** The AssetStore cases about names: stored whole, kept or changed by swap and update, and listed by prefix. */
export function assetNameCases(define: Define): void {
  define('names of 255 characters round-trip whole, 4-byte characters and case-expanding ones included', async (t, store) => {
    const workspace = uniqueName();
    const records = [
      sampleAsset(workspace, { name: `${'📷'.repeat(MAX_NAME_LENGTH - 4)}.jpg` }),
      // Lower-cases to 510 characters: the store's search key must cope.
      sampleAsset(workspace, { name: 'İ'.repeat(MAX_NAME_LENGTH) }),
      sampleAsset(workspace, { name: '' }),
      sampleAsset(workspace, { name: `it's "quoted" %_\\ ; filename*=x.txt` }),
    ];
    for (const record of records) await store.insert(record, by);
    for (const record of records)
      t.deepEqual(view(await store.get(workspace, record.id)), view(record), JSON.stringify(record.name.slice(0, 20)));
    const ids = async (prefix: string) =>
      (await store.list(workspace, { limit: 10, namePrefix: nameKey(prefix) })).map((record) => record.id);
    t.deepEqual(await ids('📷📷'), [records[0]!.id]);
    t.deepEqual(await ids('İİ'), [records[1]!.id], 'a long key, cut where the store cuts it');
  });

  define('swap keeps the name unless given one; update changes it, "" clears it', async (t, store) => {
    const workspace = uniqueName();
    const record = sampleAsset(workspace, { name: 'first.png' });
    await store.insert(record, by);
    const content = sampleContent(workspace);
    const kept = await store.swap(workspace, record.id, 1, content, { visibility: 'private' }, by);
    t.deepEqual(view(kept), view({ ...swapped(record, content), visibility: 'private', name: 'first.png' }), 'no name given: kept');
    const next = sampleContent(workspace);
    const renamed = await store.swap(workspace, record.id, 2, next, { name: 'second.webp' }, by);
    t.deepEqual(
      view(renamed),
      view({ ...swapped(swapped(record, content), next), visibility: 'private', name: 'second.webp' }),
      'a name given: written with the content',
    );
    const updated = await store.update(workspace, record.id, { name: 'Dritte Fassung.webp' }, by);
    t.is(updated?.record.name, 'Dritte Fassung.webp');
    t.is(updated?.record.label, record.label, 'the label stays');
    t.is(
      (await store.update(workspace, record.id, { label: 'x' }, by))?.record.name,
      'Dritte Fassung.webp',
      'a label change keeps the name',
    );
    t.is((await store.update(workspace, record.id, { name: '' }, by))?.record.name, '', 'cleared');
    t.is((await store.getByBlobId(next.blobId))?.name, '');
    t.deepEqual(await store.list(workspace, { limit: 10, namePrefix: nameKey('dritte') }), [], 'the old name is no longer found');
  });

  define('list by name prefix: case-insensitive, every character literal, combined with type, label and the cursor', async (t, store) => {
    const workspace = uniqueName();
    const make = (name: string, overrides: Partial<AssetRecord> = {}) => sampleAsset(workspace, { name, ...overrides });
    const records = {
      report: make('Report 2024.PDF', {
        ...sampleContent(workspace, { type: 'application/pdf', width: undefined, height: undefined }),
        label: 'docs',
      }),
      reportImage: make('report-cover.png', { label: 'docs' }),
      percent: make('100%_done.txt'),
      plain: make('100 done.txt'),
      underscore: make('a_b.txt'),
      anyChar: make('axb.txt'),
      bang: make('x!y.txt'),
      backslash: make('x\\y.txt'),
      bare: make('ab'),
      spaced: make('ab c'),
      umlaut: make('Ärger.pdf'),
      decomposed: make('A\u0308pfel.png'),
      greek: make('ΟΔΟΣ.txt'),
      astral: make('z\u{10FFFF}a'),
      unnamed: make(''),
    };
    for (const record of Object.values(records)) await store.insert(record, by);
    await store.insert(sampleAsset(uniqueName(), { name: 'Report of another workspace' }), by);
    const list = async (
      q: string,
      extra: { type?: { exact: string } | { prefix: string }; label?: string; before?: string; limit?: number } = {},
    ) => (await store.list(workspace, { limit: extra.limit ?? 20, namePrefix: nameKey(q), ...extra })).map((record) => record.name);

    t.deepEqual(await list('REPORT'), ['report-cover.png', 'Report 2024.PDF'], 'any case, newest first, only this workspace');
    t.deepEqual(await list('report '), ['Report 2024.PDF'], 'a space is a character like any other');
    t.deepEqual(await list('ab '), ['ab c'], 'a trailing space is not ignored');
    t.deepEqual(await list('ab'), ['ab c', 'ab']);
    t.deepEqual(await list('100%'), ['100%_done.txt'], '% is literal');
    t.deepEqual(await list('100%_'), ['100%_done.txt']);
    t.deepEqual(await list('a_'), ['a_b.txt'], '_ is literal');
    t.deepEqual(await list('x!'), ['x!y.txt'], '! is literal');
    t.deepEqual(await list('x\\'), ['x\\y.txt'], 'a backslash is literal');
    t.deepEqual(await list('är'), ['Ärger.pdf'], 'non-ASCII case');
    t.deepEqual(await list('äp'), ['A\u0308pfel.png'], 'a decomposed name matches a composed prefix');
    t.deepEqual(await list('οδοσ.'), ['ΟΔΟΣ.txt'], 'sigma, final or not');
    t.deepEqual(await list('z\u{10FFFF}'), ['z\u{10FFFF}a'], 'the last code point');
    t.deepEqual(await list('report-cover.png!'), [], 'longer than the name');
    t.deepEqual(await list('Report', { type: { exact: 'application/pdf' } }), ['Report 2024.PDF'], 'with an exact type');
    t.deepEqual(await list('Report', { type: { prefix: 'image/' } }), ['report-cover.png'], 'with a top-level type');
    t.deepEqual(await list('Report', { label: 'docs', type: { prefix: 'image/' } }), ['report-cover.png'], 'with a label and a type');
    t.deepEqual(await list('Report', { label: 'other' }), [], 'with a label no match has');
    t.deepEqual(await list('100', { limit: 1 }), ['100 done.txt'], 'at most limit');
    t.deepEqual(await list('100', { before: records.plain.id }), ['100%_done.txt'], 'below the cursor');
    t.deepEqual(view((await store.list(workspace, { limit: 1, namePrefix: nameKey('ärger') }))[0]), view(records.umlaut), 'every field');
  });
}

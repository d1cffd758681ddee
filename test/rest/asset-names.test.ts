// Asset names over REST end to end: from the multipart filename and tus metadata, through replace and PATCH,
// into ?q= listings and ?download file answers. Gateway → service → SQLite + disk.
import test from 'ava';
import { fixtureFile, form, json, multipartBody, rawRequest, type FormFile } from './support/http.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';
import { tusUpload } from './support/tus.js';

let stack: Stack;
test.before(async () => {
  stack = await startStack();
});
test.after.always(async () => stack?.stop());

type AssetJson = { id: string; type: string; url: string; label: string; name: string; visibility: string };
type ErrorJson = { code: string; details: { field?: string; reason: string }[] };

const text = (body: string, filename: string): FormFile => ({ bytes: new TextEncoder().encode(body), filename, type: 'text/plain' });

async function upload(auth: Record<string, string>, file: FormFile, fields: [string, string][] = []): Promise<AssetJson> {
  const response = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers: auth, body: form([...fields, ['file', file]]) });
  if (response.status !== 201) throw new Error(`upload: ${response.status} ${await response.text()}`);
  return json<AssetJson>(response);
}

/** A multipart upload whose part header is written byte for byte (filename*, raw UTF-8, control bytes, no filename). */
async function rawUpload(
  auth: Record<string, string>,
  path: string,
  disposition: string,
  body = 'hello\n',
): Promise<{ status: number; asset: AssetJson }> {
  const boundary = 'names-boundary';
  const bytes = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; `),
    Buffer.from(disposition, 'utf8'),
    Buffer.from(`\r\nContent-Type: application/octet-stream\r\n\r\n${body}\r\n--${boundary}--\r\n`),
  ]);
  const response = await rawRequest(`${stack.url}${path}`, {
    headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': bytes.length },
    body: bytes,
  });
  return { status: response.status, asset: response.json<AssetJson>() };
}

async function list(
  auth: Record<string, string>,
  query: string,
): Promise<{ status: number; body: { assets: AssetJson[]; nextPageToken: string } & ErrorJson }> {
  const response = await fetch(`${stack.url}/v1/assets?${query}`, { headers: auth });
  return { status: response.status, body: await json(response) };
}

async function patch(auth: Record<string, string>, id: string, body: unknown): Promise<{ status: number; body: AssetJson & ErrorJson }> {
  const response = await fetch(`${stack.url}/v1/assets/${id}`, {
    method: 'PATCH',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await json(response) };
}

test('the multipart filename is the name: as sent, UTF-8 or RFC 5987, path dropped, never the type or the url', async (t) => {
  const auth = await stack.auth(freshWorkspace('names'));
  const png = await fixtureFile('image.png');
  const asset = await upload(auth, { ...png, filename: 'Résumé 2025 (final).txt' });
  t.is(asset.name, 'Résumé 2025 (final).txt');
  t.is(asset.type, 'image/png', 'sniffed, whatever the name says');
  t.true(asset.url.endsWith('.png'));
  t.false(asset.url.includes('sum'), 'the url never carries the name');
  t.is((await json<AssetJson>(await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: auth }))).name, 'Résumé 2025 (final).txt');

  const encoded = await rawUpload(auth, '/v1/assets/upload', `filename*=UTF-8''%E6%97%A5%E6%9C%AC%20%F0%9F%93%B7.txt`);
  t.is(encoded.status, 201);
  t.is(encoded.asset.name, '日本 📷.txt', 'filename* is decoded');
  t.is(
    (await rawUpload(auth, '/v1/assets/upload', 'filename="C:\\\\fakepath\\\\report.pdf"')).asset.name,
    'report.pdf',
    'a path is dropped (busboy)',
  );
  t.is((await rawUpload(auth, '/v1/assets/upload', 'filename=""')).asset.name, '', 'an empty filename: no name');
});

test('control characters are removed and a long name is cut to 255 characters, never refused', async (t) => {
  const auth = await stack.auth(freshWorkspace('names'));
  const controls = await rawUpload(auth, '/v1/assets/upload', `filename*=UTF-8''in%01voice%7F%C2%85%09.txt`);
  t.is(controls.status, 201);
  t.is(controls.asset.name, 'invoice.txt');
  const raw = await rawUpload(auth, '/v1/assets/upload', 'filename="tab\there\x01.txt"');
  t.is(raw.asset.name, 'tabhere.txt');
  const long = await upload(auth, text('x', `${'a'.repeat(300)}.pdf`));
  t.is(long.name, `${'a'.repeat(251)}.pdf`, 'the extension is kept');
  const astral = await upload(auth, text('x', '📷'.repeat(300)));
  t.is([...astral.name].length, 255, 'counted in characters');
});

test('a replace keeps the name unless its file part names a file', async (t) => {
  const auth = await stack.auth(freshWorkspace('names'));
  const asset = await upload(auth, text('one', 'one.txt'));
  const replace = async (file: FormFile) =>
    json<AssetJson>(
      await fetch(`${stack.url}/v1/assets/${asset.id}/replace`, { method: 'POST', headers: auth, body: form([['file', file]]) }),
    );
  t.is((await rawUpload(auth, `/v1/assets/${asset.id}/replace`, 'filename=""', 'two')).asset.name, 'one.txt', 'an empty filename');
  // A part without filename but typed application/octet-stream is still the file.
  const unnamed = await rawRequest(`${stack.url}/v1/assets/${asset.id}/replace`, {
    headers: { ...auth, 'content-type': 'multipart/form-data; boundary=b' },
    body: multipartBody('b', [{ name: 'file', type: 'application/octet-stream', body: 'three' }]),
  });
  t.is(unnamed.status, 200, unnamed.body.toString());
  t.is(unnamed.json<AssetJson>().name, 'one.txt', 'no filename');
  const renamed = await replace(text('four', 'four.txt'));
  t.is(renamed.name, 'four.txt');
  t.is((await json<AssetJson>(await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: auth }))).name, 'four.txt');
});

test('PATCH sets, cleans and clears the name; over 255 characters or not a string is 400 naming the field', async (t) => {
  const auth = await stack.auth(freshWorkspace('names'));
  const asset = await upload(auth, text('x', 'draft.txt'), [['label', 'keep']]);
  const renamed = await patch(auth, asset.id, { name: 'Angebot – Müller.txt' });
  t.is(renamed.status, 200);
  t.like(renamed.body, { name: 'Angebot – Müller.txt', label: 'keep', url: asset.url, type: asset.type });
  t.is((await patch(auth, asset.id, { name: 'line\nbreak\u0000.txt' })).body.name, 'linebreak.txt', 'control characters removed');
  t.is((await patch(auth, asset.id, { name: '🌸'.repeat(255) })).status, 200, '255 characters, 1020 bytes');
  for (const name of ['x'.repeat(256), 42, null, ['a.txt']]) {
    const refused = await patch(auth, asset.id, { name });
    t.is(refused.status, 400, JSON.stringify(name).slice(0, 20));
    t.is(refused.body.code, 'invalid_argument');
    t.deepEqual(
      refused.body.details.map((detail) => detail.field),
      ['name'],
    );
  }
  t.is((await patch(auth, asset.id, { label: 'other' })).body.name, '🌸'.repeat(255), 'a label change keeps the name');
  t.is((await patch(auth, asset.id, { name: '' })).body.name, '', 'cleared');
  t.is((await patch(await stack.auth(freshWorkspace('names')), asset.id, { name: 'theirs' })).status, 404, 'another workspace');
});

test('?q= is a case-insensitive name prefix with % and _ literal, combining with type and label, paged with its own tokens', async (t) => {
  const auth = await stack.auth(freshWorkspace('names'));
  const png = await fixtureFile('image.png');
  const report = await upload(auth, text('r', 'Report 2024.txt'), [['label', 'docs']]);
  const cover = await upload(auth, { ...png, filename: 'report-cover.png' }, [['label', 'docs']]);
  const percent = await upload(auth, text('p', '100%_done.txt'));
  await upload(auth, text('p', '100 done.txt'));
  const underscore = await upload(auth, text('u', 'a_b.txt'));
  await upload(auth, text('u', 'axb.txt'));
  const umlaut = await upload(auth, text('ä', 'Ärger.txt'));
  await upload(await stack.auth(freshWorkspace('names')), text('o', 'Report of another workspace.txt'));
  const ids = async (query: string) => {
    const { status, body } = await list(auth, query);
    if (status !== 200) throw new Error(`${query}: ${status} ${JSON.stringify(body)}`);
    return body.assets.map((asset) => asset.id);
  };
  t.deepEqual(await ids('q=REPORT'), [cover.id, report.id], 'any case, newest first, this workspace only');
  t.deepEqual(await ids(`q=${encodeURIComponent('100%')}`), [percent.id], '% is no wildcard');
  t.deepEqual(await ids('q=a_'), [underscore.id], '_ is no wildcard');
  t.deepEqual(await ids(`q=${encodeURIComponent('äR')}`), [umlaut.id], 'non-ASCII case');
  t.deepEqual(await ids(`q=${encodeURIComponent('A\u0308')}`), [umlaut.id], 'a decomposed prefix');
  t.deepEqual(await ids('q=report&type=image/*'), [cover.id], 'with a type');
  t.deepEqual(await ids('q=report&type=text/plain&label=docs'), [report.id], 'with a type and a label');
  t.deepEqual(await ids('q=report&label=none'), []);
  t.deepEqual(await ids('q=nothing'), []);
  t.is((await ids('q=')).length, 7, 'empty: every name');

  const first = await list(auth, 'q=rep&pageSize=1');
  t.deepEqual(
    first.body.assets.map((asset) => asset.id),
    [cover.id],
  );
  const second = await list(auth, `q=REP&pageSize=1&pageToken=${first.body.nextPageToken}`);
  t.deepEqual([second.body.assets.map((asset) => asset.id), second.body.nextPageToken], [[report.id], '']);
  const foreign = await list(auth, `q=x&pageSize=1&pageToken=${first.body.nextPageToken}`);
  t.deepEqual([foreign.status, foreign.body.details[0]?.field], [400, 'pageToken'], "another prefix's token");
  const long = await list(auth, `q=${'x'.repeat(256)}`);
  t.deepEqual([long.status, long.body.code, long.body.details[0]?.field], [400, 'invalid_argument', 'q']);
  t.is((await list(auth, 'q=a&q=b')).status, 400, 'given twice');
});

test('?download answers an attachment named after the asset, UTF-8 encoded with an ASCII stand-in; without a name the id and extension', async (t) => {
  const auth = await stack.auth(freshWorkspace('names'));
  const png = await fixtureFile('image.png');
  const named = await upload(auth, { ...png, filename: 'Grüße aus Köln 📷.png' });
  const plain = await fetch(named.url);
  t.is(plain.headers.get('content-disposition'), null, 'an inline type without ?download');
  t.is(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  await plain.arrayBuffer();
  const download = await fetch(`${named.url}?download`);
  t.is(download.status, 200);
  t.is(
    download.headers.get('content-disposition'),
    `attachment; filename="Gru_e aus Koln _.png"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20aus%20K%C3%B6ln%20%F0%9F%93%B7.png`,
  );
  t.is(download.headers.get('content-type'), 'image/png');
  t.is(download.headers.get('cache-control'), 'public, no-cache', 'revalidated: a rename keeps the url');
  t.deepEqual(new Uint8Array(await download.arrayBuffer()), png.bytes);
  t.is((await fetch(`${named.url}?download=1`)).headers.get('content-disposition')?.startsWith('attachment; filename='), true, 'any value');

  const unnamed = await upload(auth, { ...png, filename: '' });
  t.is(
    (await fetch(`${unnamed.url}?download`)).headers.get('content-disposition'),
    `attachment; filename="${unnamed.id}.png"; filename*=UTF-8''${unnamed.id}.png`,
  );
  const html = await upload(auth, text('<!doctype html><p>hi', 'page.html'));
  t.is((await fetch(html.url)).headers.get('content-disposition'), 'attachment', 'an active type is an attachment anyway');
  t.is(
    (await fetch(`${html.url}?download`)).headers.get('content-disposition'),
    `attachment; filename="page.html"; filename*=UTF-8''page.html`,
  );
});

test('?download with HEAD, ranges, conditional requests, a transform and a rename', async (t) => {
  const auth = await stack.auth(freshWorkspace('names'));
  const png = await fixtureFile('image.png');
  const asset = await upload(auth, { ...png, filename: 'logo.png' });
  const url = `${asset.url}?download`;
  const disposition = `attachment; filename="logo.png"; filename*=UTF-8''logo.png`;
  const head = await fetch(url, { method: 'HEAD' });
  t.is(head.headers.get('content-disposition'), disposition);
  t.is(head.headers.get('content-length'), String(png.bytes.length));
  const range = await fetch(url, { headers: { range: 'bytes=0-3' } });
  t.is(range.status, 206);
  t.is(range.headers.get('content-disposition'), disposition);
  await range.arrayBuffer();
  const etag = head.headers.get('etag')!;
  const notModified = await fetch(url, { headers: { 'if-none-match': etag } });
  t.is(notModified.status, 304);
  t.is(notModified.headers.get('content-disposition'), disposition, 'a cache refreshes the name from a 304');
  const variant = await fetch(`${asset.url}?w=16&format=webp&download`);
  t.is(variant.status, 200);
  t.is(variant.headers.get('content-type'), 'image/webp');
  t.is(
    variant.headers.get('content-disposition'),
    `attachment; filename="logo.webp"; filename*=UTF-8''logo.webp`,
    "the derived image's extension",
  );
  await variant.arrayBuffer();
  const pdf = await upload(auth, { ...(await fixtureFile('document.pdf')), filename: 'doc.pdf' });
  const notATransform = await fetch(`${pdf.url}?download`);
  t.is(notATransform.status, 200, 'download is no transform parameter: fine on a PDF');
  await notATransform.arrayBuffer();

  await patch(auth, asset.id, { name: 'Logo "neu"; v2.png' });
  const renamed = await fetch(url, { headers: { 'if-none-match': etag } });
  t.is(
    renamed.headers.get('content-disposition'),
    `attachment; filename="Logo _neu_; v2.png"; filename*=UTF-8''Logo%20%22neu%22%3B%20v2.png`,
    'the new name, quotes and separators encoded',
  );
});

test('?download on a private file needs its signature, and may be added to a signed url', async (t) => {
  const auth = await stack.auth(freshWorkspace('names'));
  const asset = await upload(auth, text('secret\n', 'Geheim.txt'), [['visibility', 'private']]);
  t.is((await fetch(`${asset.url}?download`)).status, 403);
  const signed = await json<{ url: string }>(
    await fetch(`${stack.url}/v1/assets/${asset.id}/signed-url`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ expiresIn: 60 }),
    }),
  );
  for (const url of [`${signed.url}&download`, signed.url.replace('?', '?download&')]) {
    const response = await fetch(url);
    t.is(response.status, 200, url);
    t.is(response.headers.get('content-disposition'), `attachment; filename="Geheim.txt"; filename*=UTF-8''Geheim.txt`);
    t.is(response.headers.get('cache-control'), 'private, no-cache');
    t.is(await response.text(), 'secret\n');
  }
  t.is((await fetch(`${signed.url}&download&extra=1`)).status, 403, 'any other added parameter still breaks the signature');
});

test('tus: the filename metadata is the name (cleaned and cut), and a replace upload renames only when it names a file', async (t) => {
  const workspace = freshWorkspace('names');
  const auth = await stack.auth(workspace);
  const file = Buffer.from('resumable\n');
  const long = `Bericht\u0007 ${'x'.repeat(300)}.txt`;
  const result = await tusUpload(file, { endpoint: `${stack.url}/v1/uploads`, headers: auth, metadata: { filename: long, label: 'tus' } });
  const asset = await json<AssetJson>(await fetch(`${stack.url}/v1/assets/${result.assetId}`, { headers: auth }));
  t.is(asset.name, `Bericht ${'x'.repeat(243)}.txt`);
  t.is([...asset.name].length, 255);
  await tusUpload(file, { endpoint: `${stack.url}/v1/uploads`, headers: auth, metadata: { replace: asset.id } });
  t.is((await json<AssetJson>(await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: auth }))).name, asset.name, 'no filename: kept');
  await tusUpload(file, { endpoint: `${stack.url}/v1/uploads`, headers: auth, metadata: { replace: asset.id, filename: 'Neu.txt' } });
  t.is((await json<AssetJson>(await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: auth }))).name, 'Neu.txt');
});

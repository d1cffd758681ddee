import test, { type ExecutionContext } from 'ava';
import { status as Status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import type { Asset, UploadAssetRequest } from '@switchyard/service/gen/switchyard/v1/assets.js';
import type { CreateRouteRequest } from '@switchyard/service/gen/switchyard/v1/routes.js';
import { bearer, chunksOf } from './support/clients.js';
import { fixture, fixtureNames, namedFixture, noise, sha256 } from './support/fixtures.js';
import { callLine } from './support/log-capture.js';
import { fileContainingSymbol, listServicesByReflection } from './support/reflection-client.js';
import { decodeStatusDetails, jsonDetails } from './support/status-details.js';
import type { StorageTarget } from './support/storage-targets.js';
import { CDN_URL, startTestService, type TestService } from './support/test-service.js';
import { mintToken, unsignedToken } from './support/tokens.js';

/** Types the sniffer must find for fixtures whose format is unambiguous; the rest must have some type. */
const EXPECTED_TYPES: Readonly<Record<string, RegExp>> = {
  'image.png': /^image\/png$/,
  'png-named.txt': /^image\/png$/,
  'photo.jpg': /^image\/jpeg$/,
  'anim.gif': /^image\/gif$/,
  'image.webp': /^image\/webp$/,
  'document.pdf': /^application\/pdf$/,
  'clip.mp4': /^video\/mp4$/,
  'clip.webm': /^video\/webm$/,
  'sound.mp3': /^audio\/mpeg$/,
  'notes.txt': /^text\/plain/,
  'drawing.svg': /^image\/svg\+xml$/,
};

/** Small enough that a too-large upload costs nothing. */
export const SUITE_MAX_UPLOAD_BYTES = 256 * 1024;

type Expect = (t: ExecutionContext, call: Promise<unknown>, code: Status) => Promise<ServiceError>;

/** Awaits a call that must fail with `code`, and returns the error for further checks. */
export const rejects: Expect = async (t, call, code) => {
  const error = (await t.throwsAsync(call)) as ServiceError | undefined;
  if (!error) throw new Error('the call succeeded');
  t.is(Status[error.code], Status[code], error.details);
  return error;
};

/** Path after the CDN base, as FileService.ReadFile expects it. */
export function filePath(asset: Asset): string {
  if (!asset.url.startsWith(`${CDN_URL}/`)) throw new Error(`url ${asset.url} is not under ${CDN_URL}`);
  return asset.url.slice(CDN_URL.length + 1);
}

/**
 * The end-to-end suite: a real service over the given storage, every RPC
 * called through the generated grpc-js clients. Each storage target (SQLite +
 * disk, MySQL + S3) runs the same tests.
 */
export function defineServiceSuite(target: StorageTarget): void {
  let svc: TestService;
  const ws = (name: string) => `${name}-${target.name}`;

  test.before(async () => {
    svc = await startTestService({
      storage: target.storage,
      dataDir: target.dataDir,
      env: { MAX_UPLOAD_BYTES: String(SUITE_MAX_UPLOAD_BYTES) },
    });
  });
  test.after.always(async () => {
    await svc?.stop();
    await target.cleanup();
  });

  // ── asset lifecycle ─────────────────────────────────────────────────────

  test('ListAssets, UpdateAsset, DeleteAsset, BatchDeleteAssets and GetWorkspaceUsage', async (t) => {
    const auth = await svc.auth(ws('lifecycle'));
    const a = await svc.clients.upload(auth, { label: 'a' }, Buffer.from('first\n'));
    const b = await svc.clients.upload(auth, { label: 'b' }, (await fixture('png')).bytes);
    const c = await svc.clients.upload(auth, { label: 'a' }, Buffer.from('third\n'));
    const list = (request: { pageSize?: number; pageToken?: string; type?: string; label?: string }) =>
      svc.clients.asset('listAssets', auth, { pageSize: 0, pageToken: '', type: '', q: '', ...request });
    const first = await list({ pageSize: 2 });
    t.deepEqual(
      first.assets.map((asset) => asset.id),
      [c.id, b.id],
      'newest first',
    );
    const second = await list({ pageSize: 2, pageToken: first.nextPageToken });
    t.deepEqual([second.assets.map((asset) => asset.id), second.nextPageToken], [[a.id], '']);
    t.deepEqual(
      (await list({ type: 'image/*' })).assets.map((asset) => asset.id),
      [b.id],
    );
    t.deepEqual(
      (await list({ label: 'a' })).assets.map((asset) => asset.id),
      [c.id, a.id],
    );
    await rejects(t, list({ pageSize: 1001 }), Status.INVALID_ARGUMENT);
    await rejects(t, list({ pageToken: 'forged' }), Status.INVALID_ARGUMENT);

    const updated = await svc.clients.asset('updateAsset', auth, { id: a.id, label: 'renamed', visibility: 'private' });
    t.like(updated, { id: a.id, label: 'renamed', visibility: 'private', url: a.url });
    await rejects(t, svc.clients.asset('updateAsset', auth, { id: a.id, visibility: 'hidden' }), Status.INVALID_ARGUMENT);
    await rejects(t, svc.clients.asset('updateAsset', await svc.auth(ws('lifecycle-other')), { id: a.id, label: 'x' }), Status.NOT_FOUND);

    t.deepEqual(await svc.clients.asset('getWorkspaceUsage', auth, {}), {
      assets: 3,
      bytes: a.size + b.size + c.size,
      versionBytes: 0,
      trashBytes: 0,
      routes: 0,
    });
    t.deepEqual(await svc.clients.asset('deleteAsset', auth, { id: a.id, purge: false }), {});
    await rejects(t, svc.clients.getAsset(auth, a.id), Status.NOT_FOUND);
    await rejects(t, svc.clients.readFile({ path: filePath(a) }), Status.NOT_FOUND);
    await rejects(t, svc.clients.asset('deleteAsset', auth, { id: a.id, purge: false }), Status.NOT_FOUND);
    const batch = await svc.clients.asset('batchDeleteAssets', auth, { ids: [b.id, a.id, 'nope'] });
    t.deepEqual(batch.results, [
      { id: b.id, code: 'ok' },
      { id: a.id, code: 'not_found' },
      { id: 'nope', code: 'invalid_argument' },
    ]);
    await rejects(t, svc.clients.asset('batchDeleteAssets', auth, { ids: [] }), Status.INVALID_ARGUMENT);
    t.like(await svc.clients.asset('getWorkspaceUsage', auth, {}), { assets: 1, bytes: c.size });
  });

  test('names: UploadAsset filename cleaned and cut; ReplaceAsset keeps or renames; UpdateAsset name; ListAssets q; ReadFile names the download', async (t) => {
    const auth = await svc.auth(ws('names'));
    const png = (await fixture('png')).bytes;
    const named = await svc.clients.upload(auth, { filename: 'Bericht\u0000 Q3\n.txt', label: 'docs' }, png);
    t.is(named.name, 'Bericht Q3.txt', 'control characters removed');
    t.is(named.type, 'image/png', 'never typed by its name');
    const long = await svc.clients.upload(auth, { filename: `${'ü'.repeat(300)}.pdf` }, Buffer.from('long\n'));
    t.is(long.name, `${'ü'.repeat(251)}.pdf`, 'cut to 255 characters, the extension kept');
    const unnamed = await svc.clients.upload(auth, {}, Buffer.from('none\n'));
    t.is(unnamed.name, '');

    t.is((await svc.clients.replace(auth, { id: named.id }, png)).name, 'Bericht Q3.txt', 'a replace without a filename keeps the name');
    t.is((await svc.clients.replace(auth, { id: named.id, filename: 'report-q3.png' }, png)).name, 'report-q3.png');
    const renamed = await svc.clients.asset('updateAsset', auth, { id: named.id, name: 'Report Q3 (final).png' });
    t.like(renamed, { name: 'Report Q3 (final).png', label: 'docs' });
    t.is(
      (await svc.clients.asset('updateAsset', auth, { id: named.id, label: 'kept' })).name,
      'Report Q3 (final).png',
      'no name given: unchanged',
    );
    const tooLong = await rejects(
      t,
      svc.clients.asset('updateAsset', auth, { id: named.id, name: 'x'.repeat(256) }),
      Status.INVALID_ARGUMENT,
    );
    t.regex(tooLong.details, /name/);
    t.is((await svc.clients.asset('updateAsset', auth, { id: unnamed.id, name: '100%_done.txt' })).name, '100%_done.txt');

    const list = (q: string, extra: { type?: string; label?: string } = {}) =>
      svc.clients.asset('listAssets', auth, { pageSize: 0, pageToken: '', type: '', q, ...extra });
    t.deepEqual(
      (await list('REPORT')).assets.map((asset) => asset.id),
      [named.id],
      'any case',
    );
    t.deepEqual(
      (await list('report', { type: 'image/*', label: 'kept' })).assets.map((asset) => asset.id),
      [named.id],
      'with a type and a label',
    );
    t.deepEqual((await list('report', { type: 'text/*' })).assets, []);
    t.deepEqual(
      (await list('100%')).assets.map((asset) => asset.id),
      [unnamed.id],
      '% is literal',
    );
    t.deepEqual((await list('1000')).assets, []);
    t.deepEqual(
      (await list('ÜÜ')).assets.map((asset) => asset.id),
      [long.id],
    );
    await rejects(t, list('x'.repeat(256)), Status.INVALID_ARGUMENT);

    t.is((await svc.clients.readFile({ path: filePath(renamed), infoOnly: true })).info.name, 'Report Q3 (final).png');
    t.is((await svc.clients.readFile({ path: filePath(long), infoOnly: true })).info.name, long.name);
    const fresh = await svc.clients.upload(auth, {}, png);
    t.is(
      (await svc.clients.readFile({ path: filePath(fresh), infoOnly: true })).info.name,
      `${fresh.id}.png`,
      'no name: the id and extension',
    );
  });

  test('a private file: ReadFile is PERMISSION_DENIED without a signature, streams with one, until revoked; a replace ends it', async (t) => {
    const auth = await svc.auth(ws('private'));
    const bytes = Buffer.from('private bytes\n');
    const stream = svc.clients.startUpload(auth);
    stream.stream.write({ metadata: { label: '', filename: '', declaredType: '', visibility: '' } });
    stream.stream.write({ chunk: bytes });
    stream.stream.end({ trailingVisibility: 'private' });
    const asset = await stream.result;
    t.is(asset.visibility, 'private', 'a trailing visibility');
    const path = filePath(asset);
    const denied = await rejects(t, svc.clients.readFile({ path }), Status.PERMISSION_DENIED);
    t.regex(denied.details, /signature/);
    const signed = await svc.clients.asset('createSignedUrl', auth, { id: asset.id, expiresIn: 60 });
    t.true(signed.url.startsWith(`${asset.url}?`));
    t.true(signed.expiresAt!.getTime() - Date.now() <= 60_000);
    const query = new URL(signed.url).search.slice(1);
    const read = await svc.clients.readFile({ path, query });
    t.true(read.bytes.equals(bytes));
    t.is(read.info.visibility, 'private');
    // Another signature: its first character changed.
    await rejects(
      t,
      svc.clients.readFile({ path, query: query.replace(/sig=(.)/, (_, first: string) => `sig=${first === 'A' ? 'B' : 'A'}`) }),
      Status.PERMISSION_DENIED,
    );
    await rejects(t, svc.clients.asset('createSignedUrl', auth, { id: asset.id, expiresIn: 0 }), Status.INVALID_ARGUMENT);
    await rejects(t, svc.clients.asset('createSignedUrl', auth, { id: asset.id, expiresIn: 604_801 }), Status.INVALID_ARGUMENT);
    t.deepEqual(await svc.clients.asset('revokeSignedUrls', auth, { id: asset.id }), {});
    await rejects(t, svc.clients.readFile({ path, query }), Status.PERMISSION_DENIED);
    const again = new URL((await svc.clients.asset('createSignedUrl', auth, { id: asset.id, expiresIn: 60 })).url).search.slice(1);
    t.true((await svc.clients.readFile({ path, query: again, infoOnly: true })).info.size > 0);
    const replaced = await svc.clients.replace(auth, { id: asset.id }, Buffer.from('new\n'));
    t.is(replaced.visibility, 'private', 'a replace keeps it');
    await rejects(t, svc.clients.readFile({ path, query: again }), Status.NOT_FOUND);
    await rejects(t, svc.clients.asset('revokeSignedUrls', auth, { id: 'as_00000000000000000000000000' }), Status.NOT_FOUND);
  });

  // Serial: it compares the whole storage before and after.
  test.serial(
    'the workspace policy: set and read with workspace:admin; a refused type is INVALID_ARGUMENT naming the media type, a file over the limit RESOURCE_EXHAUSTED, nothing stored',
    async (t) => {
      const auth = await svc.auth(ws('policy'));
      t.deepEqual(await svc.clients.asset('getWorkspacePolicy', auth, {}), {
        allowedTypes: [],
        maxUploadBytes: SUITE_MAX_UPLOAD_BYTES,
        defaultVisibility: 'public',
        stripImageMetadata: false,
        keepVersions: 5,
        retentionDays: 7,
      });
      const policy = await svc.clients.asset('setWorkspacePolicy', auth, {
        allowedTypes: ['image/png'],
        maxUploadBytes: 1024,
        defaultVisibility: 'private',
        stripImageMetadata: false,
        keepVersions: 3,
        retentionDays: 30,
      });
      t.deepEqual(policy, {
        allowedTypes: ['image/png'],
        maxUploadBytes: 1024,
        defaultVisibility: 'private',
        stripImageMetadata: false,
        keepVersions: 3,
        retentionDays: 30,
      });
      for (const retention of [{ keepVersions: 101 }, { retentionDays: 366 }, { keepVersions: -1 }])
        await rejects(
          t,
          svc.clients.asset('setWorkspacePolicy', auth, {
            allowedTypes: [],
            defaultVisibility: '',
            stripImageMetadata: false,
            ...retention,
          }),
          Status.INVALID_ARGUMENT,
        );
      await rejects(
        t,
        svc.clients.asset('setWorkspacePolicy', auth, {
          allowedTypes: [],
          maxUploadBytes: SUITE_MAX_UPLOAD_BYTES + 1,
          defaultVisibility: '',
          stripImageMetadata: false,
        }),
        Status.INVALID_ARGUMENT,
      );
      await rejects(
        t,
        svc.clients.asset('getWorkspacePolicy', await svc.auth(ws('policy'), { scope: 'assets:read assets:write' }), {}),
        Status.PERMISSION_DENIED,
      );
      const before = await target.snapshot();
      const refused = await rejects(
        t,
        svc.clients.upload(auth, { declaredType: 'image/png', filename: 'x.png' }, (await fixture('jpg')).bytes),
        Status.INVALID_ARGUMENT,
      );
      t.deepEqual(
        jsonDetails(refused).map((detail) => detail.field),
        ['mediaType'],
      );
      await rejects(t, svc.clients.upload(auth, {}, noise(1025)), Status.RESOURCE_EXHAUSTED);
      t.deepEqual(await target.snapshot(), before, 'nothing stored');
      const png = await svc.clients.upload(auth, {}, (await fixture('png')).bytes);
      t.is(png.visibility, 'private', 'the default visibility');
    },
  );

  // ── routes ──────────────────────────────────────────────────────────────

  test('CreateRoute stores a route that GetRoute reads back', async (t) => {
    const auth = await svc.auth(ws('routes'));
    const created = await svc.clients.createRoute(auth, {
      method: 'post',
      path: '/users/:id/orders',
      middleware: ['auth', 'audit'],
      handler: 'createOrder',
    });
    t.regex(created.id, /^rt_[0-9a-z]{26}$/);
    t.is(created.method, 'POST');
    t.is(created.path, '/users/:id/orders');
    t.deepEqual(created.middleware, ['auth', 'audit']);
    t.is(created.handler, 'createOrder');
    t.true(created.createdAt instanceof Date);
    t.true(Math.abs(created.createdAt!.getTime() - Date.now()) < 60_000);
    t.deepEqual(await svc.clients.getRoute(auth, created.id), created);
  });

  test('CreateRoute without middleware stores an empty list', async (t) => {
    const route = await svc.clients.createRoute(await svc.auth(ws('routes')), { method: 'GET', path: '/health', handler: 'health' });
    t.deepEqual(route.middleware, []);
  });

  test('the same method and path shape is ALREADY_EXISTS, parameter names ignored', async (t) => {
    const auth = await svc.auth(ws('dupes'));
    await svc.clients.createRoute(auth, { method: 'GET', path: '/orders/:id', handler: 'getOrder' });
    await rejects(t, svc.clients.createRoute(auth, { method: 'get', path: '/orders/:orderId', handler: 'other' }), Status.ALREADY_EXISTS);
    // Another workspace may have the same route.
    await t.notThrowsAsync(
      svc.clients.createRoute(await svc.auth(ws('dupes-other')), { method: 'GET', path: '/orders/:id', handler: 'getOrder' }),
    );
  });

  const badRoutes: Array<[string, Partial<CreateRouteRequest>]> = [
    ['method', { method: 'FETCH', path: '/a', handler: 'h' }],
    ['path', { method: 'GET', path: 'no-leading-slash', handler: 'h' }],
    ['handler', { method: 'GET', path: '/b', handler: '' }],
    ['middleware', { method: 'GET', path: '/c', handler: 'h', middleware: ['not a name'] }],
  ];
  for (const [field, request] of badRoutes) {
    test(`CreateRoute with a bad ${field} is INVALID_ARGUMENT naming the field`, async (t) => {
      const error = await rejects(t, svc.clients.createRoute(await svc.auth(ws('invalid')), request), Status.INVALID_ARGUMENT);
      t.true(
        jsonDetails(error).some((detail) => detail.field?.startsWith(field)),
        JSON.stringify(jsonDetails(error)),
      );
      const decoded = decodeStatusDetails(error);
      t.is(decoded?.errorInfo?.reason, 'INVALID_ARGUMENT');
      t.true(decoded?.fieldViolations.some((violation) => violation.field.startsWith(field)));
    });
  }

  test('GetRoute: a malformed id is INVALID_ARGUMENT, an unknown or foreign one NOT_FOUND', async (t) => {
    const auth = await svc.auth(ws('get-route'));
    const route = await svc.clients.createRoute(auth, { method: 'GET', path: '/mine', handler: 'mine' });
    await rejects(t, svc.clients.getRoute(auth, 'not-an-id'), Status.INVALID_ARGUMENT);
    await rejects(t, svc.clients.getRoute(auth, '../../etc/passwd'), Status.INVALID_ARGUMENT);
    await rejects(t, svc.clients.getRoute(auth, 'rt_00000000000000000000000000'), Status.NOT_FOUND);
    await rejects(t, svc.clients.getRoute(await svc.auth(ws('get-route-intruder')), route.id), Status.NOT_FOUND);
  });

  test('MatchRoute prefers static segments and extracts parameters', async (t) => {
    const auth = await svc.auth(ws('match'));
    const byId = await svc.clients.createRoute(auth, { method: 'GET', path: '/users/:id', handler: 'getUser' });
    const me = await svc.clients.createRoute(auth, { method: 'GET', path: '/users/me', handler: 'getMe' });
    const matched = await svc.clients.matchRoute(auth, 'get', '/users/42');
    t.deepEqual(matched.route, byId);
    t.deepEqual(matched.params, { id: '42' });
    const statik = await svc.clients.matchRoute(auth, 'GET', '/users/me');
    t.is(statik.route?.id, me.id);
    t.deepEqual(statik.params, {});
  });

  test('MatchRoute: no match is NOT_FOUND, a bad path INVALID_ARGUMENT, routes of other workspaces never match', async (t) => {
    const auth = await svc.auth(ws('match-miss'));
    await svc.clients.createRoute(auth, { method: 'GET', path: '/only', handler: 'only' });
    await rejects(t, svc.clients.matchRoute(auth, 'GET', '/other'), Status.NOT_FOUND);
    await rejects(t, svc.clients.matchRoute(auth, 'POST', '/only'), Status.NOT_FOUND);
    await rejects(t, svc.clients.matchRoute(auth, 'GET', 'relative'), Status.INVALID_ARGUMENT);
    await rejects(t, svc.clients.matchRoute(await svc.auth(ws('match-miss-other')), 'GET', '/only'), Status.NOT_FOUND);
  });

  // ── assets ──────────────────────────────────────────────────────────────

  for (const name of fixtureNames()) {
    test(`UploadAsset of the fixture ${name}: sniffed type, size, sha256, url; GetAsset and ReadFile agree`, async (t) => {
      const file = await namedFixture(name);
      const auth = await svc.auth(ws('upload'));
      // Misleading hints: the type must come from the bytes.
      const asset = await svc.clients.upload(
        auth,
        { label: `fixture ${name}`, filename: 'misleading.bin', declaredType: 'application/x-nonsense' },
        file.bytes,
      );
      t.regex(asset.id, /^as_[0-9a-z]{26}$/);
      t.regex(asset.type, EXPECTED_TYPES[name] ?? /^[a-z]+\/[a-z0-9.+-]+$/);
      t.is(asset.size, file.bytes.length);
      t.is(asset.sha256, file.sha256);
      t.is(asset.label, `fixture ${name}`);
      t.regex(asset.url, new RegExp(`^${CDN_URL}/${asset.id}/bl_[0-9a-z]{26}\\.[a-z0-9]+$`));
      t.true(asset.uploadedAt instanceof Date);
      t.deepEqual(await svc.clients.getAsset(auth, asset.id), asset);
      const read = await svc.clients.readFile({ path: filePath(asset) });
      t.is(read.info.type, asset.type);
      t.is(read.info.size, asset.size);
      t.is(read.info.sha256, asset.sha256);
      t.deepEqual(read.info.uploadedAt, asset.uploadedAt);
      t.deepEqual([read.info.rangeStart, read.info.rangeEnd], [0, asset.size - 1]);
      t.true(read.bytes.equals(file.bytes));
    });
  }

  test('an image upload reports its pixel size and the url ends with its extension', async (t) => {
    const png = await fixture('png');
    const asset = await svc.clients.upload(await svc.auth(ws('image')), {}, png.bytes);
    t.true(asset.url.endsWith('.png'));
    t.true((asset.width ?? 0) > 0);
    t.true((asset.height ?? 0) > 0);
    t.is(asset.label, '');
  });

  test('a file of exactly MAX_UPLOAD_BYTES is accepted, in many chunks', async (t) => {
    const bytes = noise(SUITE_MAX_UPLOAD_BYTES, 7);
    const asset = await svc.clients.upload(await svc.auth(ws('limit')), {}, bytes);
    t.is(asset.size, SUITE_MAX_UPLOAD_BYTES);
    t.is(asset.sha256, sha256(bytes));
  });

  test('an empty file is a valid upload', async (t) => {
    const asset = await svc.clients.upload(await svc.auth(ws('empty')), {}, Buffer.alloc(0));
    t.is(asset.size, 0);
    t.is(asset.sha256, sha256(Buffer.alloc(0)));
  });

  test('ReadFile: ranges, info only, and its refusals', async (t) => {
    const bytes = noise(200_000, 3);
    const asset = await svc.clients.upload(await svc.auth(ws('range')), {}, bytes);
    const path = filePath(asset);
    const middle = await svc.clients.readFile({ path, rangeStart: 1000, rangeEnd: 150_999 });
    t.deepEqual([middle.info.rangeStart, middle.info.rangeEnd, middle.info.size], [1000, 150_999, 200_000]);
    t.true(middle.bytes.equals(bytes.subarray(1000, 151_000)));
    t.true(middle.messages >= 4, 'the bytes arrive in bounded chunks');
    const tail = await svc.clients.readFile({ path, rangeStart: 199_990 });
    t.true(tail.bytes.equals(bytes.subarray(199_990)));
    const info = await svc.clients.readFile({ path, infoOnly: true });
    t.is(info.bytes.length, 0);
    t.is(info.messages, 1);
    t.is(info.info.sha256, asset.sha256);
    await rejects(t, svc.clients.readFile({ path, rangeStart: 200_000 }), Status.OUT_OF_RANGE);
    await rejects(t, svc.clients.readFile({ path, rangeStart: 10, rangeEnd: 5 }), Status.INVALID_ARGUMENT);
    await rejects(t, svc.clients.readFile({ path: '../../etc/passwd' }), Status.INVALID_ARGUMENT);
    await rejects(t, svc.clients.readFile({ path: `${asset.id}/bl_00000000000000000000000000.bin` }), Status.NOT_FOUND);
  });

  test('ReplaceAsset keeps the id while type, size, url and sha256 follow the new file; the old url is gone', async (t) => {
    const [png, pdf] = [await fixture('png'), await fixture('pdf')];
    const auth = await svc.auth(ws('replace'));
    const before = await svc.clients.upload(auth, { label: 'logo' }, png.bytes);
    const after = await svc.clients.replace(auth, { id: before.id, filename: 'new.pdf' }, pdf.bytes);
    t.is(after.id, before.id);
    t.is(after.type, 'application/pdf');
    t.is(after.size, pdf.bytes.length);
    t.is(after.sha256, pdf.sha256);
    t.not(after.url, before.url);
    t.true(after.url.endsWith('.pdf'));
    t.is(after.label, 'logo');
    t.true(after.uploadedAt!.getTime() >= before.uploadedAt!.getTime());
    t.deepEqual(await svc.clients.getAsset(auth, before.id), after);
    t.true((await svc.clients.readFile({ path: filePath(after) })).bytes.equals(pdf.bytes));
    await rejects(t, svc.clients.readFile({ path: filePath(before) }), Status.NOT_FOUND);
  });

  test('ReplaceAsset: malformed id INVALID_ARGUMENT, unknown or foreign id NOT_FOUND', async (t) => {
    const auth = await svc.auth(ws('replace-errors'));
    const asset = await svc.clients.upload(auth, {}, Buffer.from('original'));
    await rejects(t, svc.clients.replace(auth, { id: 'nope' }, Buffer.from('x')), Status.INVALID_ARGUMENT);
    await rejects(t, svc.clients.replace(auth, { id: 'as_00000000000000000000000000' }, Buffer.from('x')), Status.NOT_FOUND);
    await rejects(t, svc.clients.replace(await svc.auth(ws('replace-intruder')), { id: asset.id }, Buffer.from('x')), Status.NOT_FOUND);
    t.is((await svc.clients.getAsset(auth, asset.id)).sha256, asset.sha256, 'the refused replaces changed nothing');
  });

  test('GetAsset: malformed id INVALID_ARGUMENT, unknown or foreign id NOT_FOUND', async (t) => {
    const auth = await svc.auth(ws('get-asset'));
    const asset = await svc.clients.upload(auth, {}, Buffer.from('mine'));
    await rejects(t, svc.clients.getAsset(auth, 'as_short'), Status.INVALID_ARGUMENT);
    await rejects(t, svc.clients.getAsset(auth, 'as_00000000000000000000000000'), Status.NOT_FOUND);
    await rejects(t, svc.clients.getAsset(await svc.auth(ws('get-asset-intruder')), asset.id), Status.NOT_FOUND);
  });

  test('a label that breaks the rules is INVALID_ARGUMENT', async (t) => {
    const error = await rejects(
      t,
      svc.clients.upload(await svc.auth(ws('label')), { label: 'x'.repeat(1000) }, Buffer.from('a')),
      Status.INVALID_ARGUMENT,
    );
    t.true(jsonDetails(error).some((detail) => detail.field === 'label'));
  });

  // Serial: these compare what storage holds before and after.

  test.serial('an upload over MAX_UPLOAD_BYTES is RESOURCE_EXHAUSTED and stores nothing', async (t) => {
    const before = await target.snapshot();
    await rejects(t, svc.clients.upload(await svc.auth(ws('too-large')), {}, noise(SUITE_MAX_UPLOAD_BYTES + 1)), Status.RESOURCE_EXHAUSTED);
    await svc.logs.waitFor((line) => callLine('UploadAsset')(line) && line['code'] === 'RESOURCE_EXHAUSTED');
    t.deepEqual(await target.snapshot(), before);
  });

  test.serial('a replace over the limit is RESOURCE_EXHAUSTED and keeps the old file', async (t) => {
    const auth = await svc.auth(ws('too-large-replace'));
    const asset = await svc.clients.upload(auth, {}, Buffer.from('small'));
    const before = await target.snapshot();
    await rejects(t, svc.clients.replace(auth, { id: asset.id }, noise(SUITE_MAX_UPLOAD_BYTES + 1)), Status.RESOURCE_EXHAUSTED);
    await svc.logs.waitFor((line) => callLine('ReplaceAsset')(line) && line['code'] === 'RESOURCE_EXHAUSTED');
    t.deepEqual(await target.snapshot(), before);
    t.true((await svc.clients.readFile({ path: filePath(asset) })).bytes.equals(Buffer.from('small')));
  });

  const meta = (label = '') => ({ metadata: { label, filename: '', declaredType: '', visibility: '' } });
  const malformed: Array<[string, UploadAssetRequest[], string]> = [
    ['a chunk before the metadata', [{ chunk: Buffer.from('bytes') }], 'metadata'],
    ['no message at all', [], 'metadata'],
    ['metadata twice', [meta(), { chunk: Buffer.from('a') }, meta()], 'metadata'],
    [
      'a trailing label after a metadata label',
      [meta('first'), { chunk: Buffer.from('a') }, { trailingLabel: 'second' }],
      'trailing_label',
    ],
    ['two trailing labels', [meta(), { chunk: Buffer.from('a') }, { trailingLabel: 'one' }, { trailingLabel: 'two' }], 'trailing_label'],
    ['a chunk after the trailing label', [meta(), { trailingLabel: 'early' }, { chunk: Buffer.from('a') }], 'trailing_label'],
    ['a trailing label that breaks the label rules', [meta(), { chunk: Buffer.from('a') }, { trailingLabel: 'x'.repeat(201) }], 'label'],
  ];
  for (const [name, messages, field] of malformed) {
    test.serial(`an upload stream with ${name} is INVALID_ARGUMENT and stores nothing`, async (t) => {
      const before = await target.snapshot();
      const requestId = `malformed-${target.name}-${name.replace(/\W+/g, '-')}`;
      const error = await rejects(
        t,
        svc.clients.uploadMessages(withRequestId(await svc.auth(ws('malformed')), requestId), messages),
        Status.INVALID_ARGUMENT,
      );
      t.true(
        jsonDetails(error).some((detail) => detail.field === field),
        JSON.stringify(jsonDetails(error)),
      );
      await svc.logs.waitFor(callLine('UploadAsset', requestId));
      t.deepEqual(await target.snapshot(), before);
    });
  }

  test("a trailing label, sent after the bytes, becomes the asset's label", async (t) => {
    const auth = await svc.auth(ws('trailing'));
    const asset = await svc.clients.uploadMessages(auth, [
      meta(),
      { chunk: Buffer.from('late ') },
      { chunk: Buffer.from('label') },
      { trailingLabel: 'invoices' },
    ]);
    t.is(asset.label, 'invoices');
    t.is(asset.size, 10);
    t.is((await svc.clients.getAsset(auth, asset.id)).label, 'invoices');
  });

  test.serial('a cancelled upload leaves no record and no blob', async (t) => {
    const before = await target.snapshot();
    const requestId = `cancel-${target.name}`;
    const { stream, result } = svc.clients.startUpload(await svc.auth(ws('cancel'), {}).then((md) => withRequestId(md, requestId)));
    const started = new Promise((resolve) => stream.once('metadata', resolve));
    stream.write({ metadata: { label: 'doomed', filename: '', declaredType: '', visibility: '' } });
    const chunks = chunksOf(noise(SUITE_MAX_UPLOAD_BYTES / 2, 11));
    for (const chunk of chunks) stream.write({ chunk });
    await started;
    // The server has answered with its metadata, so the call is in its hands; now give up mid-stream.
    stream.cancel();
    await rejects(t, result, Status.CANCELLED);
    const line = await svc.logs.waitFor(callLine('UploadAsset', requestId));
    t.is(line['code'], 'CANCELLED');
    t.deepEqual(await target.snapshot(), before);
  });

  test.serial('a cancel right after the last chunk went out (END_STREAM, then RST, on the wire) stores nothing', async (t) => {
    // Node's Http2Stream.close() half-closes before it resets: the server sees
    // what looks like a complete upload, then the cancel.
    const before = await target.snapshot();
    const requestId = `cancel-flushed-${target.name}`;
    const { stream, result } = svc.clients.startUpload(withRequestId(await svc.auth(ws('cancel')), requestId));
    const sent = (message: object) =>
      new Promise<void>((resolve, reject) => stream.write(message, (error?: Error | null) => (error ? reject(error) : resolve())));
    await sent({ metadata: { label: 'doomed too', filename: '', declaredType: '', visibility: '' } });
    for (const chunk of chunksOf(noise(100_000, 12))) await sent({ chunk });
    stream.cancel();
    await rejects(t, result, Status.CANCELLED);
    const line = await svc.logs.waitFor(callLine('UploadAsset', requestId));
    t.is(line['code'], 'CANCELLED', 'the server did not commit the truncated upload');
    t.deepEqual(await target.snapshot(), before);
  });

  // ── auth ────────────────────────────────────────────────────────────────

  const calls: Array<[string, string, (md: Metadata, ids: { routeId: string; assetId: string }) => Promise<unknown>]> = [
    [
      'CreateRoute',
      'routes:write',
      (md) => svc.clients.createRoute(md, { method: 'GET', path: `/scoped/${Math.random().toString(36).slice(2)}`, handler: 'h' }),
    ],
    ['GetRoute', 'routes:read', (md, ids) => svc.clients.getRoute(md, ids.routeId)],
    ['MatchRoute', 'routes:read', (md) => svc.clients.matchRoute(md, 'GET', '/scoped-target')],
    ['UploadAsset', 'assets:write', (md) => svc.clients.upload(md, {}, Buffer.from('scoped'))],
    ['ReplaceAsset', 'assets:write', (md, ids) => svc.clients.replace(md, { id: ids.assetId }, Buffer.from('scoped'))],
    ['GetAsset', 'assets:read', (md, ids) => svc.clients.getAsset(md, ids.assetId)],
  ];

  async function seed(workspace: string): Promise<{ routeId: string; assetId: string }> {
    const auth = await svc.auth(workspace);
    const route = await svc.clients.createRoute(auth, { method: 'GET', path: '/scoped-target', handler: 'target' });
    const asset = await svc.clients.upload(auth, {}, Buffer.from('seed'));
    return { routeId: route.id, assetId: asset.id };
  }

  for (const [rpc, scope, call] of calls) {
    test(`${rpc}: missing, malformed, forged, expired and unsigned tokens are UNAUTHENTICATED`, async (t) => {
      const workspace = ws(`auth-${rpc.toLowerCase()}`);
      const ids = await seed(workspace);
      const refused: Array<[string, Metadata]> = [
        ['no authorization', bearer(undefined)],
        ['garbage', bearer('garbage')],
        ['wrong key', bearer(await mintToken('another-secret-of-at-least-32-characters', { workspace }))],
        ['expired', await svc.auth(workspace, { expiresIn: -120 })],
        ['not yet valid', await svc.auth(workspace, { notBefore: 3600 })],
        ['alg none', bearer(unsignedToken(workspace))],
        ['no workspace', bearer(await mintToken(svc.secret, {}))],
        ['no subject', bearer(await mintToken(svc.secret, { workspace, subject: '' }))],
        ['basic scheme', withAuthorization(`Basic ${Buffer.from('u:p').toString('base64')}`)],
      ];
      for (const [why, metadata] of refused) {
        const error = await t.throwsAsync<ServiceError>(call(metadata, ids), undefined, why);
        t.is(Status[error.code], 'UNAUTHENTICATED', `${why}: ${error.details}`);
        t.false(error.details.includes('eyJ'), 'no token in the message');
      }
    });

    test(`${rpc}: a valid token without ${scope} is PERMISSION_DENIED`, async (t) => {
      const workspace = ws(`scope-${rpc.toLowerCase()}`);
      const ids = await seed(workspace);
      const others = ['routes:read', 'routes:write', 'assets:read', 'assets:write'].filter((s) => s !== scope).join(' ');
      await rejects(t, call(await svc.auth(workspace, { scope: others }), ids), Status.PERMISSION_DENIED);
      await t.notThrowsAsync(call(await svc.auth(workspace, { scope }), ids), 'the one scope suffices');
    });
  }

  test('ReadFile is public: no token needed, a token does not widen it', async (t) => {
    const asset = await svc.clients.upload(await svc.auth(ws('public')), {}, Buffer.from('public bytes'));
    t.is((await svc.clients.readFile({ path: filePath(asset) })).bytes.toString(), 'public bytes');
  });

  // ── health, reflection, logs ────────────────────────────────────────────

  test('health reports SERVING for the server and every service', async (t) => {
    for (const service of ['', 'switchyard.v1.RouteService', 'switchyard.v1.AssetService', 'switchyard.v1.FileService']) {
      t.is(await svc.clients.healthCheck(service), 'SERVING', service);
    }
    await rejects(t, svc.clients.healthCheck('no.such.Service'), Status.NOT_FOUND);
  });

  test('reflection lists our services and health, and serves their descriptors', async (t) => {
    const services = await listServicesByReflection(svc.handle.address);
    for (const name of ['switchyard.v1.RouteService', 'switchyard.v1.AssetService', 'switchyard.v1.FileService', 'grpc.health.v1.Health']) {
      t.true(services.includes(name), `${name} in ${services.join(', ')}`);
    }
    const descriptors = await fileContainingSymbol(svc.handle.address, 'switchyard.v1.AssetService');
    t.true(descriptors.length > 0);
    t.true(descriptors.some((bytes) => bytes.includes('UploadAsset')));
  });

  test('each call is logged once with request id, method, code and duration; the request id is echoed', async (t) => {
    const requestId = `req-${target.name}-1`;
    const metadata = withRequestId(await svc.auth(ws('logs')), requestId);
    const echoed = await new Promise<unknown>((resolve) => {
      const call = svc.clients.routes.getRoute({ id: 'rt_00000000000000000000000000' }, metadata, () => undefined);
      call.once('metadata', (md) => resolve(md.get('x-request-id')[0]));
    });
    t.is(echoed, requestId);
    const line = await svc.logs.waitFor(callLine('GetRoute', requestId));
    t.is(line['code'], 'NOT_FOUND');
    t.is(typeof line['durationMs'], 'number');
    t.is(line['workspace'], ws('logs'));
    t.is(svc.logs.lines().filter(callLine('GetRoute', requestId)).length, 1);
  });

  test('a call without a request id gets one for its log line; its reply carries it only when the call failed', async (t) => {
    const auth = await svc.auth(ws('fresh-ids'));
    const route = await svc.clients.createRoute(auth, { method: 'GET', path: '/fresh-ids/:id', handler: 'freshIds' });
    const replyHeaders = (id: string) =>
      new Promise<Metadata>((resolve) => {
        const call = svc.clients.routes.getRoute({ id }, auth, () => undefined);
        call.once('metadata', resolve);
      });
    const found = await replyHeaders(route.id);
    t.deepEqual(found.get('x-request-id'), [], 'a success that came without an id');
    const missing = await replyHeaders('rt_00000000000000000000000001');
    const [fresh] = missing.get('x-request-id');
    t.is(typeof fresh, 'string');
    const line = await svc.logs.waitFor(callLine('GetRoute', String(fresh)));
    t.is(line['code'], 'NOT_FOUND');
  });

  test.after('no token, bearer header or secret ever reaches the log', (t) => {
    const all = svc.logs.text.join('\n');
    t.true(svc.logs.text.length > 0, 'the suite did log its calls');
    t.false(all.includes('eyJ'), 'no JWT');
    t.false(/bearer/i.test(all), 'no authorization header');
    t.false(all.includes(svc.secret), 'no secret');
  });
}

function withRequestId(metadata: Metadata, requestId: string): Metadata {
  metadata.set('x-request-id', requestId);
  return metadata;
}

function withAuthorization(value: string): Metadata {
  const metadata = bearer(undefined);
  metadata.set('authorization', value);
  return metadata;
}

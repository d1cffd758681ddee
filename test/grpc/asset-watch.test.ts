// AssetService/WatchAssets and ListAssetChanges over real gRPC, on SQLite and disk: two service
// instances over one database (the second learns of the first's writes by polling), history pages,
// and the refusals.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import type { AssetWatchEvent } from '@switchyard/service/gen/switchyard/v1/assets.js';
import { eventually } from '../support/eventually.js';
import { rejects } from './service-suite.js';
import { sqliteDiskTarget, type StorageTarget } from './support/storage-targets.js';
import { startTestService, type TestService } from './support/test-service.js';

let target: StorageTarget;
let a: TestService;
let b: TestService;

test.before(async () => {
  target = await sqliteDiskTarget();
  const secret = randomBytes(32).toString('base64url');
  // A short heartbeat, so the test sees one; polling at the default.
  const env = { WATCH_HEARTBEAT_MS: '1000' };
  a = await startTestService({ storage: target.storage, dataDir: target.dataDir, secret, env });
  b = await startTestService({ storage: target.storage, dataDir: target.dataDir, secret, env });
});
test.after.always(async () => {
  await a?.stop();
  await b?.stop();
  await target?.cleanup();
});

/** A watch through `svc`, its events gathered; `end` cancels it. */
function watch(svc: TestService, auth: Metadata, sinceRevision?: number) {
  const call = svc.clients.assets.watchAssets({ sinceRevision }, auth);
  const events: AssetWatchEvent[] = [];
  let failure: ServiceError | undefined;
  call.on('data', (event: AssetWatchEvent) => events.push(event));
  call.on('error', (error: ServiceError) => (failure = error));
  const until = (check: (kinds: string[]) => boolean, what: string) =>
    eventually(
      () => {
        if (failure && failure.code !== Status.CANCELLED) throw failure;
        return check(kinds(events));
      },
      { timeout: 20_000, interval: 10, message: `${what}; had ${kinds(events).join(' ')}` },
    );
  return { events, until, failed: () => failure, end: () => call.cancel() };
}

function kinds(events: readonly AssetWatchEvent[]): string[] {
  return events.map((event) => {
    const kind = event.change ? event.change.type : event.synced ? 'synced' : event.reset ? 'reset' : 'heartbeat';
    return `${kind}@${event.revision}`;
  });
}

test('a watcher on one instance hears every change made through the other, in order, with heartbeats while quiet', async (t) => {
  const auth = await a.auth('watch-two');
  const first = await a.clients.upload(auth, { label: 'x' }, Buffer.from('one\n'));
  const watcher = watch(b, auth);
  await watcher.until((seen) => seen.length >= 1, 'synced');
  t.deepEqual(kinds(watcher.events), ['synced@1']);
  const second = await a.clients.upload(auth, {}, Buffer.from('two\n'));
  await a.clients.replace(auth, { id: first.id }, Buffer.from('one, again\n'));
  await a.clients.asset('updateAsset', auth, { id: second.id, label: 'renamed' });
  await a.clients.asset('batchDeleteAssets', auth, { ids: [first.id, second.id] });
  await watcher.until((seen) => seen.filter((kind) => !kind.startsWith('heartbeat')).length >= 6, 'six events');
  t.deepEqual(
    kinds(watcher.events).filter((kind) => !kind.startsWith('heartbeat')),
    ['synced@1', 'asset.created@2', 'asset.replaced@3', 'asset.updated@4', 'asset.deleted@5', 'asset.deleted@5'],
  );
  const changes = watcher.events.flatMap((event) => (event.change ? [event.change] : []));
  t.like(changes[0], { assetId: second.id, actor: 'tester', asset: { id: second.id } });
  t.like(changes[1], { assetId: first.id, previous: { size: 4, type: 'text/plain' } });
  t.true(changes[1]?.time instanceof Date);
  t.is(changes[3]?.asset, undefined, 'a delete carries no asset');
  await watcher.until((seen) => seen.at(-1) === 'heartbeat@5', 'a heartbeat once quiet');
  watcher.end();
});

test('WatchAssets from a revision: a heartbeat at once when current, else the changes after it; an unknown revision is a reset', async (t) => {
  const auth = await a.auth('watch-since');
  for (const text of ['1', '2', '3']) await a.clients.upload(auth, {}, Buffer.from(text));
  const current = watch(a, auth, 3);
  await current.until((seen) => seen.length >= 1, 'the first event');
  t.deepEqual(kinds(current.events), ['heartbeat@3']);
  current.end();
  const behind = watch(b, auth, 1);
  await behind.until((seen) => seen.length >= 2, 'two changes');
  t.deepEqual(kinds(behind.events).slice(0, 2), ['asset.created@2', 'asset.created@3']);
  behind.end();
  const ahead = watch(b, auth, 99);
  await ahead.until((seen) => seen.length >= 1, 'a reset');
  t.deepEqual(kinds(ahead.events).slice(0, 1), ['reset@3']);
  ahead.end();
});

test('WatchAssets refusals: a negative revision INVALID_ARGUMENT, no token UNAUTHENTICATED, no assets:read PERMISSION_DENIED', async (t) => {
  const cases: [Metadata, number | undefined, Status][] = [
    [await a.auth('watch-refused'), -1, Status.INVALID_ARGUMENT],
    [new Metadata(), undefined, Status.UNAUTHENTICATED],
    [await a.auth('watch-refused', { scope: 'assets:write' }), undefined, Status.PERMISSION_DENIED],
  ];
  for (const [auth, since, code] of cases) {
    const refused = watch(a, auth, since);
    await eventually(() => refused.failed() !== undefined, { timeout: 20_000, interval: 10, message: `refused with ${Status[code]}` });
    t.is(Status[refused.failed()!.code], Status[code]);
  }
});

test('ListAssetChanges: newest first in pages; a deleted asset keeps its history; refusals name the problem', async (t) => {
  const auth = await a.auth('history');
  const asset = await a.clients.upload(auth, { label: 'v1' }, Buffer.from('v1'));
  for (const label of ['v2', 'v3', 'v4']) await a.clients.asset('updateAsset', auth, { id: asset.id, label });
  await a.clients.asset('deleteAsset', auth, { id: asset.id, purge: false });
  const page = (pageToken = '') => b.clients.asset('listAssetChanges', auth, { id: asset.id, pageSize: 2, pageToken });
  const pages = [await page()];
  while (pages.at(-1)!.nextPageToken) pages.push(await page(pages.at(-1)!.nextPageToken));
  t.deepEqual(
    pages.map((each) => each.changes.map((change) => `${change.type}@${change.revision}`)),
    [['asset.deleted@5', 'asset.updated@4'], ['asset.updated@3', 'asset.updated@2'], ['asset.created@1']],
  );
  t.is(pages[0]?.changes[1]?.asset?.label, 'v4');

  const list = (request: { id: string; pageSize?: number; pageToken?: string }, metadata = auth) =>
    a.clients.asset('listAssetChanges', metadata, { pageSize: 0, pageToken: '', ...request });
  await rejects(t, list({ id: 'not-an-id' }), Status.INVALID_ARGUMENT);
  const unknown = `${asset.id.slice(0, -1)}${asset.id.endsWith('0') ? '1' : '0'}`;
  await rejects(t, list({ id: unknown }), Status.NOT_FOUND);
  await rejects(t, list({ id: asset.id, pageSize: 1001 }), Status.INVALID_ARGUMENT);
  await rejects(t, list({ id: asset.id, pageToken: 'forged' }), Status.INVALID_ARGUMENT);
  await rejects(t, list({ id: asset.id }, await a.auth('someone-else')), Status.NOT_FOUND);
  await rejects(t, list({ id: asset.id }, await a.auth('history', { scope: 'assets:write' })), Status.PERMISSION_DENIED);
});

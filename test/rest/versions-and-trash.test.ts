// Versions and trash over REST (issue 43): the routes of CONTRACT.md "Versions and trash" through the gateway and
// the REST client, their errors, the policy's retention fields and the usage split.
import test from 'ava';
import { createHash } from 'node:crypto';
import { createRestClient, SwitchyardRestError, type RestClient } from '@switchyard/client';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let stack: Stack;
test.before(async () => {
  stack = await startStack({ RATE_LIMIT_PER_SECOND: '0' });
});
test.after.always(async () => stack?.stop());

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const file = (i: number) => new TextEncoder().encode(`file ${i} `.repeat(20 + i));

async function client(workspace: string, claims?: Parameters<Stack['auth']>[1]): Promise<RestClient> {
  const headers = await stack.auth(workspace, claims);
  return createRestClient({ baseUrl: stack.url, token: headers['authorization']!.replace(/^Bearer /, '') });
}

async function statusOf(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (failed: unknown) => failed,
  );
  return error instanceof SwitchyardRestError ? `${error.status} ${error.code}` : 'ok';
}

test('versions: listed newest first, their bytes readable with their type, restored as a replace', async (t) => {
  const rest = await client(freshWorkspace());
  const asset = await rest.uploadAsset(file(0), { filename: 'a.txt' });
  await rest.replaceAsset(asset.id, file(1), { filename: 'b.txt' });
  await rest.replaceAsset(asset.id, file(2), { filename: 'c.txt' });
  const { versions } = await rest.listAssetVersions(asset.id);
  t.deepEqual(
    versions.map((version) => [version.name, version.sha256, version.size]),
    [
      ['b.txt', sha256(file(1)), file(1).length],
      ['a.txt', sha256(file(0)), file(0).length],
    ],
  );
  t.regex(versions[0]!.type, /^text\/plain/);
  t.regex(versions[0]!.id, /^ver_/);
  t.regex(versions[0]!.replacedAt, /Z$/);
  const content = await rest.getAssetVersionContent(asset.id, versions[1]!.id);
  t.is(content.status, 200);
  t.is(content.headers.get('content-type'), versions[1]!.type);
  t.is(content.headers.get('cache-control'), 'private, no-store');
  t.is(sha256(new Uint8Array(await content.arrayBuffer())), sha256(file(0)));

  const restored = await rest.restoreAssetVersion(asset.id, versions[1]!.id);
  t.deepEqual([restored.id, restored.name, restored.sha256], [asset.id, 'a.txt', sha256(file(0))]);
  t.deepEqual(
    (await rest.listAssetVersions(asset.id)).versions.map((version) => version.name),
    ['c.txt', 'b.txt'],
  );
  const [change] = (await rest.listAssetChanges(asset.id, { pageSize: 1 })).changes;
  t.deepEqual([change?.type, change?.reason, change?.versionIds], ['asset.replaced', 'restore', [versions[1]!.id]]);

  t.is(await statusOf(rest.restoreAssetVersion(asset.id, versions[1]!.id)), '404 not_found', 'restored already');
  t.is(await statusOf(rest.getAssetVersionContent(asset.id, 'ver_bad')), '400 invalid_argument');
  t.is(await statusOf(rest.listAssetVersions('as_bad')), '400 invalid_argument');
  t.is(await statusOf(rest.listAssetVersions('as_00000000000000000000000000')), '404 not_found');
});

test('trash: a delete is 404 at once and listed; restore brings it back; purge is 204 and final; purge=true needs workspace:admin', async (t) => {
  const workspace = freshWorkspace();
  const rest = await client(workspace);
  const asset = await rest.uploadAsset(file(0), { filename: 'x.txt', label: 'l' });
  await rest.replaceAsset(asset.id, file(1));
  await rest.deleteAsset(asset.id);
  t.is(await statusOf(rest.getAsset(asset.id)), '404 not_found');
  t.is((await fetch(asset.url)).status, 404, 'its url is 404 at once');
  const trash = await rest.listTrash();
  t.deepEqual(
    trash.assets.map((entry) => [entry.id, entry.name, entry.label]),
    [[asset.id, 'x.txt', 'l']],
  );
  const entry = trash.assets[0]!;
  t.is(Date.parse(entry.purgeAt) - Date.parse(entry.deletedAt), 7 * 24 * 60 * 60 * 1000);
  t.deepEqual(await rest.getWorkspaceUsage(), {
    assets: 0,
    bytes: 0,
    versionBytes: 0,
    trashBytes: file(0).length + file(1).length,
    routes: 0,
  });

  const back = await rest.restoreAsset(asset.id);
  t.deepEqual([back.id, back.name, back.label], [asset.id, 'x.txt', 'l']);
  t.is((await rest.listAssetVersions(asset.id)).versions.length, 1, 'with its version');
  t.deepEqual(await rest.getWorkspaceUsage(), {
    assets: 1,
    bytes: file(1).length,
    versionBytes: file(0).length,
    trashBytes: 0,
    routes: 0,
  });
  t.is(await statusOf(rest.restoreAsset(asset.id)), '404 not_found', 'not in the trash any more');

  await rest.deleteAsset(asset.id);
  await rest.purgeAsset(asset.id);
  t.is(await statusOf(rest.purgeAsset(asset.id)), '404 not_found');
  t.deepEqual((await rest.listTrash()).assets, []);

  const other = await rest.uploadAsset(file(2));
  const writer = await client(workspace, { scope: 'assets:read assets:write' });
  t.is(await statusOf(writer.deleteAsset(other.id, { purge: true })), '403 permission_denied');
  await rest.deleteAsset(other.id, { purge: true });
  t.deepEqual((await rest.listTrash()).assets, [], 'purge=true skips the trash');
  const bad = await fetch(`${stack.url}/v1/assets/${other.id}?purge=maybe`, { method: 'DELETE', headers: await stack.auth(workspace) });
  t.is(bad.status, 400);
  t.is(await statusOf(rest.listTrash({ pageToken: 'nope' })), '400 invalid_argument');
  t.is(await statusOf(rest.restoreAsset('bad')), '400 invalid_argument');
});

test('the policy carries keepVersions and retentionDays, validated; 0 days keeps nothing', async (t) => {
  const rest = await client(freshWorkspace());
  const policy = await rest.getWorkspacePolicy();
  t.deepEqual([policy.keepVersions, policy.retentionDays], [5, 7]);
  const set = await rest.setWorkspacePolicy({ keepVersions: 1, retentionDays: 0 });
  t.deepEqual([set.keepVersions, set.retentionDays], [1, 0]);
  for (const wrong of [{ keepVersions: 101 }, { retentionDays: 366 }, { keepVersions: 1.5 }, { retentionDays: -1 }, { keepVersions: 1e12 }])
    t.is(await statusOf(rest.setWorkspacePolicy(wrong)), '400 invalid_argument', JSON.stringify(wrong));
  const asset = await rest.uploadAsset(file(0));
  await rest.replaceAsset(asset.id, file(1));
  t.deepEqual((await rest.listAssetVersions(asset.id)).versions, [], 'retentionDays 0: no version kept');
  await rest.deleteAsset(asset.id);
  t.deepEqual((await rest.listTrash()).assets, [], 'and no trash');
});

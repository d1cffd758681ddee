// The console's versions and trash (issue 43): the detail panel lists an
// asset's versions and restores one; the Trash view restores and purges (the
// purge after a confirmation); the workspace view shows the usage split and
// edits the retention settings. Each state checked with axe.
import test from 'ava';
import { createHash } from 'node:crypto';
import { freshWorkspace } from '../rest/support/stack.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { assertAccessible, openConsole, rowOf, titleOf, uploadThroughApi } from './support/console.js';

useConsoleFixture(test);

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const text = (content: string) => new TextEncoder().encode(content);

async function api(workspace: string, method: string, path: string, body?: unknown): Promise<Response> {
  const headers = await stack.auth(workspace);
  return fetch(`${stack.url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
}

/** Replaces an asset's file through the REST API, as another client would. */
async function replaceThroughApi(workspace: string, id: string, name: string, bytes: Uint8Array): Promise<void> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(bytes)], { type: 'text/plain' }), name);
  const response = await fetch(`${stack.url}/v1/assets/${id}/replace`, {
    method: 'POST',
    headers: await stack.auth(workspace),
    body: form,
  });
  if (response.status !== 200) throw new Error(`replace answered ${response.status}: ${await response.text()}`);
}

test('the detail panel lists the versions newest first and restores one: its bytes current under the same id, the replaced file a version', async (t) => {
  const workspace = freshWorkspace('versions');
  const first = text('the first draft\n');
  const second = text('the second draft, longer\n');
  const third = text('the third draft, longest of all\n');
  const asset = await uploadThroughApi(stack, workspace, { name: 'draft-1.txt', bytes: first, type: 'text/plain' });
  await replaceThroughApi(workspace, asset.id, 'draft-2.txt', second);
  await replaceThroughApi(workspace, asset.id, 'draft-3.txt', third);
  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  try {
    await rowOf(page, 'draft-3.txt').getByRole('button', { name: 'draft-3.txt' }).click();
    const dialog = page.getByRole('dialog', { name: 'draft-3.txt' });
    const versions = dialog.getByRole('list', { name: 'Versions' });
    await versions.getByRole('listitem').nth(1).waitFor();
    const items = versions.getByRole('listitem');
    t.is(await items.count(), 2);
    t.regex((await items.nth(0).textContent()) ?? '', new RegExp(`draft-2\\.txt.*${sha256(second)}`), 'newest first');
    t.regex((await items.nth(1).textContent()) ?? '', new RegExp(`draft-1\\.txt.*${sha256(first)}`));
    await assertAccessible(t, page, 'the detail panel with versions');

    await items.nth(1).getByRole('button', { name: 'Restore' }).click();
    await page
      .getByRole('status')
      .getByText(/Version restored/)
      .waitFor();
    // The panel follows: named after the restored file, its versions read again.
    const restoredDialog = page.getByRole('dialog', { name: 'draft-1.txt' });
    await restoredDialog.waitFor();
    await restoredDialog.getByRole('list', { name: 'Versions' }).getByText('draft-3.txt', { exact: false }).waitFor();
    const restored = (await (await api(workspace, 'GET', `/v1/assets/${asset.id}`)).json()) as { id: string; sha256: string };
    t.is(restored.sha256, sha256(first), 'the restored bytes are current under the same id');
    const listed = (await (await api(workspace, 'GET', `/v1/assets/${asset.id}/versions`)).json()) as {
      versions: { name: string; sha256: string }[];
    };
    t.deepEqual(
      listed.versions.map((version) => version.sha256),
      [sha256(third), sha256(second)],
    );
    const shown = restoredDialog.getByRole('list', { name: 'Versions' }).getByRole('listitem');
    t.is(await shown.count(), 2);
    t.regex((await shown.nth(0).textContent()) ?? '', new RegExp(sha256(third)));
    await restoredDialog
      .getByRole('list', { name: 'History' })
      .getByText(/^Version restored/)
      .waitFor();
    await assertAccessible(t, page, 'the detail panel after a restore');
  } finally {
    await tab.close();
  }
});

test('a token without assets:write sees the versions with Restore disabled and says why', async (t) => {
  const workspace = freshWorkspace('versions-read');
  const asset = await uploadThroughApi(stack, workspace, { name: 'one.txt', bytes: text('one\n'), type: 'text/plain' });
  await replaceThroughApi(workspace, asset.id, 'two.txt', text('two\n'));
  const tab = await openConsole(browser, stack, workspace, { claims: { workspace, scope: 'assets:read' } });
  const { page } = tab;
  try {
    await rowOf(page, 'two.txt').getByRole('button', { name: 'two.txt' }).click();
    const versions = page.getByRole('dialog').getByRole('list', { name: 'Versions' });
    const restore = versions.getByRole('button', { name: 'Restore' });
    await restore.waitFor();
    t.true(await restore.isDisabled());
    t.truthy(await page.getByRole('dialog').locator('#versions-scope').textContent());
    await assertAccessible(t, page, 'versions without assets:write');
  } finally {
    await tab.close();
  }
});

test('the Trash view lists deleted assets; Restore brings one back with its id; Purge asks first, then removes it for good', async (t) => {
  const workspace = freshWorkspace('trash');
  const kept = await uploadThroughApi(stack, workspace, { name: 'keep-me.txt', bytes: text('keep\n'), type: 'text/plain' }, { label: 'k' });
  const doomed = await uploadThroughApi(stack, workspace, { name: 'doomed.txt', bytes: text('doomed\n'), type: 'text/plain' });
  for (const id of [kept.id, doomed.id]) t.is((await api(workspace, 'DELETE', `/v1/assets/${id}`)).status, 204);

  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  try {
    await page.getByRole('heading', { name: 'No assets yet' }).waitFor();
    await page.getByRole('link', { name: 'Trash' }).click();
    await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
    t.is(await page.getByRole('link', { name: 'Trash' }).getAttribute('aria-current'), 'page');
    t.is(await page.title(), 'Trash · Switchyard console');
    const table = page.getByRole('table', { name: 'Deleted assets' });
    const rowNamed = (name: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
    await rowNamed('keep-me.txt').waitFor();
    await rowNamed('doomed.txt').waitFor();
    t.regex((await rowNamed('doomed.txt').textContent()) ?? '', /text\/plain/);
    await assertAccessible(t, page, 'the trash view');

    await page.getByRole('button', { name: 'Restore keep-me.txt' }).click();
    await page
      .getByRole('status')
      .getByText(/Restored keep-me\.txt/)
      .waitFor();
    await rowNamed('keep-me.txt').waitFor({ state: 'detached' });
    const back = (await (await api(workspace, 'GET', `/v1/assets/${kept.id}`)).json()) as { id: string; name: string; label: string };
    t.deepEqual([back.id, back.name, back.label], [kept.id, 'keep-me.txt', 'k']);

    await page.getByRole('button', { name: 'Purge doomed.txt' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Purge doomed.txt?' });
    await confirm.waitFor();
    await assertAccessible(t, page, 'the purge confirmation');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    t.true(await rowNamed('doomed.txt').isVisible(), 'cancelled: still in the trash');
    const trashed = (await (await api(workspace, 'GET', '/v1/trash')).json()) as { assets: { id: string }[] };
    t.deepEqual(
      trashed.assets.map((entry) => entry.id),
      [doomed.id],
    );

    await page.getByRole('button', { name: 'Purge doomed.txt' }).click();
    await confirm.getByRole('button', { name: 'Purge' }).click();
    await page.getByRole('status').getByText('Purged doomed.txt for good.').waitFor();
    await page.getByText('The trash is empty.').waitFor();
    t.deepEqual(((await (await api(workspace, 'GET', '/v1/trash')).json()) as { assets: unknown[] }).assets, []);
    t.is((await api(workspace, 'POST', `/v1/trash/${doomed.id}:restore`)).status, 404, 'purged: nothing to restore');
    await assertAccessible(t, page, 'the empty trash');

    // The restored asset is listed in the assets view again.
    await page.getByRole('link', { name: 'Assets' }).click();
    await rowOf(page, titleOf(back)).waitFor();
  } finally {
    await tab.close();
  }
});

test('the Trash view follows changes made elsewhere: a delete joins it, a restore and a purge leave it', async (t) => {
  const workspace = freshWorkspace('trash-live');
  const first = await uploadThroughApi(stack, workspace, { name: 'first.txt', bytes: text('first\n'), type: 'text/plain' });
  const second = await uploadThroughApi(stack, workspace, { name: 'second.txt', bytes: text('second\n'), type: 'text/plain' });
  const tab = await openConsole(browser, stack, workspace, { path: 'trash' });
  const { page } = tab;
  try {
    await page.getByText('The trash is empty.').waitFor();
    const row = (name: string) => page.getByRole('table', { name: 'Deleted assets' }).getByRole('rowheader', { name, exact: true });
    for (const asset of [first, second]) t.is((await api(workspace, 'DELETE', `/v1/assets/${asset.id}`)).status, 204);
    await row('first.txt').waitFor();
    await row('second.txt').waitFor();
    t.is((await api(workspace, 'POST', `/v1/trash/${first.id}:restore`)).status, 200);
    await row('first.txt').waitFor({ state: 'detached' });
    t.is((await api(workspace, 'DELETE', `/v1/trash/${second.id}`)).status, 204);
    await page.getByText('The trash is empty.').waitFor();
    await assertAccessible(t, page, 'the trash view after changes made elsewhere');
  } finally {
    await tab.close();
  }
});

test('the Trash view without assets:write: Restore and Purge disabled, the reason shown', async (t) => {
  const workspace = freshWorkspace('trash-read');
  const asset = await uploadThroughApi(stack, workspace, { name: 'gone.txt', bytes: text('gone\n'), type: 'text/plain' });
  t.is((await api(workspace, 'DELETE', `/v1/assets/${asset.id}`)).status, 204);
  const tab = await openConsole(browser, stack, workspace, { claims: { workspace, scope: 'assets:read' }, path: 'trash' });
  const { page } = tab;
  try {
    const restore = page.getByRole('button', { name: 'Restore gone.txt' });
    await restore.waitFor();
    t.true(await restore.isDisabled());
    t.true(await page.getByRole('button', { name: 'Purge gone.txt' }).isDisabled());
    t.truthy(await page.locator('#trash-scope').textContent());
    await assertAccessible(t, page, 'the trash view without assets:write');
  } finally {
    await tab.close();
  }
});

test('the workspace view splits usage into current, versions and trash, and edits the retention (other policy fields kept)', async (t) => {
  const workspace = freshWorkspace('retention');
  t.is((await api(workspace, 'PUT', '/v1/workspace/policy', { stripImageMetadata: true })).status, 200);
  const asset = await uploadThroughApi(stack, workspace, { name: 'a.txt', bytes: new Uint8Array(1536).fill(97), type: 'text/plain' });
  await replaceThroughApi(workspace, asset.id, 'a.txt', new Uint8Array(512).fill(98));
  const deleted = await uploadThroughApi(stack, workspace, { name: 'b.txt', bytes: new Uint8Array(1024).fill(99), type: 'text/plain' });
  t.is((await api(workspace, 'DELETE', `/v1/assets/${deleted.id}`)).status, 204);

  const tab = await openConsole(browser, stack, workspace, { path: 'workspace' });
  const { page } = tab;
  try {
    const usage = page.getByRole('region', { name: 'Usage' });
    await usage.getByText('Versions', { exact: true }).waitFor();
    t.regex((await usage.textContent()) ?? '', /Assets1Stored512 BRoutes0Versions1\.5 KiBTrash1\.0 KiB/);

    const policy = page.getByRole('form', { name: 'Upload policy' });
    const keep = page.getByLabel('Versions kept per asset');
    const days = page.getByLabel('Retention (days)');
    await page.waitForFunction(() => (document.getElementById('policy-retention-days') as HTMLInputElement | null)?.value !== '');
    t.deepEqual([await keep.inputValue(), await days.inputValue()], ['5', '7'], 'the defaults');
    await assertAccessible(t, page, 'the workspace view with retention');

    await keep.fill('2');
    await days.fill('30');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('status').getByText('Policy saved.').waitFor();
    const saved: unknown = await (await api(workspace, 'GET', '/v1/workspace/policy')).json();
    t.like(saved, { keepVersions: 2, retentionDays: 30, stripImageMetadata: true });

    // Past the server's bound: its field error shows at the field.
    await days.fill('400');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await page
      .getByRole('alert')
      .getByText(/Saving the policy failed/)
      .waitFor();
    t.is(await days.getAttribute('aria-invalid'), 'true');
    t.like(await (await api(workspace, 'GET', '/v1/workspace/policy')).json(), { retentionDays: 30 });
    await assertAccessible(t, page, 'the retention field with an error');
  } finally {
    await tab.close();
  }
});

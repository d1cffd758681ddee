// Moving around the console (issue 29): deep links into views and to an
// asset's panel, back and forward, previews by type, and the rule that a
// request of a view you left is aborted (the listing, the route watch).
import test from 'ava';
import { readFile } from 'node:fs/promises';
import type { Route } from 'playwright-core';
import { freshWorkspace } from '../rest/support/stack.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { FIXTURES_DIR } from '../rest/support/fixtures.js';
import { assertAccessible, openConsole, rowOf, signIn, titleOf, uploadThroughApi } from './support/console.js';
import { eventually } from '../support/eventually.js';

useConsoleFixture(test);

test("deep links: a view and an asset's panel open from their url after signing in; back and forward move between views", async (t) => {
  const workspace = freshWorkspace('links');
  const asset = await uploadThroughApi(stack, workspace, { name: 'linked.txt', bytes: new TextEncoder().encode('hello\n') });
  const tab = await openConsole(browser, stack, workspace, { signIn: false, path: `assets?asset=${asset.id}` });
  const { page } = tab;
  try {
    await signIn(page, tab.token);
    await page.getByRole('dialog', { name: titleOf(asset) }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    // The url follows the closed panel in the app's next render, not in the same task as the dialog's removal.
    await page.waitForURL((url) => !url.search.includes('asset='), { timeout: 5_000 }).catch(() => undefined);
    t.false(page.url().includes('asset='), 'closing the panel leaves its url');

    await page.goto(`${stack.url}/console/routes`);
    await page.getByRole('heading', { name: 'Routes', level: 1 }).waitFor();
    t.is(await page.getByRole('link', { name: 'Routes' }).getAttribute('aria-current'), 'page');
    await page.getByRole('link', { name: 'Workspace' }).click();
    await page.getByRole('heading', { name: /^Workspace/, level: 1 }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Routes', level: 1 }).waitFor();
    await page.goForward();
    await page.getByRole('heading', { name: /^Workspace/, level: 1 }).waitFor();
    t.regex(page.url(), /\/console\/workspace$/);
  } finally {
    await tab.close();
  }
});

test('leaving a view aborts what it still has in flight: the asset listing and the route watch', async (t) => {
  const workspace = freshWorkspace('abort');
  const tab = await openConsole(browser, stack, workspace, { signIn: false });
  const { page } = tab;
  // Hold every listing request, so it is still in flight when the view is left.
  const held: Route[] = [];
  await page.route(/\/v1\/assets\?/, (route) => void held.push(route));
  try {
    await signIn(page, tab.token);
    await page.waitForFunction(() => document.querySelector('.table-foot')?.textContent === 'Loading assets…');
    // The page says it is loading as it sends; the route handler hears of the request a moment later.
    await eventually(() => held.length > 0, { timeout: 10_000, interval: 20, message: 'the listing request held' });
    t.is(held.length, 1);
    const listing = held[0]!.request();
    const listingAborted = page.waitForEvent('requestfailed', { predicate: (request) => request === listing });
    await page.getByRole('link', { name: 'Routes' }).click();
    await page.getByText(/^Live · revision/).waitFor();
    await listingAborted;
    t.regex(listing.failure()?.errorText ?? '', /ABORTED/, 'the listing was aborted');

    const watchClosed = page.waitForEvent('requestfailed', { predicate: (request) => request.url().includes('/v1/routing:watch') });
    await page.getByRole('link', { name: 'Workspace' }).click();
    await page.getByRole('heading', { name: /^Workspace/, level: 1 }).waitFor();
    t.regex((await watchClosed).failure()?.errorText ?? '', /ABORTED/, 'the watch stream was closed');
  } finally {
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await tab.close();
  }
});

test('previews by type: video and audio in native players, a PDF as an icon with a download link that names the file', async (t) => {
  const workspace = freshWorkspace('previews');
  const clip = await uploadThroughApi(stack, workspace, { name: 'clip.mp4', bytes: await readFile(FIXTURES_DIR + 'clip.mp4') });
  const sound = await uploadThroughApi(stack, workspace, { name: 'sound.mp3', bytes: await readFile(FIXTURES_DIR + 'sound.mp3') });
  const pdf = await uploadThroughApi(stack, workspace, { name: 'manual.pdf', bytes: await readFile(FIXTURES_DIR + 'document.pdf') });
  const secret = await uploadThroughApi(
    stack,
    workspace,
    { name: 'secret.pdf', bytes: await readFile(FIXTURES_DIR + 'document.pdf') },
    { visibility: 'private' },
  );
  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  try {
    const open = async (asset: { id: string; name?: string }) => {
      await rowOf(page, titleOf(asset))
        .getByRole('button', { name: titleOf(asset) })
        .click();
      const dialog = page.getByRole('dialog', { name: titleOf(asset) });
      await dialog.waitFor();
      return dialog;
    };
    let dialog = await open(clip);
    t.is(await dialog.locator('video[controls]').getAttribute('src'), clip.url);
    await page.keyboard.press('Escape');
    dialog = await open(sound);
    t.is(await dialog.locator('audio[controls]').getAttribute('src'), sound.url);
    await page.keyboard.press('Escape');
    dialog = await open(pdf);
    const link = dialog.getByRole('link', { name: `Download ${titleOf(pdf)}` });
    t.is(await link.getAttribute('href'), `${pdf.url}?download`);
    const response = await fetch(`${pdf.url}?download`);
    t.is(response.status, 200);
    t.regex(response.headers.get('content-disposition') ?? '', /^attachment;.*filename\*=UTF-8''manual\.pdf/);
    await assertAccessible(t, page, 'the detail panel of a PDF');
    await page.keyboard.press('Escape');

    dialog = await open(secret);
    const signedLink = (await dialog.getByRole('link', { name: `Download ${titleOf(secret)}` }).getAttribute('href'))!;
    t.regex(signedLink, /[?&]sig=.*&download$/, 'a private file downloads through a signed url');
    const signedResponse = await fetch(signedLink);
    t.is(signedResponse.status, 200);
    t.regex(signedResponse.headers.get('content-disposition') ?? '', /filename\*=UTF-8''secret\.pdf/);
  } finally {
    await tab.close();
  }
});

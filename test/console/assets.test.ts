// The console's assets view (issue 29): upload and see the thumbnail, the
// detail panel (preview, copy, sign and revoke links, replace, edit,
// delete), batch delete with shift-click ranges, filters and search, and a
// long list that pages as it scrolls while the DOM stays small.
import test from 'ava';
import { readFile } from 'node:fs/promises';
import { freshWorkspace } from '../rest/support/stack.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { FIXTURES_DIR } from '../rest/support/fixtures.js';
import { assertAccessible, focusedTagOnceOn, openConsole, rowOf, titleOf, uploadThroughApi } from './support/console.js';

useConsoleFixture(test);

interface ListedAsset {
  id: string;
  name?: string;
  url: string;
  label: string;
  type: string;
  visibility: string;
}

async function listAssets(workspace: string): Promise<ListedAsset[]> {
  const response = await fetch(`${stack.url}/v1/assets?pageSize=1000`, { headers: await stack.auth(workspace) });
  return ((await response.json()) as { assets: ListedAsset[] }).assets;
}

const fixtureFile = async (name: string, as = name) => ({ name: as, bytes: await readFile(FIXTURES_DIR + name) });

test('upload an image and a PDF with "Upload files": both listed, the image with a thumbnail through a transformation url, the PDF with an icon', async (t) => {
  const workspace = freshWorkspace('upload');
  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  try {
    await page.getByRole('heading', { name: 'No assets yet' }).waitFor();
    await page.getByLabel('Upload files').setInputFiles([FIXTURES_DIR + 'photo.jpg', FIXTURES_DIR + 'document.pdf']);
    const uploads = page.getByRole('list', { name: 'Uploads' });
    // A PDF's upload ends once its facts are read, by a parser worker that may have to load pdf.js
    // first (bounded by the probe pool's 30 s LOAD_MS): under CI's load that alone passed
    // Playwright's 30 s default twice (ci7, ci11). The wait catches a hang, it times nothing.
    await uploads.getByText('Uploaded').nth(1).waitFor({ timeout: 90_000 });
    t.is(await uploads.getByText('Uploaded').count(), 2);

    const assets = await listAssets(workspace);
    t.is(assets.length, 2);
    const photo = assets.find((asset) => asset.type === 'image/jpeg')!;
    const pdf = assets.find((asset) => asset.type === 'application/pdf')!;
    await rowOf(page, titleOf(photo)).waitFor();
    await rowOf(page, titleOf(pdf)).waitFor();

    const thumbnail = rowOf(page, titleOf(photo)).locator('img');
    await page.waitForFunction((id) => {
      const img = document.querySelector<HTMLImageElement>(`[data-asset-id="${id}"] img`);
      return img !== null && img.complete && img.naturalWidth > 0;
    }, photo.id);
    const src = (await thumbnail.getAttribute('src'))!;
    t.true(src.startsWith(photo.url), 'the thumbnail is the file url…');
    t.regex(src, /[?&]w=96&h=96&fit=cover&format=auto$/, '…with transformation parameters');
    t.is(await rowOf(page, titleOf(pdf)).locator('img').count(), 0, 'no image for a PDF, an icon');
    t.is(await rowOf(page, titleOf(pdf)).locator('svg').count(), 1);
    await assertAccessible(t, page, 'the assets view with uploads');
  } finally {
    await tab.close();
  }
});

test('the detail panel: preview, Copy URL, Sign link (opens in a fresh context), Revoke links (then 403), Replace file (same id, new url), edit, Delete after a confirmation; Escape closes and focus returns', async (t) => {
  const workspace = freshWorkspace('detail');
  // Private: its plain url answers 403, so the preview and the shared link go through signed urls.
  const asset = await uploadThroughApi(stack, workspace, await fixtureFile('photo.jpg', 'holiday.jpg'), {
    label: 'trip',
    visibility: 'private',
  });
  let title = titleOf(asset);
  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  try {
    // A private image's thumbnail is a short signed url, with the transform signed in it.
    await page.waitForFunction((id) => {
      const img = document.querySelector<HTMLImageElement>(`[data-asset-id="${id}"] img`);
      return img !== null && img.complete && img.naturalWidth > 0;
    }, asset.id);
    t.regex((await rowOf(page, title).locator('img').getAttribute('src'))!, /[?&]w=96&h=96.*&sig=/);

    await rowOf(page, title).getByRole('button', { name: title }).click();
    // The panel is named after the asset (a replace may rename it: the new file's name).
    const dialog = page.getByRole('dialog');
    await page.getByRole('dialog', { name: title }).waitFor();
    await dialog.getByRole('img', { name: `Preview of ${title}` }).waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('dialog img.preview');
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    t.true(await dialog.getByText(asset.id).first().isVisible(), 'every field, the id among them');
    t.true(await dialog.getByText('image/jpeg').first().isVisible());
    await assertAccessible(t, page, 'the detail panel');

    await dialog.getByRole('button', { name: 'Copy URL' }).click();
    await page.getByRole('status').getByText('URL copied.').waitFor();
    t.is(await page.evaluate(() => navigator.clipboard.readText()), asset.url);
    t.is((await fetch(asset.url)).status, 403, 'the plain url of a private asset is refused');

    await dialog.getByLabel('Link expires in').selectOption({ label: '5 minutes' });
    await dialog.getByRole('button', { name: 'Sign link' }).click();
    const signedField = dialog.getByRole('textbox', { name: 'Signed URL' });
    await signedField.waitFor();
    const signed = await signedField.inputValue();
    t.true(signed.startsWith(asset.url.split('?')[0]!));
    await dialog.getByRole('button', { name: 'Copy signed URL' }).click();
    await page.getByRole('status').getByText('Signed URL copied.').waitFor();
    t.is(await page.evaluate(() => navigator.clipboard.readText()), signed);
    const fresh = await browser.newContext();
    try {
      const opened = await (await fresh.newPage()).goto(signed);
      t.is(opened?.status(), 200, 'the signed link opens with no token, in a fresh context');
    } finally {
      await fresh.close();
    }
    await dialog.getByRole('button', { name: 'Revoke links' }).click();
    await page.getByText('Every link signed so far has been revoked.').waitFor();
    t.is((await fetch(signed)).status, 403, 'a revoked link is refused');

    const before = await dialog.getByRole('textbox', { name: 'URL', exact: true }).inputValue();
    await dialog.getByLabel('Replace file').setInputFiles(FIXTURES_DIR + 'image.png');
    await dialog.getByText(/Replaced: the new url is above/).waitFor();
    const after = await dialog.getByRole('textbox', { name: 'URL', exact: true }).inputValue();
    t.not(after, before, 'a new url');
    const replaced = (await (
      await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: await stack.auth(workspace) })
    ).json()) as ListedAsset;
    t.is(replaced.url, after);
    t.is(replaced.type, 'image/png', 'the same id holds the new file');
    title = titleOf(replaced);
    await page.getByRole('dialog', { name: title }).waitFor();

    await dialog.getByLabel('Label', { exact: true }).fill('hero');
    await dialog.getByLabel('Visibility', { exact: true }).selectOption('public');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Changes saved.').waitFor();
    const edited = (await (
      await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: await stack.auth(workspace) })
    ).json()) as ListedAsset;
    t.like(edited, { label: 'hero', visibility: 'public' });

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction((name) => document.activeElement?.textContent === name, title);
    t.true(await rowOf(page, title).getByText('hero').isVisible(), 'the list shows the new label');
    t.true(await rowOf(page, title).getByText('public').isVisible());

    await rowOf(page, title).getByRole('button', { name: title }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog', { name: `Delete ${title}?` });
    await confirm.waitFor();
    await assertAccessible(t, page, 'the delete confirmation');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.textContent === 'Delete', undefined);
    t.true(await dialog.isVisible(), 'Escape closed only the confirmation');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'No assets yet' }).waitFor();
    t.is((await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: await stack.auth(workspace) })).status, 404);
    t.is(await focusedTagOnceOn(page, 'H1'), 'H1', 'focus goes to the heading when its opener is gone');
  } finally {
    await tab.close();
  }
});

test('edit the name in the detail panel', async (t) => {
  const workspace = freshWorkspace('rename');
  const asset = await uploadThroughApi(stack, workspace, await fixtureFile('notes.txt', 'draft.txt'));
  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  try {
    await rowOf(page, titleOf(asset))
      .getByRole('button', { name: titleOf(asset) })
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('final notes.txt');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Changes saved.').waitFor();
    await dialog.getByRole('heading', { name: 'final notes.txt' }).waitFor();
    await page.keyboard.press('Escape');
    await rowOf(page, 'final notes.txt').waitFor();
    const renamed = (await (
      await fetch(`${stack.url}/v1/assets/${asset.id}`, { headers: await stack.auth(workspace) })
    ).json()) as ListedAsset;
    t.is(renamed.name, 'final notes.txt');
  } finally {
    await tab.close();
  }
});

test('select several (a click, then shift-click for the range) and "Delete selected": per-id results shown, the rows gone', async (t) => {
  const workspace = freshWorkspace('batch');
  const created = [];
  for (let n = 0; n < 6; n++)
    created.push(await uploadThroughApi(stack, workspace, { name: `batch-${n}.txt`, bytes: new TextEncoder().encode(`file ${n}\n`) }));
  // Newest first: batch-5 … batch-0.
  const shown = [...created].reverse();
  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  try {
    await rowOf(page, titleOf(shown[0]!)).waitFor();
    await page.getByRole('checkbox', { name: titleOf(shown[1]!), exact: true }).click();
    await page.getByRole('checkbox', { name: titleOf(shown[4]!), exact: true }).click({ modifiers: ['Shift'] });
    for (const [index, asset] of shown.entries())
      t.is(await page.getByRole('checkbox', { name: titleOf(asset), exact: true }).isChecked(), index >= 1 && index <= 4, `row ${index}`);

    await page.getByRole('button', { name: 'Delete selected (4)' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete 4 assets?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    const results = page.getByRole('dialog', { name: 'Deleted 4 of 4' });
    await results.waitFor();
    for (const asset of shown.slice(1, 5))
      t.true(await results.getByRole('row').filter({ hasText: asset.id }).getByText('Deleted').isVisible(), asset.id);
    await assertAccessible(t, page, 'the batch results');
    await results.getByRole('button', { name: 'Done' }).click();
    await results.waitFor({ state: 'detached' });
    t.is(await page.locator('[data-asset-id]').count(), 2);
    t.deepEqual(
      (await listAssets(workspace)).map((asset) => asset.id),
      [shown[0]!.id, shown[5]!.id],
    );
  } finally {
    await tab.close();
  }
});

test('filters: type family, label, name search; an empty state when nothing matches', async (t) => {
  const workspace = freshWorkspace('filters');
  await uploadThroughApi(stack, workspace, await fixtureFile('photo.jpg'), { label: 'red' });
  await uploadThroughApi(stack, workspace, await fixtureFile('document.pdf', 'report.pdf'), { label: 'blue' });
  await uploadThroughApi(stack, workspace, await fixtureFile('notes.txt', 'notes.txt'), { label: 'blue' });
  await uploadThroughApi(stack, workspace, await fixtureFile('sound.mp3'));
  await uploadThroughApi(stack, workspace, await fixtureFile('data.json'));
  const all = await listAssets(workspace);
  const byType = (type: string) => all.filter((asset) => asset.type === type).map(titleOf);
  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  // Waits until the list shows exactly these assets (in any order), the filters' requests settled.
  const shows = async (expected: string[], what: string) => {
    const want = [...expected].sort();
    await page
      .waitForFunction(
        (names) =>
          JSON.stringify([...document.querySelectorAll('[data-asset-id] .name-button')].map((button) => button.textContent).sort()) ===
          JSON.stringify(names),
        want,
        { timeout: 10_000 },
      )
      .catch(() => undefined);
    t.deepEqual((await page.locator('[data-asset-id] .name-button').allTextContents()).sort(), want, what);
  };
  try {
    await shows(all.map(titleOf), 'everything at first');
    await page.getByLabel('Filter by type').selectOption({ label: 'Images' });
    await shows(byType('image/jpeg'), 'images');
    t.regex(page.url(), /[?&]type=image/, 'the filter is in the url');
    await page.getByLabel('Filter by type').selectOption({ label: 'Documents' });
    await shows([...byType('application/pdf'), ...byType('text/plain')], 'documents (PDF and text)');
    await page.getByLabel('Filter by type').selectOption({ label: 'Other' });
    await shows(byType('application/json'), 'other');
    await page.getByLabel('Filter by type').selectOption({ label: 'Audio' });
    await shows(byType('audio/mpeg'), 'audio');
    await page.getByLabel('Filter by type').selectOption({ label: 'All types' });
    await page.getByLabel('Filter by label').fill('blue');
    await shows([...byType('application/pdf'), ...byType('text/plain')], 'label blue');
    await page.getByLabel('Search by name').fill('REP');
    await shows(['report.pdf'], 'case-insensitive name prefix, with the label filter');
    await page.getByLabel('Search by name').fill('zzz');
    await page.getByRole('heading', { name: 'No assets match these filters' }).waitFor();
    await assertAccessible(t, page, 'the no-match empty state');
    await page.getByRole('button', { name: 'Clear filters' }).first().click();
    await shows(all.map(titleOf), 'everything again');
  } finally {
    await tab.close();
  }
});

test('1,000 assets: pages load as the list scrolls, every asset is reached, and the DOM stays small', async (t) => {
  // Seeding a thousand uploads takes a while on a busy machine (npm test runs files side by side).
  t.timeout(5 * 60_000);
  const workspace = freshWorkspace('scroll');
  const total = 1_000;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < total) {
        const n = next++;
        await uploadThroughApi(stack, workspace, {
          name: `item-${String(n).padStart(4, '0')}.txt`,
          bytes: new TextEncoder().encode(`${n}\n`),
        });
      }
    }),
  );
  const oldest = (await listAssets(workspace)).at(-1)!;
  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  try {
    await page.locator('[data-asset-id]').first().waitFor();
    const scroller = page.locator('.table-scroll');
    // Scroll to the end until the footer says every asset is loaded (each scroll to the end asks for the next page).
    await page.waitForFunction(
      (count) => {
        const element = document.querySelector('.table-scroll')!;
        element.scrollTo(0, element.scrollHeight);
        return new RegExp(`^${count} assets`).test(document.querySelector('.table-foot')?.textContent ?? '');
      },
      total,
      { polling: 50, timeout: 60_000 },
    );
    await scroller.evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await rowOf(page, titleOf(oldest)).waitFor();
    const rows = await page.locator('[data-asset-id]').count();
    t.true(rows < 60, `only the rows in view are in the DOM (${rows})`);
    const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
    t.true(nodes < 1500, `DOM nodes ${nodes}`);
  } finally {
    await tab.close();
  }
});

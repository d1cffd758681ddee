// The console with the keyboard alone (issue 29): sign in, upload, sign a
// link, delete; focus is visible on every control reached, Escape closes
// dialogs, and focus returns to what opened them.
import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { freshWorkspace } from '../rest/support/stack.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { FIXTURES_DIR } from '../rest/support/fixtures.js';
import { openConsole } from './support/console.js';

useConsoleFixture(test);

interface Focused {
  tag: string;
  name: string;
  visible: boolean;
}

/** What has focus: its tag, its accessible-ish name, and whether a focus indicator is drawn. */
async function focused(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return { tag: 'BODY', name: '', visible: false };
    const labelled = element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : undefined;
    const name = (element.getAttribute('aria-label') ?? labelled ?? element.textContent ?? '').trim();
    // (No named functions in here: tsx would wrap them in a helper the page does not have.)
    let ring = false;
    // A visually hidden file input's own outline cannot be seen: its label (the next element) must show it.
    for (const candidate of element.classList.contains('visually-hidden') ? [element.nextElementSibling] : [element]) {
      if (
        candidate &&
        Number.parseFloat(getComputedStyle(candidate).outlineWidth) > 0 &&
        getComputedStyle(candidate).outlineStyle !== 'none'
      )
        ring = true;
    }
    const visible = element.matches(':focus-visible') && ring;
    return { tag: element.tagName, name, visible };
  });
}

/** Presses Tab (or Shift+Tab) until the focused control has this name; every control passed shows its focus. */
async function tabTo(t: ExecutionContext, page: Page, name: string | RegExp, backwards = false): Promise<void> {
  for (let step = 0; step < 80; step++) {
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    const now = await focused(page);
    if (now.tag !== 'BODY' && now.tag !== 'DIALOG') t.true(now.visible, `focus is visible on ${now.tag} "${now.name}"`);
    if (typeof name === 'string' ? now.name === name : name.test(now.name)) return;
  }
  throw new Error(`no control named ${String(name)} reached with the keyboard`);
}

test('keyboard only: sign in, upload, sign a link, delete; focus visible and returned after each dialog', async (t) => {
  const workspace = freshWorkspace('keys');
  const tab = await openConsole(browser, stack, workspace, { signIn: false });
  const { page } = tab;
  // Listening for a file chooser turns on Chromium's interception of it, a message of its own; begun
  // beside the key press (as Promise.all does) it can lose the race and the chooser is never reported
  // (puppeteer/puppeteer#6040), so it begins here, long before the key.
  const chooser = page.waitForEvent('filechooser', { timeout: 0 });
  chooser.catch(() => undefined); // rejected only when the page closes after a failure met earlier
  try {
    await tabTo(t, page, 'Token');
    await page.keyboard.type(tab.token);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    await tabTo(t, page, 'Upload files');
    await page.keyboard.press('Space');
    const opened = await Promise.race([chooser, page.waitForTimeout(30_000).then(() => undefined)]);
    if (!opened) throw new Error('Space on "Upload files" opened no file chooser in 30 s');
    await opened.setFiles(FIXTURES_DIR + 'photo.jpg');
    await page.getByRole('list', { name: 'Uploads' }).getByText('Uploaded').waitFor();
    const listed = (await (await fetch(`${stack.url}/v1/assets`, { headers: await stack.auth(workspace) })).json()) as {
      assets: { id: string; name?: string }[];
    };
    const title = listed.assets[0]!.name || listed.assets[0]!.id;
    await page.locator('[data-asset-id]').first().waitFor();

    // From the upload panel back to the row's name, then open the panel with Enter.
    await tabTo(t, page, title, true);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.waitFor();
    await tabTo(t, page, 'Sign link');
    await page.keyboard.press('Enter');
    await dialog.getByRole('textbox', { name: 'Signed URL' }).waitFor();
    t.is((await fetch(await dialog.getByRole('textbox', { name: 'Signed URL' }).inputValue())).status, 200);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction((name) => document.activeElement?.textContent === name, title);
    t.true((await focused(page)).visible, 'focus is back on the asset, visibly');

    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await tabTo(t, page, 'Delete');
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('alertdialog', { name: `Delete ${title}?` });
    await confirm.waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Cancel');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.textContent === 'Delete');
    t.true((await focused(page)).visible, 'focus is back on Delete, visibly');
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await tabTo(t, page, 'Delete');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'No assets yet' }).waitFor();
    t.is((await fetch(`${stack.url}/v1/assets/${listed.assets[0]!.id}`, { headers: await stack.auth(workspace) })).status, 404);
  } finally {
    await tab.close();
  }
});

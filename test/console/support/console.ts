// Browser tests of the console (issue 29): Debian's Chromium through
// playwright-core against a real stack (test/rest/support/stack.ts), the
// console as the gateway serves it. Elements are found by their accessible
// names, as a person using assistive technology would find them.
import type { ExecutionContext } from 'ava';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import type { Stack } from '../../rest/support/stack.js';
import type { Claims } from '../../rest/support/tokens.js';

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface ConsoleTab {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every url the tab requested, for the check that none carries the token. */
  readonly requestUrls: string[];
  readonly token: string;
  close(): Promise<void>;
}

/** A fresh browser context on /console/ (or `path` under it), signed in with a token for `workspace` unless `signIn` is false. */
export async function openConsole(
  browser: Browser,
  stack: Stack,
  workspace: string,
  options: { claims?: Claims; signIn?: boolean; path?: string; token?: string } = {},
): Promise<ConsoleTab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  const page = await context.newPage();
  const requestUrls: string[] = [];
  page.on('request', (request) => requestUrls.push(request.url()));
  const token = options.token ?? (await stack.token(workspace, options.claims));
  await page.goto(`${stack.url}/console/${options.path ?? ''}`);
  if (options.signIn !== false) await signIn(page, token);
  return { context, page, requestUrls, token, close: () => context.close() };
}

export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** No axe violation of WCAG 2.0/2.1 A and AA in the page as it is now. */
export async function assertAccessible(t: ExecutionContext, page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const found = results.violations.map(
    (violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
  t.deepEqual(found, [], `axe on ${where}`);
}

/** Uploads through the REST API (multipart), as another client would; returns the asset. */
export async function uploadThroughApi(
  stack: Stack,
  workspace: string,
  file: { name: string; bytes: Uint8Array; type?: string },
  fields: Record<string, string> = {},
): Promise<{ id: string; url: string; name?: string; label: string; type: string; visibility: string }> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  form.set('file', new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }), file.name);
  const response = await fetch(`${stack.url}/v1/assets/upload`, { method: 'POST', headers: await stack.auth(workspace), body: form });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { id: string; url: string; name?: string; label: string; type: string; visibility: string };
}

/** What the console calls an asset: its name, or its id when it has none. */
export function titleOf(asset: { id: string; name?: string }): string {
  return asset.name || asset.id;
}

/** The asset's row in the table (found through its checkbox, which is named after it). */
export function rowOf(page: Page, title: string) {
  return page.getByRole('row').filter({ has: page.getByRole('checkbox', { name: title, exact: true }) });
}

/**
 * The tag of the focused element once focus is on a `tag`: the console moves focus in the frame
 * after the render that closes a dialog, so it settles after the dialog is gone. Answers what
 * holds focus when it never gets there within `timeout`, for the test's assertion to show.
 */
export async function focusedTagOnceOn(page: Page, tag: string, timeout = 20_000): Promise<string | undefined> {
  await page.waitForFunction((wanted) => document.activeElement?.tagName === wanted, tag, { timeout }).catch(() => undefined);
  return page.evaluate(() => document.activeElement?.tagName);
}

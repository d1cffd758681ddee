import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { result, type BenchResult } from '../harness/results.js';
import { createRouteOver } from '../harness/route-changes.js';
import { createWorkspace, startOurs } from '../harness/servers.js';
import { median, percentile } from '../harness/stats.js';

/** Debian's Chromium, with the flags this machine needs (no background traffic to a closed network). */
const CHROMIUM = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
};
const ROUNDS = 5;
const FIRST_ASSETS = 1_000;
const ALL_ASSETS = 10_000;
const SEED_CONCURRENCY = 8;
const ROUTE_CHANGES = 20;

/**
 * The console's three budgets (issue 29), from headless Chromium against
 * `npm start` with seeded assets:
 * - console-initial-js-kib: gzipped JavaScript that the sign-in and assets
 *   views load. Its reference is the budget itself (80 KiB): a size has no
 *   server to race.
 * - console-assets-first-render-ms: from "Sign in" to the first 50 rows
 *   shown, with 1,000 assets. Baseline: the same browser fetching the same
 *   page of 50 and writing 50 plain table rows, the least a page can do.
 * - console-dom-nodes-10k: DOM nodes after scrolling to the end of 10,000
 *   assets. Baseline: the same view's nodes with its first page loaded, so a
 *   ratio near 1 says the DOM does not grow with the list (budget: 3,000).
 * - console-route-change-shown-p99: from just before a `POST /v1/routing` to
 *   its row shown in an open routes view (docs/console.md: "within a
 *   second"; test/console/routes.test.ts checks it only as an outcome), 20
 *   creates one after another. Baseline: the POST's own round trip.
 */
export async function consoleBench(): Promise<BenchResult[]> {
  const ws = await createWorkspace('console');
  const server = await startOurs(ws);
  const browser = await chromium.launch(CHROMIUM);
  try {
    await seed(server.url, ws.token, 0, FIRST_ASSETS);
    const jsKib = await initialJavaScriptKib(browser, server.url, ws.token);
    const ours: number[] = [];
    const bare: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      ours.push(await firstRenderMs(browser, server.url, ws.token));
      bare.push(await bareRenderMs(browser, server.url, ws.token));
    }
    const firstPageNodes = await domNodes(browser, server.url, ws.token, FIRST_ASSETS, false);
    await seed(server.url, ws.token, FIRST_ASSETS, ALL_ASSETS);
    const scrolledNodes = await domNodes(browser, server.url, ws.token, ALL_ASSETS, true);
    const routes = await routeChangesShown(browser, server.url, ws.token);
    return [
      result('console-initial-js-kib', jsKib, 80, 'KiB', 'lower', { goal: 'ours <= 80 KiB (ratio <= 1)' }),
      result('console-assets-first-render-ms', median(ours), median(bare), 'ms', 'lower', {
        goal: 'ours < 1000 ms',
        notes: { assets: FIRST_ASSETS, rounds: ROUNDS, ours, bare },
      }),
      result('console-dom-nodes-10k', scrolledNodes, firstPageNodes, 'nodes', 'lower', {
        goal: 'ours < 3000 nodes',
        notes: { assets: ALL_ASSETS },
      }),
      result('console-route-change-shown-p99', percentile(routes.shown, 0.99), percentile(routes.roundTrip, 0.99), 'ms', 'lower', {
        goal: 'ours < 1000 ms',
        notes: { changes: ROUTE_CHANGES, shownMedian: median(routes.shown), roundTripMedian: median(routes.roundTrip) },
      }),
    ];
  } finally {
    await browser.close();
    await server.stop();
    await ws.cleanup();
  }
}

/** Uploads small text files named asset-<n>.txt, n from `from` to `to` - 1, oldest first. */
async function seed(url: string, token: string, from: number, to: number): Promise<void> {
  let next = from;
  const worker = async (): Promise<void> => {
    while (next < to) {
      const n = next++;
      const form = new FormData();
      form.set('label', n % 2 === 0 ? 'even' : 'odd');
      form.set('file', new Blob([`asset ${n}\n`], { type: 'text/plain' }), `asset-${String(n).padStart(5, '0')}.txt`);
      const response = await fetch(`${url}/v1/assets/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      if (response.status !== 201) throw new Error(`seed: ${response.status} ${await response.text()}`);
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
}

async function signedInPage(
  browser: Browser,
  url: string,
  token: string,
): Promise<{ page: Page; signIn: () => Promise<void>; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${url}/console/`);
  await page.getByLabel('Token').fill(token);
  return { page, signIn: () => page.getByRole('button', { name: 'Sign in' }).click(), close: () => context.close() };
}

/** Waits until the assets table shows rows and says at least `loaded` assets are loaded. */
async function rowsShown(page: Page, loaded: number): Promise<void> {
  await page.waitForFunction((count) => {
    if (document.querySelectorAll('[data-asset-id]').length === 0) return false;
    const foot = document.querySelector('.table-foot')?.textContent ?? '';
    return Number(/(\d+) assets?/.exec(foot)?.[1] ?? 0) >= count;
  }, loaded);
}

async function initialJavaScriptKib(browser: Browser, url: string, token: string): Promise<number> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const scripts = new Map<string, Promise<Buffer>>();
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') scripts.set(response.url(), response.body());
  });
  await page.goto(`${url}/console/`);
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await rowsShown(page, 50);
  let bytes = 0;
  for (const body of scripts.values()) bytes += gzipSync(await body, { level: 9 }).length;
  await context.close();
  return bytes / 1024;
}

async function firstRenderMs(browser: Browser, url: string, token: string): Promise<number> {
  const { page, signIn, close } = await signedInPage(browser, url, token);
  const started = performance.now();
  await signIn();
  await rowsShown(page, 50);
  const elapsed = performance.now() - started;
  await close();
  return elapsed;
}

/** The same page of 50 fetched and drawn as plain rows by a script in a page of the same origin. */
async function bareRenderMs(browser: Browser, url: string, token: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${url}/healthz`);
  const elapsed = await page.evaluate(async (bearer) => {
    const started = performance.now();
    const response = await fetch('/v1/assets?pageSize=50', { headers: { authorization: `Bearer ${bearer}` } });
    const { assets } = (await response.json()) as {
      assets: { id: string; name?: string; type: string; size: number; uploadedAt: string }[];
    };
    const table = document.createElement('table');
    for (const asset of assets) {
      const row = table.insertRow();
      for (const value of [asset.name ?? asset.id, asset.type, String(asset.size), asset.uploadedAt]) row.insertCell().textContent = value;
    }
    document.body.replaceChildren(table);
    await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)));
    return performance.now() - started;
  }, token);
  await context.close();
  return elapsed;
}

/** DOM nodes of the assets view: after its first page, or after scrolling until all `total` assets are loaded. */
async function domNodes(browser: Browser, url: string, token: string, total: number, scrollToEnd: boolean): Promise<number> {
  const { page, signIn, close } = await signedInPage(browser, url, token);
  await signIn();
  await rowsShown(page, 50);
  if (scrollToEnd) {
    const scroller = page.locator('.table-scroll');
    for (let attempt = 0; attempt < 2_000; attempt++) {
      await scroller.evaluate((element) => element.scrollTo(0, element.scrollHeight));
      const foot = (await page.locator('.table-foot').textContent()) ?? '';
      if (new RegExp(`^${total} assets`).test(foot)) break;
      await page.waitForTimeout(20);
    }
    await page.getByText(`${total} assets`, { exact: false }).waitFor();
    await page.getByRole('button', { name: 'asset-00000.txt' }).waitFor();
  }
  const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  await close();
  return nodes;
}

/** Routes created over REST one after another, each timed until its row is shown in an open routes view, and the POST alone. */
async function routeChangesShown(browser: Browser, url: string, token: string): Promise<{ shown: number[]; roundTrip: number[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    await page.goto(`${url}/console/routes`);
    await page.getByLabel('Token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/^Live · revision/).waitFor();
    const shown: number[] = [];
    const roundTrip: number[] = [];
    for (let change = 0; change < ROUTE_CHANGES; change++) {
      const path = `/console-bench/${change}`;
      const started = performance.now();
      await createRouteOver(url, token, path);
      roundTrip.push(performance.now() - started);
      await page.getByRole('cell', { name: path, exact: true }).waitFor();
      shown.push(performance.now() - started);
    }
    return { shown, roundTrip };
  } finally {
    await context.close();
  }
}

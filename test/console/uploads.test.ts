// Uploads in the console (issue 29): over tus, a 40 MiB file paused,
// resumed, and resumed again after a page reload; the workspace policy
// shown and checked before sending; the server's 413 and 415 shown on the
// file that caused them.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';
import { FIXTURES_DIR } from '../rest/support/fixtures.js';
import { assertAccessible, launchChromium, openConsole } from './support/console.js';

let stack: Stack;
let browser: Browser;
let dir: string;
test.before(async () => {
  [stack, browser, dir] = await Promise.all([startStack(), launchChromium(), mkdtemp(join(tmpdir(), 'console-uploads-'))]);
});
test.after.always(async () => {
  await browser?.close();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function setPolicy(workspace: string, policy: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${stack.url}/v1/workspace/policy`, {
    method: 'PUT',
    headers: { ...(await stack.auth(workspace)), 'content-type': 'application/json' },
    body: JSON.stringify(policy),
  });
  if (response.status !== 200) throw new Error(`policy: ${response.status} ${await response.text()}`);
}

/** The percentage an upload's item shows (its progress bar). */
async function percentOf(page: Page, name: string): Promise<number> {
  return Number(await page.getByRole('progressbar', { name: `Progress of ${name}` }).getAttribute('value'));
}

test('a 40 MiB file over tus: paused, resumed, paused, and resumed again after a reload; the asset is the whole file', async (t) => {
  t.timeout(4 * 60_000);
  const workspace = freshWorkspace('resume');
  const bytes = randomBytes(40 * 1024 * 1024);
  const file = join(dir, 'big.bin');
  await writeFile(file, bytes);
  const tab = await openConsole(browser, stack, workspace);
  const { page, context } = tab;
  // A slow uplink, so there is time to pause in the middle (about 8 s for the file).
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: 5 * 1024 * 1024,
  });
  try {
    await page.getByLabel('Upload files').setInputFiles(file);
    const item = page.getByRole('listitem').filter({ hasText: 'big.bin' });
    await item.getByText(/MiB\/s/).waitFor();
    t.true(await item.getByText(/left$/).isVisible(), 'time left is shown');
    await page.waitForFunction(() => Number(document.querySelector('progress')?.getAttribute('value')) >= 5);
    await page.getByRole('button', { name: 'Pause big.bin' }).click();
    await item.getByText('Paused').waitFor();
    const paused = await percentOf(page, 'big.bin');
    t.true(paused > 0 && paused < 100, `paused at ${paused}%`);

    await page.getByRole('button', { name: 'Resume big.bin' }).click();
    await item.getByText('Uploading').waitFor();
    await page.waitForFunction((before) => Number(document.querySelector('progress')?.getAttribute('value')) >= before + 10, paused);
    await page.getByRole('button', { name: 'Pause big.bin' }).click();
    await item.getByText('Paused').waitFor();
    const pausedAgain = await percentOf(page, 'big.bin');
    t.true(pausedAgain > paused && pausedAgain < 100, `paused again at ${pausedAgain}%`);
    await assertAccessible(t, page, 'the assets view with a paused upload');

    // After a reload the stored upload is offered; choosing the file again continues from the server's offset.
    await page.reload();
    const stored = page.getByRole('region', { name: 'Unfinished uploads' });
    await stored.getByText('big.bin', { exact: true }).waitFor();
    await assertAccessible(t, page, 'the unfinished uploads after a reload');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await stored.getByLabel('Resume big.bin').setInputFiles(file);
    const resumed = page.getByRole('list', { name: 'Uploads' }).getByRole('listitem').filter({ hasText: 'big.bin' });
    await resumed.getByText('Uploaded').waitFor({ timeout: 60_000 });
    t.true(await resumed.getByText(/resumed at \d/).isVisible(), 'it continued where it stopped');

    const listed = (await (await fetch(`${stack.url}/v1/assets`, { headers: await stack.auth(workspace) })).json()) as {
      assets: { size: number; sha256: string; name?: string }[];
    };
    t.is(listed.assets.length, 1, 'one asset, not two');
    t.is(listed.assets[0]!.size, bytes.length);
    t.is(listed.assets[0]!.sha256, createHash('sha256').update(bytes).digest('hex'));
    const local = await page.evaluate(() => JSON.stringify(Object.entries(localStorage)));
    t.false(local.includes(tab.token), 'tus-js-client stored no token');
    t.false(local.includes('big.bin'), 'and forgot the finished upload');
  } finally {
    await tab.close();
  }
});

test("the server's 413 and 415 are shown on the files that caused them", async (t) => {
  const workspace = freshWorkspace('refusals');
  await setPolicy(workspace, { maxUploadBytes: 2048, allowedTypes: ['image/*'] });
  const large = join(dir, 'large.png');
  await writeFile(large, randomBytes(8192));
  const fake = join(dir, 'fake.png');
  await writeFile(fake, 'plain text pretending to be a picture\n');
  // Without workspace:admin the console cannot read the policy, so only the server can refuse.
  const tab = await openConsole(browser, stack, workspace, { claims: { workspace, scope: 'assets:read assets:write' } });
  const { page } = tab;
  try {
    await page.getByLabel('Upload files').setInputFiles([large, fake, FIXTURES_DIR + 'photo.jpg']);
    const uploads = page.getByRole('list', { name: 'Uploads' });
    const itemOf = (name: string) => uploads.getByRole('listitem').filter({ hasText: name });
    await itemOf('large.png')
      .getByText(/Too large for this workspace: .*\[413\]/)
      .waitFor();
    await itemOf('fake.png')
      .getByText(/Type not allowed in this workspace: .*\[415\]/)
      .waitFor();
    await itemOf('photo.jpg').getByText('Uploaded').waitFor();
    t.is(await itemOf('large.png').getByText('Failed').count(), 1);
    t.is(
      await itemOf('photo.jpg')
        .getByText(/\[41\d\]/)
        .count(),
      0,
      'the refusals stay on their own files',
    );
    await assertAccessible(t, page, 'uploads refused by the server');
  } finally {
    await tab.close();
  }
});

test('the workspace policy is shown and checked before sending', async (t) => {
  const workspace = freshWorkspace('precheck');
  await setPolicy(workspace, { maxUploadBytes: 2048, allowedTypes: ['image/*'] });
  const large = join(dir, 'precheck-large.png');
  await writeFile(large, randomBytes(8192));
  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  const requests: string[] = [];
  page.on('request', (request) => request.url().includes('/v1/uploads') && requests.push(`${request.method()} ${request.url()}`));
  try {
    await page.getByText('Workspace policy: files up to 2.0 KiB; types image/*; new files are public unless you choose.').waitFor();
    await page.getByLabel('Upload files').setInputFiles([large, FIXTURES_DIR + 'notes.txt']);
    const uploads = page.getByRole('list', { name: 'Uploads' });
    await uploads
      .getByRole('listitem')
      .filter({ hasText: 'precheck-large.png' })
      .getByText('Too large: 8.0 KiB, the workspace allows at most 2.0 KiB.')
      .waitFor();
    await uploads
      .getByRole('listitem')
      .filter({ hasText: 'notes.txt' })
      .getByText('Type text/plain is not allowed here (allowed: image/*).')
      .waitFor();
    t.deepEqual(requests, [], 'nothing was sent');
  } finally {
    await tab.close();
  }
});

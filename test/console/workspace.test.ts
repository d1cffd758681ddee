// The console's workspace view (issue 29): usage, and the policy editor for
// workspace:admin with the server's field errors.
import test from 'ava';
import { freshWorkspace } from '../rest/support/stack.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { assertAccessible, openConsole, uploadThroughApi } from './support/console.js';

useConsoleFixture(test);

test('usage counts assets, bytes and routes; the policy editor saves, and a refused value shows at its field', async (t) => {
  const workspace = freshWorkspace('workspace');
  await uploadThroughApi(stack, workspace, { name: 'a.txt', bytes: new Uint8Array(1536).fill(97) });
  await uploadThroughApi(stack, workspace, { name: 'b.txt', bytes: new Uint8Array(512).fill(98) });
  await fetch(`${stack.url}/v1/routing`, {
    method: 'POST',
    headers: { ...(await stack.auth(workspace)), 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: '/ping', handler: 'ping' }),
  });
  const tab = await openConsole(browser, stack, workspace, { path: 'workspace' });
  const { page } = tab;
  try {
    const usage = page.getByRole('region', { name: 'Usage' });
    await usage.getByText('Assets').waitFor();
    t.regex((await usage.textContent()) ?? '', /Assets2Stored2\.0 KiBRoutes1/);

    const policy = page.getByRole('form', { name: 'Upload policy' });
    await page.getByLabel('Largest upload (MiB)').waitFor();
    await page.waitForFunction(() => (document.getElementById('policy-max') as HTMLInputElement | null)?.value !== '');
    await page.getByLabel('Allowed types').fill('image/*\napplication/pdf');
    await page.getByLabel('Largest upload (MiB)').fill('5');
    await page.getByLabel('Default visibility').selectOption('private');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('status').getByText('Policy saved.').waitFor();
    const saved: unknown = await (await fetch(`${stack.url}/v1/workspace/policy`, { headers: await stack.auth(workspace) })).json();
    t.like(saved, { allowedTypes: ['image/*', 'application/pdf'], maxUploadBytes: 5 * 1024 * 1024, defaultVisibility: 'private' });
    await assertAccessible(t, page, 'the workspace view');

    // More than the server's MAX_UPLOAD_BYTES (100 MiB by default).
    await page.getByLabel('Largest upload (MiB)').fill('500');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await page
      .getByRole('alert')
      .getByText(/Saving the policy failed/)
      .waitFor();
    t.is(await page.getByLabel('Largest upload (MiB)').getAttribute('aria-invalid'), 'true');
    await assertAccessible(t, page, 'the policy editor with an error');

    // The assets view checks uploads against the saved policy.
    await page.getByRole('link', { name: 'Assets' }).click();
    await page
      .getByText('Workspace policy: files up to 5.0 MiB; types image/*, application/pdf; new files are private unless you choose.')
      .waitFor();
  } finally {
    await tab.close();
  }
});

// The console's API keys (issue 45), in the workspace view for workspace:admin: create with scopes as checkboxes,
// the secret shown once with Copy, the list with last use, roll, and revoke with a confirmation.
import test from 'ava';
import { freshWorkspace } from '../rest/support/stack.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { assertAccessible, openConsole } from './support/console.js';

useConsoleFixture(test);

const statusWith = async (secret: string) =>
  (await fetch(`${stack.url}/v1/routing`, { headers: { authorization: `Bearer ${secret}` } })).status;

test('create shows the secret once with Copy; the key works; roll replaces its secret; revoke asks first, then the key is refused', async (t) => {
  const workspace = freshWorkspace('keys');
  const tab = await openConsole(browser, stack, workspace, { path: 'workspace' });
  const { page } = tab;
  try {
    const panel = page.getByRole('region', { name: 'API keys' });
    await panel.getByText('No API keys yet.').waitFor();
    await page.getByLabel('Key name').fill('deploy bot');
    await panel.getByRole('checkbox', { name: 'routes:read' }).check();
    await page.getByLabel('Expires in (days)').fill('7');
    await panel.getByRole('button', { name: 'Create key' }).click();
    const secretField = page.getByLabel(/^Secret of key_/);
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    t.regex(secret, /^sy_[0-9A-Za-z]{36}$/);
    await panel.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('status').getByText('Secret copied.').waitFor();
    t.is(await page.evaluate(() => navigator.clipboard.readText()), secret);
    const row = panel.getByRole('row', { name: /deploy bot/ });
    t.regex((await row.textContent()) ?? '', /routes:read.*never.*active/);
    await assertAccessible(t, page, 'the workspace view with a new key');
    t.is(await statusWith(secret), 200);

    await row.getByRole('button', { name: 'Roll deploy bot' }).click();
    await page.waitForFunction((old) => {
      const value = document.querySelector<HTMLInputElement>('#key-secret')?.value ?? '';
      return value.startsWith('sy_') && value !== old;
    }, secret);
    const rolled = await secretField.inputValue();
    t.is(await statusWith(secret), 401, 'the old secret is refused after a roll without grace');
    t.is(await statusWith(rolled), 200);

    await row.getByRole('button', { name: 'Revoke deploy bot' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Revoke deploy bot?' });
    await dialog.waitFor();
    await assertAccessible(t, page, 'the revoke confirmation');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('status').getByText('Key deploy bot revoked.').waitFor();
    await panel.getByRole('row', { name: /deploy bot.*revoked/ }).waitFor();
    t.is(await statusWith(rolled), 401);
  } finally {
    await tab.close();
  }
});

test("without workspace:admin the panel says so, and a key's scopes never exceed the signed-in credential's", async (t) => {
  const workspace = freshWorkspace('keys-scope');
  const tab = await openConsole(browser, stack, workspace, { path: 'workspace', claims: { workspace, scope: 'assets:read' } });
  try {
    await tab.page.getByText(/Only a credential with the workspace:admin scope can manage API keys/).waitFor();
    t.is(await tab.page.getByRole('button', { name: 'Create key' }).count(), 0);
  } finally {
    await tab.close();
  }
  const admin = await openConsole(browser, stack, workspace, {
    path: 'workspace',
    claims: { workspace, scope: 'routes:read workspace:admin' },
  });
  try {
    const panel = admin.page.getByRole('region', { name: 'API keys' });
    await panel.getByRole('button', { name: 'Create key' }).waitFor();
    t.true(await panel.getByRole('checkbox', { name: 'assets:write' }).isDisabled());
    t.false(await panel.getByRole('checkbox', { name: 'routes:read' }).isDisabled());
  } finally {
    await admin.close();
  }
});

// The console's sign-in (issue 29): the token in memory and sessionStorage
// only, the workspace and scopes shown, actions the scopes forbid disabled
// with the reason, and back to sign-in on sign-out, on a 401 and on expiry.
import test from 'ava';
import { freshWorkspace } from '../rest/support/stack.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { mintToken } from '../rest/support/tokens.js';
import { assertAccessible, openConsole, signIn } from './support/console.js';

useConsoleFixture(test);

test('sign in shows the workspace and scopes; a reload keeps the tab signed in; the token is never in localStorage, a cookie or a url; sign out forgets it', async (t) => {
  const workspace = freshWorkspace('signin');
  const tab = await openConsole(browser, stack, workspace, { signIn: false });
  const { page } = tab;
  try {
    await page.getByRole('heading', { name: 'Switchyard console' }).waitFor();
    t.true(await page.getByText('npm run -s token -- --workspace demo').isVisible(), 'says how to get a token');
    await assertAccessible(t, page, 'the sign-in page');

    await signIn(page, tab.token);
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    const banner = page.getByRole('banner');
    t.true(await banner.getByText(workspace).isVisible());
    for (const scope of ['routes:read', 'routes:write', 'assets:read', 'assets:write', 'workspace:admin'])
      t.true(await banner.getByText(scope).isVisible(), scope);
    await page.getByRole('heading', { name: 'No assets yet' }).waitFor();
    await assertAccessible(t, page, 'the empty assets view');

    t.is(await page.evaluate(() => sessionStorage.length), 1);
    await page.reload();
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    t.true(await page.getByRole('button', { name: 'Sign out' }).isVisible(), 'still signed in after a reload');

    for (const view of ['Routes', 'Workspace', 'Assets']) {
      await page.getByRole('navigation').getByRole('link', { name: view }).click();
      await page.getByRole('heading', { name: new RegExp(`^${view}`), level: 1 }).waitFor();
    }

    const local = await page.evaluate(() =>
      Object.entries(localStorage)
        .map(([key, value]) => key + value)
        .join('\n'),
    );
    t.false(local.includes(tab.token), 'no token in localStorage');
    t.deepEqual(
      (await tab.context.cookies()).filter((cookie) => cookie.value.includes(tab.token.split('.')[2]!)),
      [],
      'no token in a cookie',
    );
    t.true(tab.requestUrls.length > 5);
    t.deepEqual(
      tab.requestUrls.filter((url) => url.includes(tab.token) || url.includes(tab.token.split('.')[2]!)),
      [],
      'no request url carries the token',
    );

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    t.true(await page.getByText('You signed out.').isVisible());
    t.is(await page.evaluate(() => sessionStorage.length), 0, 'sessionStorage forgot it');
    await page.reload();
    await page.getByLabel('Token').waitFor();
    t.is(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'a reload after signing out stays signed out');
  } finally {
    await tab.close();
  }
});

test('a refused token stays on the sign-in page with the reason (the error state is accessible too)', async (t) => {
  const tab = await openConsole(browser, stack, freshWorkspace('refused'), { signIn: false });
  const { page } = tab;
  try {
    await page.getByLabel('Token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/This is not a JWT/).waitFor();

    const forged = await mintToken('another secret entirely, 32 bytes!', { workspace: 'forged' });
    await page.getByLabel('Token').fill(forged);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/The server refused this token: .*\[401 unauthenticated\]/).waitFor();
    t.is(await page.getByRole('button', { name: 'Sign out' }).count(), 0);
    t.is(await page.getByLabel('Token').getAttribute('aria-invalid'), 'true');
    await assertAccessible(t, page, 'the sign-in page with an error');
  } finally {
    await tab.close();
  }
});

test('an expired token returns to sign-in with the reason, without any click', async (t) => {
  const workspace = freshWorkspace('expiry');
  const tab = await openConsole(browser, stack, workspace, { signIn: false });
  const { page } = tab;
  try {
    // Minted once the sign-in form is up (a loaded machine can take seconds to open a tab), and
    // long enough to sign in; the console then ends the session by itself at the expiry.
    await page.getByLabel('Token').waitFor();
    await signIn(page, await stack.token(workspace, { workspace, expiresIn: 15 }));
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    await page.getByText(/Your token expired/).waitFor({ timeout: 25_000 });
    t.true(await page.getByLabel('Token').isVisible());
    t.is(await page.evaluate(() => sessionStorage.length), 0);
  } finally {
    await tab.close();
  }
});

test("a 401 from any call returns to sign-in with the server's reason", async (t) => {
  const workspace = freshWorkspace('unauth');
  const tab = await openConsole(browser, stack, workspace);
  const { page } = tab;
  try {
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    // The server stops accepting the tab's token (here: a token signed with another key takes its place).
    const forged = await mintToken('another secret entirely, 32 bytes!', { workspace });
    await page.evaluate((token) => sessionStorage.setItem('switchyard.console.token', token), forged);
    await page.reload();
    await page.getByText(/The server refused your token \(401/).waitFor();
    t.true(await page.getByLabel('Token').isVisible());
    t.is(await page.evaluate(() => sessionStorage.length), 0);
  } finally {
    await tab.close();
  }
});

test("actions the token's scopes do not allow are disabled, with the reason", async (t) => {
  const workspace = freshWorkspace('scopes');
  const tab = await openConsole(browser, stack, workspace, { claims: { workspace, scope: 'assets:read routes:read' } });
  const { page } = tab;
  try {
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    t.true(await page.getByLabel('Upload files').isDisabled());
    t.true(await page.getByRole('button', { name: /Delete selected/ }).isDisabled());
    t.true(await page.getByText('Your token does not carry the assets:write scope.').first().isVisible());
    t.true(await page.getByText(/Reading the policy needs the workspace:admin scope/).isVisible());

    await page.getByRole('link', { name: 'Routes' }).click();
    await page.getByRole('heading', { name: 'Routes', level: 1 }).waitFor();
    t.true(await page.getByRole('button', { name: 'Create route' }).isDisabled());
    const noRoutesWrite = 'Your token does not carry the routes:write scope.';
    t.true(await page.locator('#route-scope').getByText(noRoutesWrite).isVisible(), 'the form says why');
    t.true(await page.getByRole('button', { name: 'Import…' }).isDisabled());
    t.true(await page.locator('#import-scope').getByText(noRoutesWrite).isVisible(), 'so does Import');
    await assertAccessible(t, page, 'the routes view without routes:write');

    await page.getByRole('link', { name: 'Workspace' }).click();
    await page.getByRole('heading', { name: 'Upload policy' }).waitFor();
    t.true(await page.getByText(/Only a token with the workspace:admin scope/).isVisible());
  } finally {
    await tab.close();
  }
});

test('an API key signs in like a token: its workspace and scopes are shown, a reload keeps it; a revoked, mistyped or rolled-away key is refused with the reason', async (t) => {
  const workspace = freshWorkspace('apikey');
  const admin = await stack.auth(workspace);
  const create = async () => {
    const body = JSON.stringify({
      name: 'console',
      scopes: ['assets:read', 'routes:read'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const created = await fetch(`${stack.url}/v1/keys`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body,
    });
    return (await created.json()) as { id: string; secret: string };
  };
  const key = await create();
  const tab = await openConsole(browser, stack, workspace, { signIn: false });
  const { page } = tab;
  try {
    await signIn(page, key.secret);
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    const banner = page.getByRole('banner');
    t.true(await banner.getByText(workspace).isVisible());
    t.true(await banner.getByText('assets:read').isVisible());
    t.is(await banner.getByText('assets:write').count(), 0);
    t.true(await page.getByLabel('Upload files').isDisabled(), 'what the key may not do is disabled');
    await page.reload();
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    t.true(await page.getByRole('button', { name: 'Sign out' }).isVisible(), 'still signed in after a reload');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    t.is(await page.evaluate(() => sessionStorage.length), 0, 'the key and what the server said of it are forgotten');

    const revoked = await create();
    t.is((await fetch(`${stack.url}/v1/keys/${revoked.id}`, { method: 'DELETE', headers: admin })).status, 204);
    await page.getByLabel('Token').fill(revoked.secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/The server refused this key: .*\[401 unauthenticated\]/).waitFor();
    t.is(await page.getByRole('button', { name: 'Sign out' }).count(), 0);

    // A mistyped key, and a rolled key's old secret once its grace is over, are refused the same way.
    const refused = async (secret: string, what: string) => {
      await page.getByLabel('Token').fill(secret);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText(/The server refused this key: .*\[401 unauthenticated\]/).waitFor();
      t.is(await page.getByRole('button', { name: 'Sign out' }).count(), 0, what);
    };
    const at = 12;
    await refused(`${key.secret.slice(0, at)}${key.secret[at] === 'a' ? 'b' : 'a'}${key.secret.slice(at + 1)}`, 'mistyped');
    const roll = (id: string, graceSeconds: number) =>
      fetch(`${stack.url}/v1/keys/${id}:roll`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ graceSeconds }),
      });
    const graced = await create();
    t.is((await roll(graced.id, 3600)).status, 200);
    await signIn(page, graced.secret);
    await page.getByRole('heading', { name: 'Assets', level: 1 }).waitFor();
    t.true(await page.getByRole('button', { name: 'Sign out' }).isVisible(), "a rolled key's old secret inside its grace");
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    const ended = await create();
    t.is((await roll(ended.id, 0)).status, 200);
    await refused(ended.secret, "a rolled key's old secret after its grace");
  } finally {
    await tab.close();
  }
});

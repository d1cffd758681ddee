// An expired API key in the console (issue 45), on a server whose clock the test moves (no waiting): the Keys view
// marks it expired and offers neither roll nor revoke, and signing in with it is refused with the server's reason.
import { createClock } from '@sinonjs/fake-timers';
import test from 'ava';
import { timeSourceOf } from '@switchyard/core/testing';
import { freshWorkspace } from '../rest/support/stack.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { assertAccessible, openConsole, signIn } from './support/console.js';

const clock = createClock(Date.now());
useConsoleFixture(test, { time: timeSourceOf(clock) });

const MINUTE = 60_000;

test('an expired key is marked expired in the Keys view with no roll or revoke, and signing in with it is refused', async (t) => {
  const workspace = freshWorkspace('keys-expired');
  const admin = await stack.auth(workspace);
  const created = await fetch(`${stack.url}/v1/keys`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'short lived', scopes: ['routes:read'], expiresAt: new Date(clock.now + MINUTE).toISOString() }),
  });
  t.is(created.status, 201);
  const key = (await created.json()) as { id: string; secret: string };
  const status = async () => (await fetch(`${stack.url}/v1/routing`, { headers: { authorization: `Bearer ${key.secret}` } })).status;
  t.is(await status(), 200, 'live before its expiry');

  // Two minutes on, for the server and for the page.
  clock.setSystemTime(clock.now + 2 * MINUTE);
  t.is(await status(), 401, 'expired');
  const tab = await openConsole(browser, stack, workspace, { path: 'workspace', signIn: false });
  const { page } = tab;
  try {
    await page.clock.setSystemTime(new Date(clock.now));
    await page.reload();
    await page.getByLabel('Token').fill(key.secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/The server refused this key: .*\[401 unauthenticated\]/).waitFor();
    t.is(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'not signed in');

    await signIn(page, admin['authorization']!.slice('Bearer '.length));
    const panel = page.getByRole('region', { name: 'API keys' });
    const row = panel.getByRole('row', { name: /short lived/ });
    await row.waitFor();
    t.regex((await row.textContent()) ?? '', /routes:read.*expired$/, 'listed, marked expired');
    t.is(await row.getByRole('button').count(), 0, 'an expired key can be neither rolled nor revoked');
    await assertAccessible(t, page, 'the Keys view with an expired key');
  } finally {
    await tab.close();
  }
});

// The console's routes view (issue 29): the table kept live by the watch
// stream, create/edit/delete in the form with the server's field errors and
// a 409 that names the route in the way, and the match tester.
import test from 'ava';
import type { Page } from 'playwright-core';
import { freshWorkspace } from '../rest/support/stack.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { assertAccessible, openConsole } from './support/console.js';

/** Generous: it catches a change never shown; how soon one is shown (docs/console.md: within a second) is bench/'s console-route-change-shown-p99. */
const SHOWN_DEADLINE_MS = 20_000;

useConsoleFixture(test);

async function rest(workspace: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${stack.url}${path}`, {
    method,
    headers: { ...(await stack.auth(workspace)), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
}

const routeRow = (page: Page, path: string) =>
  page
    .getByRole('table')
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: path, exact: true }) });

async function openRoutes(workspace: string) {
  const tab = await openConsole(browser, stack, workspace, { path: 'routes' });
  await tab.page.getByRole('heading', { name: 'Routes', level: 1 }).waitFor();
  await tab.page.getByText(/^Live · revision/).waitFor();
  return tab;
}

test('routes created, changed and deleted through the REST API appear, in turn, without a reload', async (t) => {
  const workspace = freshWorkspace('live');
  const tab = await openRoutes(workspace);
  const { page } = tab;
  try {
    await page.getByRole('heading', { name: 'No routes yet' }).waitFor();
    await assertAccessible(t, page, 'the empty routes view');

    const created = await rest(workspace, 'POST', '/v1/routing', { method: 'GET', path: '/health', handler: 'health.check' });
    t.is(created.status, 201);
    const id = ((await created.json()) as { id: string }).id;
    await routeRow(page, '/health').getByRole('cell', { name: 'health.check' }).waitFor({ timeout: SHOWN_DEADLINE_MS });

    t.is((await rest(workspace, 'PATCH', `/v1/routing/${id}`, { handler: 'health.deep' })).status, 200);
    await routeRow(page, '/health').getByRole('cell', { name: 'health.deep' }).waitFor({ timeout: SHOWN_DEADLINE_MS });

    t.is((await rest(workspace, 'DELETE', `/v1/routing/${id}`)).status, 204);
    await routeRow(page, '/health').waitFor({ state: 'detached', timeout: SHOWN_DEADLINE_MS });
  } finally {
    await tab.close();
  }
});

test('create, edit and delete in the form; a 400 shows at its field; a 409 names the route in the way', async (t) => {
  const workspace = freshWorkspace('form');
  const tab = await openRoutes(workspace);
  const { page } = tab;
  try {
    await page.getByLabel('Method', { exact: true }).selectOption('POST');
    await page.getByLabel('Path', { exact: true }).fill('/orders');
    await page.getByLabel('Middleware', { exact: true }).fill('auth, audit');
    await page.getByLabel('Handler', { exact: true }).fill('orders.create');
    await page.getByRole('button', { name: 'Create route' }).click();
    await page.getByRole('status').getByText('Created route POST /orders.').waitFor();
    const row = routeRow(page, '/orders');
    await row.waitFor();
    t.true(await row.getByRole('cell', { name: 'auth, audit' }).isVisible());
    t.true(await row.getByRole('cell', { name: 'orders.create' }).isVisible());
    await assertAccessible(t, page, 'the routes view with a route');

    await page.getByRole('button', { name: 'Edit POST /orders' }).click();
    await page.getByRole('heading', { name: 'Edit POST /orders' }).waitFor();
    await page.getByLabel('Handler', { exact: true }).fill('orders.place');
    await page.getByRole('button', { name: 'Save' }).click();
    await row.getByRole('cell', { name: 'orders.place' }).waitFor();
    await page.getByRole('heading', { name: 'New route' }).waitFor();

    // 400: the server's reason at the Path field.
    await page.getByLabel('Path', { exact: true }).fill('orders');
    await page.getByLabel('Handler', { exact: true }).fill('orders.list');
    await page.getByRole('button', { name: 'Create route' }).click();
    const path = page.getByLabel('Path', { exact: true });
    await page.waitForFunction(() => document.getElementById('route-path')?.getAttribute('aria-invalid') === 'true');
    const describedBy = (await path.getAttribute('aria-describedby'))!.split(' ');
    const reason = await page.locator(`[id="${describedBy[0]}"]`).textContent();
    t.regex(reason ?? '', /must start with "\/"/, 'the field says what is wrong');
    await page
      .getByRole('alert')
      .getByText(/Creating the route failed/)
      .waitFor();
    await assertAccessible(t, page, 'the route form with a field error');

    // 409: another GET route of the same shape.
    t.is((await rest(workspace, 'POST', '/v1/routing', { method: 'GET', path: '/users/:id', handler: 'users.show' })).status, 201);
    await routeRow(page, '/users/:id').waitFor();
    await page.getByLabel('Method', { exact: true }).selectOption('GET');
    await path.fill('/users/:uid');
    await page.getByLabel('Handler', { exact: true }).fill('users.other');
    await page.getByRole('button', { name: 'Create route' }).click();
    await page
      .getByText(/^GET \/users\/:id \(rt_[0-9a-z]+, handler users\.show\) already has this method and path shape\.$/)
      .first()
      .waitFor();
    t.is(await path.getAttribute('aria-invalid'), 'true');

    await page.getByRole('button', { name: 'Delete POST /orders' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete POST /orders?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1', undefined);
    const listed = (await (await rest(workspace, 'GET', '/v1/routing')).json()) as { routes: { path: string }[] };
    t.deepEqual(
      listed.routes.map((route) => route.path),
      ['/users/:id'],
    );
  } finally {
    await tab.close();
  }
});

test('a long table is shown in pages of 25, in the order the API lists it', async (t) => {
  const workspace = freshWorkspace('pages');
  for (let n = 0; n < 30; n++)
    t.is(
      (await rest(workspace, 'POST', '/v1/routing', { method: 'GET', path: `/items/${String(n).padStart(2, '0')}`, handler: `items.${n}` }))
        .status,
      201,
    );
  const tab = await openRoutes(workspace);
  const { page } = tab;
  try {
    await page.getByText('Page 1 of 2 (30 routes)').waitFor();
    t.is(await page.getByRole('table').getByRole('row').count(), 26, 'a header and 25 rows');
    t.true(await routeRow(page, '/items/00').isVisible(), 'oldest first');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2 of 2 (30 routes)').waitFor();
    t.is(await page.getByRole('table').getByRole('row').count(), 6);
    t.true(await routeRow(page, '/items/29').isVisible());
    await page.getByLabel('Filter routes').fill('items.2');
    await page.getByRole('button', { name: 'Next page' }).waitFor({ state: 'detached' });
    t.deepEqual(
      await page
        .getByRole('table')
        .getByRole('row')
        .locator('td.mono')
        .filter({ hasText: /^items\./ })
        .allTextContents(),
      ['items.2', ...Array.from({ length: 10 }, (_, n) => `items.2${n}`)],
      'the filter matches handlers too',
    );
  } finally {
    await tab.close();
  }
});

test('the match tester shows the matching route and its params, or "no route", as you type', async (t) => {
  const workspace = freshWorkspace('match');
  t.is(
    (await rest(workspace, 'POST', '/v1/routing', { method: 'GET', path: '/users/:id/posts/:post', handler: 'posts.show' })).status,
    201,
  );
  const tab = await openRoutes(workspace);
  const { page } = tab;
  try {
    const result = page.getByRole('region', { name: 'Match tester' }).getByRole('status');
    await page.getByLabel('Test method').selectOption('GET');
    await page.getByLabel('Test path').pressSequentially('/users/42/posts/7');
    await result.getByText('posts.show').waitFor();
    t.regex((await result.textContent()) ?? '', /Matches GET \/users\/:id\/posts\/:post → posts\.show/);
    t.regex((await result.textContent()) ?? '', /id42/);
    t.regex((await result.textContent()) ?? '', /post7/);
    await page.getByLabel('Test method').selectOption('POST');
    await result.getByText(/^No route/).waitFor();
    await page.getByLabel('Test method').selectOption('GET');
    await page.getByLabel('Test path').fill('/nowhere');
    await result.getByText('No route: nothing matches GET /nowhere.').waitFor();
    // A route added elsewhere is matched without retyping.
    t.is((await rest(workspace, 'POST', '/v1/routing', { method: 'GET', path: '/nowhere', handler: 'now.here' })).status, 201);
    await result.getByText('now.here').waitFor();
    await assertAccessible(t, page, 'the match tester with a result');
  } finally {
    await tab.close();
  }
});

// The console's routes as code (issue 41): the History section lists the
// revisions made through the API with their actor, owner and diff; "Restore
// this revision" shows the plan, then makes the table equal to that revision
// (and says so when the table moved since the plan); Export downloads the
// table as a route file; Import shows a file's plan, then applies it; a bad
// file shows its line and column. Axe on the history and the plan dialogs.
import { readFile } from 'node:fs/promises';
import test from 'ava';
import type { Page } from 'playwright-core';
import { parseRoutesFile } from '@switchyard/client/routes-file';
import { freshWorkspace } from '../rest/support/stack.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { assertAccessible, openConsole } from './support/console.js';

/** Generous: it catches a revision never shown, not how soon one is. */
const SHOWN_DEADLINE_MS = 20_000;

useConsoleFixture(test);

interface Route {
  method: string;
  path: string;
  middleware: string[];
  handler: string;
  owner: string;
}

async function rest(workspace: string, method: string, path: string, body?: unknown, subject = 'ci-bot'): Promise<Response> {
  return fetch(`${stack.url}${path}`, {
    method,
    headers: { ...(await stack.auth(workspace, { subject })), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
}

async function ok<T>(response: Promise<Response>, status = 200): Promise<T> {
  const answered = await response;
  if (answered.status !== status) throw new Error(`answered ${answered.status}: ${await answered.text()}`);
  return (status === 204 ? undefined : await answered.json()) as T;
}

/** The table (at a revision), as comparable entries sorted by method and path. */
async function tableOf(workspace: string, atRevision?: number): Promise<Route[]> {
  const query = atRevision === undefined ? '' : `?atRevision=${atRevision}`;
  const { routes } = await ok<{ routes: Route[] }>(rest(workspace, 'GET', `/v1/routing${query}`));
  return routes
    .map(({ method, path, middleware, handler, owner }) => ({ method, path, middleware, handler, owner }))
    .sort((a, b) => (`${a.path} ${a.method}` < `${b.path} ${b.method}` ? -1 : 1));
}

async function revisionOf(workspace: string): Promise<number> {
  const page = await ok<{ changes: { revision: number }[] }>(rest(workspace, 'GET', '/v1/routing/changes?pageSize=1000'));
  return page.changes.at(-1)?.revision ?? 0;
}

async function openHistory(workspace: string) {
  const tab = await openConsole(browser, stack, workspace, { path: 'routes/history' });
  await tab.page.getByRole('heading', { name: 'History', level: 2 }).waitFor();
  await tab.page.getByText(/^Live · revision/).waitFor();
  return tab;
}

const revisionItem = (page: Page, revision: number) =>
  page
    .getByRole('list', { name: 'Revisions, newest first' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: `Revision ${revision}`, exact: true }) });

test('the history lists the revisions made through the API, newest first, with actor, owner and diff', async (t) => {
  const workspace = freshWorkspace('history');
  await ok(rest(workspace, 'POST', '/v1/routing', { method: 'GET', path: '/health', handler: 'health.check' }, 'alice'), 201);
  await ok(
    rest(workspace, 'POST', '/v1/routing:apply', {
      owner: 'team-a',
      routes: [
        { method: 'GET', path: '/orders', handler: 'orders.list' },
        { method: 'POST', path: '/orders', middleware: ['auth'], handler: 'orders.create' },
      ],
    }),
  );
  const { routes } = await ok<{ routes: (Route & { id: string })[] }>(rest(workspace, 'GET', '/v1/routing'));
  const health = routes.find((route) => route.path === '/health')!;
  await ok(rest(workspace, 'PATCH', `/v1/routing/${health.id}`, { handler: 'health.deep' }, 'alice'));

  const tab = await openHistory(workspace);
  const { page } = tab;
  try {
    const headings = page.getByRole('list', { name: 'Revisions, newest first' }).getByRole('heading', { level: 3 });
    await revisionItem(page, 1).waitFor();
    t.deepEqual(await headings.allTextContents(), ['Revision 3', 'Revision 2', 'Revision 1'], 'newest first');

    const first = revisionItem(page, 1);
    t.regex((await first.textContent()) ?? '', /by alice · no owner/);
    t.regex((await first.getByRole('listitem').first().textContent()) ?? '', /^\+Created GET \/health → health\.check/);
    t.is(await first.getByRole('button', { name: /^Restore this revision/ }).count(), 1, 'an older revision can be restored');

    const apply = revisionItem(page, 2);
    t.regex((await apply.textContent()) ?? '', /by ci-bot · owner team-a/);
    t.deepEqual(
      (await apply.locator('.route-diff > li').allTextContents()).map((line) => line.trim()),
      ['+Created GET /orders → orders.list · owner team-a', '+Created POST /orders → orders.create (middleware auth) · owner team-a'],
    );

    const update = revisionItem(page, 3);
    t.regex((await update.textContent()) ?? '', /~Changed GET \/health/);
    t.regex((await update.textContent()) ?? '', /handler: health\.check → health\.deep/);
    t.is(await update.getByRole('button', { name: /^Restore this revision/ }).count(), 0, 'the current revision is the table already');
    await assertAccessible(t, page, 'the history');

    // A revision made elsewhere joins at the top without a reload.
    await ok(rest(workspace, 'DELETE', `/v1/routing/${health.id}`), 204);
    await revisionItem(page, 4)
      .getByText(/-Deleted GET \/health → health\.deep/)
      .waitFor({ timeout: SHOWN_DEADLINE_MS });
    t.deepEqual(await headings.allTextContents(), ['Revision 4', 'Revision 3', 'Revision 2', 'Revision 1']);
  } finally {
    await tab.close();
  }
});

test('Restore this revision shows the plan, then makes the table equal to that revision; a table that moved is planned again', async (t) => {
  const workspace = freshWorkspace('restore');
  await ok(
    rest(workspace, 'POST', '/v1/routing:apply', {
      routes: [
        { method: 'GET', path: '/a', handler: 'a.one' },
        { method: 'GET', path: '/b', handler: 'b.one' },
      ],
    }),
  );
  const wanted = await tableOf(workspace);
  await ok(
    rest(workspace, 'POST', '/v1/routing:apply', {
      prune: true,
      routes: [
        { method: 'GET', path: '/a', handler: 'a.two' },
        { method: 'GET', path: '/c', handler: 'c.one' },
      ],
    }),
  );
  t.is(await revisionOf(workspace), 2);

  const tab = await openHistory(workspace);
  const { page } = tab;
  try {
    await revisionItem(page, 1).getByRole('button', { name: 'Restore this revision (1)' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Restore revision 1?' });
    await dialog.getByText('Against revision 2: 1 to create, 1 to change, 1 to delete, 0 unchanged.').waitFor();
    t.deepEqual(
      (await dialog.locator('.route-diff > li').allTextContents()).map((line) => line.trim()),
      ['+Create GET /b → b.one', '~Change GET /ahandler: a.two → a.one', '-Delete GET /c → c.one'],
    );
    t.true(await dialog.getByRole('button', { name: 'Cancel' }).evaluate((button) => button === document.activeElement), 'Cancel first');
    t.deepEqual(await tableOf(workspace), await tableOf(workspace, 2), 'the plan wrote nothing');
    await assertAccessible(t, page, 'the restore plan');

    // The table moves after the plan: Restore writes nothing and offers a new plan.
    await ok(rest(workspace, 'POST', '/v1/routing', { method: 'GET', path: '/d', handler: 'd.one' }), 201);
    await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
    await dialog
      .getByRole('alert')
      .getByText(/The route table moved since this plan was made/)
      .waitFor();
    t.is(await revisionOf(workspace), 3, 'nothing written over the move');
    await dialog.getByRole('button', { name: 'Plan again' }).click();
    await dialog.getByText('Against revision 3: 1 to create, 1 to change, 2 to delete, 0 unchanged.').waitFor();
    await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
    await page.getByRole('status').getByText('Restored revision 1 as revision 4: 1 created, 1 changed, 2 deleted.').waitFor();
    await dialog.waitFor({ state: 'detached' });

    t.deepEqual(await tableOf(workspace), wanted, 'the table is revision 1’s');
    t.deepEqual(await tableOf(workspace), await tableOf(workspace, 1));
    await revisionItem(page, 4).waitFor({ timeout: SHOWN_DEADLINE_MS });
  } finally {
    await tab.close();
  }
});

test('Export downloads the table as a route file that parses back to it', async (t) => {
  const workspace = freshWorkspace('export');
  await ok(rest(workspace, 'POST', '/v1/routing', { method: 'GET', path: '/health', handler: 'health.check' }), 201);
  await ok(
    rest(workspace, 'POST', '/v1/routing:apply', {
      owner: 'team-a',
      routes: [{ method: 'POST', path: '/orders/:id', middleware: ['auth', 'audit'], handler: 'orders.update' }],
    }),
  );
  const tab = await openHistory(workspace);
  const { page } = tab;
  try {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
    t.is(download.suggestedFilename(), `routes-${workspace}.yaml`);
    const text = await readFile(await download.path(), 'utf8');
    t.regex(text, /^format: switchyard\.routes\/v1\n/);
    const file = parseRoutesFile('export.yaml', text);
    t.deepEqual(
      file.routes.map(({ method, path, middleware, handler, owner }) => ({
        method,
        path,
        middleware: middleware ?? [],
        handler,
        owner: owner ?? '',
      })),
      await tableOf(workspace),
    );
    await page.getByRole('status').getByText('Exported 2 routes as YAML.').waitFor();
  } finally {
    await tab.close();
  }
});

const IMPORTED = `format: switchyard.routes/v1
routes:
  - method: GET
    path: /users/:id
    middleware: [auth]
    handler: users.show
  - method: POST
    path: /users
    handler: users.create
`;

test('Import shows the plan of a file (owner and prune), then applies it', async (t) => {
  const workspace = freshWorkspace('import');
  await ok(
    rest(workspace, 'POST', '/v1/routing:apply', { owner: 'team-b', routes: [{ method: 'GET', path: '/old', handler: 'old.one' }] }),
  );
  await ok(rest(workspace, 'POST', '/v1/routing', { method: 'GET', path: '/mine', handler: 'someone.else' }), 201);
  const tab = await openHistory(workspace);
  const { page } = tab;
  try {
    await page.getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import a route file' });
    await dialog
      .getByLabel('Route file')
      .setInputFiles({ name: 'users.yaml', mimeType: 'application/yaml', buffer: Buffer.from(IMPORTED) });
    await dialog.getByLabel('Owner', { exact: true }).fill('team-b');
    await dialog.getByLabel(/^Prune/).check();
    await dialog.getByRole('button', { name: 'Show plan' }).click();
    await dialog.getByRole('heading', { name: 'Plan for users.yaml' }).waitFor();
    await dialog.getByText('Against revision 2: 2 to create, 0 to change, 1 to delete, 0 unchanged.').waitFor();
    t.deepEqual((await dialog.locator('.route-diff > li').allTextContents()).map((line) => line.trim()).sort(), [
      '+Create GET /users/:id → users.show (middleware auth) · owner team-b',
      '+Create POST /users → users.create · owner team-b',
      '-Delete GET /old → old.one · owner team-b',
    ]);
    t.is(await revisionOf(workspace), 2, 'the plan wrote nothing');
    await assertAccessible(t, page, 'the import plan');

    await dialog.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('status').getByText('Applied users.yaml as revision 3: 2 created, 0 changed, 1 deleted.').waitFor();
    await dialog.waitFor({ state: 'detached' });
    t.deepEqual(await tableOf(workspace), [
      { method: 'GET', path: '/mine', middleware: [], handler: 'someone.else', owner: '' },
      { method: 'POST', path: '/users', middleware: [], handler: 'users.create', owner: 'team-b' },
      { method: 'GET', path: '/users/:id', middleware: ['auth'], handler: 'users.show', owner: 'team-b' },
    ]);
    // The import is a revision of the history like any other.
    await revisionItem(page, 3)
      .getByText(/by [^·]+ · owner team-b/)
      .waitFor({ timeout: SHOWN_DEADLINE_MS });
  } finally {
    await tab.close();
  }
});

test('a file that is not YAML shows its line and column; an entry the service refuses, its own', async (t) => {
  const workspace = freshWorkspace('badfile');
  const tab = await openHistory(workspace);
  const { page } = tab;
  try {
    await page.getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import a route file' });
    const input = dialog.getByLabel('Route file');
    const bad = 'format: switchyard.routes/v1\nroutes:\n  - method: GET\n    path: /x\n      handler: x\n';
    await input.setInputFiles({ name: 'bad.yaml', mimeType: 'application/yaml', buffer: Buffer.from(bad) });
    await dialog.getByRole('button', { name: 'Show plan' }).click();
    await dialog.getByRole('alert').getByText('Line 4, column 11: Nested mappings are not allowed in compact mappings').waitFor();
    t.is(await input.getAttribute('aria-invalid'), 'true');
    await assertAccessible(t, page, 'the import dialog with a file error');

    const refused =
      'format: switchyard.routes/v1\nroutes:\n  - method: GET\n    path: /ok\n    handler: ok\n  - method: GET\n    path: users\n    handler: users.list\n';
    await input.setInputFiles({ name: 'refused.yaml', mimeType: 'application/yaml', buffer: Buffer.from(refused) });
    await dialog.getByRole('button', { name: 'Show plan' }).click();
    const alert = dialog.getByRole('alert');
    await alert.getByText(/^Line 7, column 11: routes\[1\]\.path /).waitFor();
    t.regex((await alert.textContent()) ?? '', /\[400 invalid_argument\]/);
    t.true(await dialog.getByRole('button', { name: 'Apply' }).isDisabled(), 'nothing to apply');
    t.is(await revisionOf(workspace), 0, 'nothing written');
  } finally {
    await tab.close();
  }
});

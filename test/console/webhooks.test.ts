// The console's Webhooks view (issue 42), for workspace:admin: add an endpoint with its event filters, the signing
// secret shown once with Copy; send a test and read it in the delivery log with its attempts; disable (events kept
// as failed deliveries), enable and recover them; resend one; change the filters; delete with a confirmation.
// Deliveries go to a real node:http receiver on 127.0.0.1, which checks every signature with the secret shown.
import test from 'ava';
import type { Page } from 'playwright-core';
import { freshWorkspace } from '../rest/support/stack.js';
import { eventually } from '../support/eventually.js';
import { acceptedByStandardWebhooks, signedBy, startReceiver, type Received } from '../support/webhook-receiver.js';
import { browser, stack, useConsoleFixture } from './support/fixture.js';
import { assertAccessible, openConsole, uploadThroughApi } from './support/console.js';

useConsoleFixture(test);

const typeOf = (received: Received) => (JSON.parse(received.body) as { type: string }).type;

/** Refreshes the delivery log until a row for `eventType` shows `status`. */
async function untilDelivery(page: Page, eventType: string, status: string): Promise<void> {
  const log = page.getByRole('region', { name: /^Deliveries to / });
  await eventually(
    async () => {
      await log.getByRole('button', { name: 'Refresh deliveries' }).click();
      return (await log.getByRole('row', { name: new RegExp(`^${eventType.replace('.', '\\.')}.*\\b${status}\\b`) }).count()) > 0;
    },
    { timeout: 30_000, interval: 300, message: `a ${status} ${eventType} delivery in the log` },
  );
}

test('add with the secret shown once, send a test, read its attempts; disable, enable and recover; resend; change filters; delete', async (t) => {
  const workspace = freshWorkspace('webhooks');
  const receiver = await startReceiver();
  const tab = await openConsole(browser, stack, workspace, { path: 'webhooks' });
  const { page } = tab;
  try {
    const endpoints = page.getByRole('region', { name: 'Endpoints' });
    await endpoints.getByText('No endpoints yet.').waitFor();
    await assertAccessible(t, page, 'the empty Webhooks view');

    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description', { exact: true }).fill('transcoder');
    await endpoints.getByRole('checkbox', { name: 'every event (*)' }).uncheck();
    await endpoints.getByRole('checkbox', { name: 'every asset event (asset.*)' }).check();
    await endpoints.getByRole('button', { name: 'Add endpoint' }).click();
    const secretField = page.getByLabel('Signing secret of transcoder');
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    t.regex(secret, /^whsec_[A-Za-z0-9+/=]{20,}$/);
    await endpoints.getByRole('button', { name: 'Copy signing secret' }).click();
    await page.getByRole('status').getByText('Signing secret copied.').waitFor();
    t.is(await page.evaluate(() => navigator.clipboard.readText()), secret);
    const row = endpoints.getByRole('row', { name: /transcoder/ });
    t.regex((await row.textContent()) ?? '', /asset\.\*.*enabled/);
    const listing = (await (await fetch(`${stack.url}/v1/webhooks`, { headers: await stack.auth(workspace) })).json()) as {
      webhooks: { secret?: string }[];
    };
    const listed = listing.webhooks[0];
    t.is(listed?.secret, undefined, 'the list never answers the secret again');
    await assertAccessible(t, page, 'the Webhooks view with a new endpoint and its secret');

    // A test: delivered, signed with the secret shown, and in the log with its attempt.
    await row.getByRole('button', { name: 'Send test to transcoder' }).click();
    await receiver.until(1);
    t.is(typeOf(receiver.received[0]!), 'webhook.test');
    await untilDelivery(page, 'webhook.test', 'succeeded');
    const log = page.getByRole('region', { name: `Deliveries to ${receiver.url}` });
    await log.getByText('1 attempt').click();
    await log.getByText(/answered 200 in \d+ ms/).waitFor();
    await assertAccessible(t, page, 'the delivery log with an attempt open');

    // Disabled: an upload's event is kept as a failed delivery and not sent; enabled and recovered, it is.
    await row.getByRole('button', { name: 'Disable transcoder' }).click();
    await endpoints.getByRole('row', { name: /transcoder.*disabled/ }).waitFor();
    await uploadThroughApi(stack, workspace, { name: 'clip.txt', bytes: new TextEncoder().encode('hello\n') });
    await log.getByLabel('Status').selectOption('failed');
    await untilDelivery(page, 'asset.created', 'failed');
    t.is(receiver.received.length, 1, 'nothing is sent to a disabled endpoint');
    await row.getByRole('button', { name: 'Enable transcoder' }).click();
    await endpoints.getByRole('row', { name: /transcoder.*enabled/ }).waitFor();
    await log.getByRole('button', { name: 'Recover failed' }).click();
    await page.getByRole('status').getByText('1 failed delivery queued again.').waitFor();
    await receiver.until(2);
    t.is(typeOf(receiver.received[1]!), 'asset.created');
    await log.getByLabel('Status').selectOption('');
    await untilDelivery(page, 'asset.created', 'succeeded');

    // Resend: the same event again, with the same webhook-id.
    await log.getByRole('button', { name: /^Resend webhook\.test / }).click();
    await receiver.until(3);
    t.is(typeOf(receiver.received[2]!), 'webhook.test');
    t.is(receiver.received[2]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);
    for (const received of receiver.received) {
      t.deepEqual(signedBy(received, [secret]), [true], 'every delivery is signed with the secret shown');
      t.true(acceptedByStandardWebhooks(received, secret), 'standardwebhooks verifies every delivery');
    }

    // Settings: a refused URL is named at its field; new filters are saved.
    const settings = page.getByRole('region', { name: 'Settings of transcoder' });
    await settings.getByLabel('URL').fill('ftp://127.0.0.1/hooks');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.locator('#settings-url-error').filter({ hasText: /\S/ }).waitFor();
    t.is(await settings.getByLabel('URL').getAttribute('aria-invalid'), 'true');
    await settings.getByLabel('URL').fill(receiver.url);
    await settings.getByRole('checkbox', { name: 'every asset event (asset.*)' }).uncheck();
    await settings.getByRole('checkbox', { name: 'route.deleted' }).check();
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').getByText('Settings of transcoder saved.').waitFor();
    await endpoints.getByRole('row', { name: /transcoder.*route\.deleted.*enabled/ }).waitFor();

    await endpoints.getByRole('button', { name: 'Delete transcoder' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete transcoder?' });
    await dialog.waitFor();
    await assertAccessible(t, page, 'the delete confirmation');
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await endpoints.getByText('No endpoints yet.').waitFor();
    t.is(await page.getByRole('region', { name: /^Deliveries to / }).count(), 0);
  } finally {
    await tab.close();
    await receiver.close();
  }
});

test('without workspace:admin the view says so and offers nothing to change', async (t) => {
  const workspace = freshWorkspace('webhooks-scope');
  const tab = await openConsole(browser, stack, workspace, { path: 'webhooks', claims: { workspace, scope: 'assets:read' } });
  try {
    await tab.page.getByText(/Only a credential with the workspace:admin scope can manage webhooks/).waitFor();
    t.is(await tab.page.getByRole('button', { name: 'Add endpoint' }).count(), 0);
    await assertAccessible(t, tab.page, 'the Webhooks view without workspace:admin');
  } finally {
    await tab.close();
  }
});

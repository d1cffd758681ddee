// The Webhooks view, for workspace:admin: the workspace's endpoints (add one,
// its secret shown once with Copy; enable, disable, send a test, rotate the
// secret, delete), and for the endpoint chosen (?webhook=id, so it deep
// links) its event filters and its delivery log.
import { useEffect, useState } from 'preact/hooks';
import type { RestWebhook } from '@switchyard/client/web';
import { useViewApi } from '../../lib/hooks.js';
import { errorText, type Api } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { copyText } from '../../lib/clipboard.js';
import { searchParams, setSearchParams } from '../../lib/router.js';
import { missingScope } from '../../lib/session.js';
import { Confirm } from '../../ui/Confirm.js';
import { CreateWebhookForm } from './CreateWebhookForm.js';
import { DeliveryLog } from './DeliveryLog.js';
import { EndpointSettings } from './EndpointSettings.js';

/** What an endpoint is called in buttons and messages: its description, or its URL. */
export const nameOf = (webhook: RestWebhook): string => webhook.description || webhook.url;

export function WebhooksView() {
  const { api } = useViewApi();
  const refused = missingScope('workspace:admin');
  return (
    <div class="view webhooks-view stack">
      <h1 tabIndex={-1}>Webhooks</h1>
      {refused ? (
        <p class="scope-note">Only a credential with the workspace:admin scope can manage webhooks. {refused}</p>
      ) : (
        <Endpoints api={api} />
      )}
    </div>
  );
}

function Endpoints({ api }: { readonly api: Api }) {
  const [webhooks, setWebhooks] = useState<readonly RestWebhook[] | undefined>(undefined);
  const [shown, setShown] = useState<{ readonly name: string; readonly secret: string } | undefined>(undefined);
  const [deleting, setDeleting] = useState<RestWebhook | undefined>(undefined);
  // Moves after a test is sent, so the open delivery log reads again.
  const [tests, setTests] = useState(0);
  const chosenId = searchParams.value.get('webhook') ?? '';
  const chosen = webhooks?.find((webhook) => webhook.id === chosenId);

  const load = async () => {
    try {
      setWebhooks((await api.listWebhooks()).webhooks);
    } catch (error) {
      const text = errorText(error, 'Listing the endpoints');
      if (text) announceError(text);
    }
  };
  useEffect(() => void load(), []);

  const choose = (id: string) => {
    const params = new URLSearchParams(searchParams.value);
    if (id) params.set('webhook', id);
    else params.delete('webhook');
    setSearchParams(params);
  };

  /** Runs a call on one endpoint, says what happened, and reads the list again. */
  async function act(doing: string, call: () => Promise<string | void>) {
    try {
      const said = await call();
      if (said) announce(said);
      await load();
    } catch (error) {
      const text = errorText(error, doing);
      if (text) announceError(text);
    }
  }

  return (
    <>
      <section class="panel stack" aria-labelledby="endpoints-title">
        <h2 id="endpoints-title">Endpoints</h2>
        <CreateWebhookForm
          api={api}
          onCreated={(created) => {
            setShown({ name: nameOf(created), secret: created.secret });
            void load();
          }}
        />
        {shown && (
          <div class="callout" role="status">
            <p>Copy the signing secret now: it is shown only once. Receivers verify each delivery with it (docs/webhooks.md).</p>
            <label for="webhook-secret">Signing secret of {shown.name}</label>
            <input id="webhook-secret" readOnly value={shown.secret} />
            <button type="button" onClick={() => void copyText(shown.secret, 'Signing secret')}>
              Copy signing secret
            </button>
          </div>
        )}
        {webhooks === undefined ? (
          <p class="loading">Loading…</p>
        ) : webhooks.length === 0 ? (
          <p class="muted">No endpoints yet.</p>
        ) : (
          <table>
            <caption class="visually-hidden">Endpoints</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.map((webhook) => {
                const name = nameOf(webhook);
                return (
                  <tr key={webhook.id} aria-current={webhook.id === chosenId ? 'true' : undefined}>
                    <th scope="row">
                      <span class="break">{webhook.url}</span>
                      {webhook.description && <span class="sub">{webhook.description}</span>}
                    </th>
                    <td>{webhook.events.join(' ')}</td>
                    <td>{webhook.enabled ? 'enabled' : 'disabled'}</td>
                    <td class="actions">
                      <button type="button" aria-label={`Deliveries of ${name}`} onClick={() => choose(webhook.id)}>
                        Deliveries
                      </button>
                      <button
                        type="button"
                        aria-label={`${webhook.enabled ? 'Disable' : 'Enable'} ${name}`}
                        onClick={() =>
                          void act(webhook.enabled ? 'Disabling the endpoint' : 'Enabling the endpoint', async () => {
                            await api.updateWebhook(webhook.id, { enabled: !webhook.enabled });
                            return webhook.enabled ? `${name} disabled: its events are kept as failed deliveries.` : `${name} enabled.`;
                          })
                        }
                      >
                        {webhook.enabled ? 'Disable' : 'Enable'}
                      </button>
                      <button
                        type="button"
                        aria-label={`Send test to ${name}`}
                        onClick={() =>
                          void act('Sending a test', async () => {
                            await api.testWebhook(webhook.id);
                            choose(webhook.id);
                            setTests((n) => n + 1);
                            return `A webhook.test event is on its way to ${name}.`;
                          })
                        }
                      >
                        Send test
                      </button>
                      <button
                        type="button"
                        aria-label={`Rotate secret of ${name}`}
                        onClick={() =>
                          void act('Rotating the secret', async () => {
                            const { secret } = await api.rotateWebhookSecret(webhook.id);
                            setShown({ name, secret });
                            return `${name} has a new secret; the old one signs beside it for 24 hours.`;
                          })
                        }
                      >
                        Rotate secret
                      </button>
                      <button type="button" class="danger" aria-label={`Delete ${name}`} onClick={() => setDeleting(webhook)}>
                        Delete
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
      {chosen && (
        <>
          <EndpointSettings key={chosen.id} api={api} webhook={chosen} onSaved={() => void load()} />
          <DeliveryLog key={chosen.id} api={api} webhook={chosen} changed={tests} />
        </>
      )}
      {deleting && (
        <Confirm
          title={`Delete ${nameOf(deleting)}?`}
          confirmLabel="Delete endpoint"
          onClose={() => setDeleting(undefined)}
          onConfirm={async () => {
            try {
              await api.deleteWebhook(deleting.id);
              announce(`${nameOf(deleting)} deleted.`);
              if (deleting.id === chosenId) choose('');
              setDeleting(undefined);
              await load();
              return true;
            } catch (error) {
              const text = errorText(error, 'Deleting the endpoint');
              if (text) announceError(text);
              return false;
            }
          }}
        >
          It is sent nothing more, and its delivery log is deleted with it. This cannot be undone.
        </Confirm>
      )}
    </>
  );
}

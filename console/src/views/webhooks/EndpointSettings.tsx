// The chosen endpoint's URL, description and event filters, saved with PATCH
// /v1/webhooks/{id}. Field errors from the server show at their field.
import { useState } from 'preact/hooks';
import type { RestWebhook } from '@switchyard/client/web';
import { errorText, SwitchyardRestError, type Api } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { fieldErrors } from './CreateWebhookForm.js';
import { EventFilters } from './EventFilters.js';

export function EndpointSettings({
  api,
  webhook,
  onSaved,
}: {
  readonly api: Api;
  readonly webhook: RestWebhook;
  readonly onSaved: () => void;
}) {
  const [url, setUrl] = useState(webhook.url);
  const [description, setDescription] = useState(webhook.description);
  const [events, setEvents] = useState<readonly string[]>(webhook.events);
  const [errors, setErrors] = useState<ReturnType<typeof fieldErrors>>({});
  const [busy, setBusy] = useState(false);

  async function save(event: Event) {
    event.preventDefault();
    setErrors({});
    setBusy(true);
    try {
      await api.updateWebhook(webhook.id, { url: url.trim(), description, events });
      announce(`Settings of ${description || url} saved.`);
      onSaved();
    } catch (error) {
      if (error instanceof SwitchyardRestError && error.details.length > 0) setErrors(fieldErrors(error));
      const text = errorText(error, 'Saving the endpoint');
      if (text) announceError(text);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="panel" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings of {webhook.description || webhook.url}</h2>
      <form class="stack" onSubmit={(event) => void save(event)} noValidate aria-label="Endpoint settings">
        <div class="field">
          <label for="settings-url">URL</label>
          <input
            id="settings-url"
            type="url"
            value={url}
            aria-invalid={errors.url ? true : undefined}
            aria-describedby="settings-url-error"
            onInput={(event) => setUrl(event.currentTarget.value)}
          />
          <p id="settings-url-error" class="field-error">
            {errors.url ?? ''}
          </p>
        </div>
        <div class="field">
          <label for="settings-description">Description</label>
          <input id="settings-description" value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        </div>
        <EventFilters legend="Events sent" chosen={events} onChange={setEvents}>
          <p class="field-error">{errors.events ?? ''}</p>
        </EventFilters>
        <button type="submit" class="primary" disabled={busy}>
          Save settings
        </button>
      </form>
    </section>
  );
}

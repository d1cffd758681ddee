// Adds an endpoint: its URL, a description, the events it hears. The answer
// carries the secret, which the view shows once.
import { useState } from 'preact/hooks';
import type { RestWebhook } from '@switchyard/client/web';
import { errorText, SwitchyardRestError, type Api } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { EventFilters } from './EventFilters.js';

type Field = 'url' | 'events' | 'description';

export function CreateWebhookForm({
  api,
  onCreated,
}: {
  readonly api: Api;
  readonly onCreated: (created: RestWebhook & { readonly secret: string }) => void;
}) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<readonly string[]>(['*']);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);

  async function create(event: Event) {
    event.preventDefault();
    setErrors({});
    setBusy(true);
    try {
      const created = await api.createWebhook({ url: url.trim(), events, description });
      announce(`Endpoint ${created.url} added.`);
      setUrl('');
      setDescription('');
      setEvents(['*']);
      onCreated(created);
    } catch (error) {
      if (error instanceof SwitchyardRestError && error.details.length > 0) setErrors(fieldErrors(error));
      const text = errorText(error, 'Adding the endpoint');
      if (text) announceError(text);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="stack" onSubmit={(event) => void create(event)} noValidate aria-label="Add an endpoint">
      <div class="field">
        <label for="webhook-url">Endpoint URL</label>
        <input
          id="webhook-url"
          type="url"
          value={url}
          aria-invalid={errors.url ? true : undefined}
          aria-describedby="webhook-url-error"
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
        <p id="webhook-url-error" class="field-error">
          {errors.url ?? ''}
        </p>
      </div>
      <div class="field">
        <label for="webhook-description">Description</label>
        <input id="webhook-description" value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
      </div>
      <EventFilters legend="Events to send" chosen={events} onChange={setEvents}>
        <p class="field-error">{errors.events ?? ''}</p>
      </EventFilters>
      <button type="submit" class="primary" disabled={busy}>
        Add endpoint
      </button>
    </form>
  );
}

/** The server's field errors (`url`, `events[2]`, `description`) at their fields. */
export function fieldErrors(error: SwitchyardRestError): Partial<Record<Field, string>> {
  const found: Partial<Record<Field, string>> = {};
  for (const detail of error.details) {
    const field = detail.field.replace(/\[\d+\]$/, '') as Field;
    if (field === 'url' || field === 'events' || field === 'description') found[field] = detail.reason;
  }
  return found;
}

// One endpoint's delivery log (GET /v1/webhooks/{id}/deliveries): newest
// first, filtered by status, a page at a time; each delivery with its
// attempts (time, status, duration, error, the start of the answer), resend
// for one, and recover for every failed one since a time.
import { useEffect, useState } from 'preact/hooks';
import type { RestDelivery, RestDeliveryAttempt, RestWebhook } from '@switchyard/client/web';
import { errorText, type Api } from '../../lib/api.js';
import { announce, announceError } from '../../lib/announce.js';
import { formatDate } from '../../lib/format.js';

type StatusFilter = '' | RestDelivery['status'];
const PAGE_SIZE = 25;
const DAY_MS = 86_400_000;

export function DeliveryLog({ api, webhook, changed }: { readonly api: Api; readonly webhook: RestWebhook; readonly changed: number }) {
  const [status, setStatus] = useState<StatusFilter>('');
  const [deliveries, setDeliveries] = useState<readonly RestDelivery[] | undefined>(undefined);
  const [nextPageToken, setNextPageToken] = useState('');
  const [busy, setBusy] = useState(false);

  const load = async (pageToken = '') => {
    setBusy(true);
    try {
      const page = await api.listDeliveries(webhook.id, {
        ...(status ? { status } : {}),
        pageSize: PAGE_SIZE,
        ...(pageToken ? { pageToken } : {}),
      });
      setDeliveries((shown) => (pageToken && shown ? [...shown, ...page.deliveries] : page.deliveries));
      setNextPageToken(page.nextPageToken);
    } catch (error) {
      const text = errorText(error, 'Listing the deliveries');
      if (text) announceError(text);
    } finally {
      setBusy(false);
    }
  };
  // `changed` moves when the view did something that adds a delivery (a test).
  useEffect(() => void load(), [webhook.id, status, changed]);

  async function resend(delivery: RestDelivery) {
    try {
      await api.resendDelivery(webhook.id, delivery.id);
      announce(`Delivery ${delivery.id} queued again.`);
      await load();
    } catch (error) {
      const text = errorText(error, 'Resending the delivery');
      if (text) announceError(text);
    }
  }

  return (
    <section class="panel stack" aria-labelledby="deliveries-title">
      <div class="panel-head">
        <h2 id="deliveries-title">Deliveries to {webhook.url}</h2>
        <button type="button" disabled={busy} onClick={() => void load()}>
          Refresh deliveries
        </button>
      </div>
      <div class="inline-fields">
        <div class="field">
          <label for="delivery-status">Status</label>
          <select id="delivery-status" value={status} onChange={(event) => setStatus(event.currentTarget.value as StatusFilter)}>
            <option value="">all</option>
            <option value="pending">pending</option>
            <option value="succeeded">succeeded</option>
            <option value="failed">failed</option>
          </select>
        </div>
        <RecoverForm api={api} webhookId={webhook.id} onRecovered={() => void load()} />
      </div>
      {deliveries === undefined ? (
        <p class="loading">Loading…</p>
      ) : deliveries.length === 0 ? (
        <p class="muted">{status ? `No ${status} deliveries.` : 'No deliveries yet.'}</p>
      ) : (
        <table class="deliveries">
          <caption class="visually-hidden">Deliveries to {webhook.url}</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Next attempt</th>
              <th scope="col">Attempts</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <th scope="row">
                  {delivery.eventType}
                  <span class="sub">{delivery.messageId}</span>
                </th>
                <td>
                  <span class={`badge badge-${delivery.status}`}>{delivery.status}</span>
                </td>
                <td>{formatDate(delivery.createdAt)}</td>
                <td>{delivery.nextAttemptAt ? formatDate(delivery.nextAttemptAt) : '—'}</td>
                <td>
                  <Attempts attempts={delivery.attempts} />
                </td>
                <td>
                  <button type="button" aria-label={`Resend ${delivery.eventType} ${delivery.id}`} onClick={() => void resend(delivery)}>
                    Resend
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {nextPageToken && (
        <button type="button" disabled={busy} onClick={() => void load(nextPageToken)}>
          Load more deliveries
        </button>
      )}
    </section>
  );
}

function RecoverForm({ api, webhookId, onRecovered }: { readonly api: Api; readonly webhookId: string; readonly onRecovered: () => void }) {
  // A day back by default, in the browser's time zone as datetime-local shows it.
  const [since, setSince] = useState(() => localInputValue(new Date(Date.now() - DAY_MS)));
  const [busy, setBusy] = useState(false);

  async function recover(event: Event) {
    event.preventDefault();
    const from = new Date(since);
    if (Number.isNaN(from.getTime())) return announceError('Recovering failed: choose a date and time to recover from.');
    setBusy(true);
    try {
      const { queued } = await api.recoverDeliveries(webhookId, from.toISOString());
      announce(`${queued} failed ${queued === 1 ? 'delivery' : 'deliveries'} queued again.`);
      onRecovered();
    } catch (error) {
      const text = errorText(error, 'Recovering the deliveries');
      if (text) announceError(text);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="inline-fields" onSubmit={(event) => void recover(event)} aria-label="Recover failed deliveries">
      <div class="field">
        <label for="recover-since">Failed since</label>
        <input id="recover-since" type="datetime-local" step={1} value={since} onInput={(event) => setSince(event.currentTarget.value)} />
      </div>
      <button type="submit" disabled={busy}>
        Recover failed
      </button>
    </form>
  );
}

function Attempts({ attempts }: { readonly attempts: readonly RestDeliveryAttempt[] }) {
  if (attempts.length === 0) return <span class="muted">none yet</span>;
  return (
    <details>
      <summary>
        {attempts.length} {attempts.length === 1 ? 'attempt' : 'attempts'}
      </summary>
      <ol class="attempts">
        {attempts.map((attempt, i) => (
          <li key={i}>
            {formatDate(attempt.at)}: {attempt.statusCode === 0 ? 'no answer' : `answered ${attempt.statusCode}`} in {attempt.durationMs} ms
            {attempt.error && <span class="sub">{attempt.error}</span>}
            {attempt.response && <pre class="attempt-response">{attempt.response}</pre>}
          </li>
        ))}
      </ol>
    </details>
  );
}

/** `date` as a datetime-local input's value (local time, to the second). */
function localInputValue(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 19);
}

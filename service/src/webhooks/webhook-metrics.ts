import type { AttemptReport, WebhookStore } from '@switchyard/core';
import { CounterFamily, Gauge, HistogramFamily, type Registry } from '@switchyard/runtime';

/** Commit-to-delivery latency buckets, in seconds: from a quick first attempt to a day of retries. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86_400];

/**
 * The relay's metrics: attempts by the state they left their delivery in,
 * deliveries that ended (succeeded or failed), the time from the change's
 * commit to its successful delivery, and the age of the oldest due delivery
 * (deployment-wide, read from the database at each scrape: take `max`).
 */
export function webhookMetrics(registry: Registry, store: WebhookStore, now: () => Date): (report: AttemptReport) => void {
  const attempts = new CounterFamily(registry, {
    name: 'switchyard_webhook_attempts_total',
    help: 'Webhook delivery attempts, by the state they left the delivery in (succeeded, pending: to be retried, failed: given up).',
    labelNames: ['status'],
  });
  const latency = new HistogramFamily(registry, {
    name: 'switchyard_webhook_delivery_latency_seconds',
    help: "From a change's commit to its delivery's 2xx, retries included.",
    buckets: LATENCY_BUCKETS,
  }).cell({});
  new Gauge({
    name: 'switchyard_webhook_oldest_due_seconds',
    help: 'How long the oldest pending webhook delivery has been due (0: none due; deployment-wide, from the database).',
    registers: [registry],
    async collect() {
      try {
        const due = await store.oldestDue();
        this.set(due === undefined ? 0 : Math.max(0, (now().getTime() - due.getTime()) / 1000));
      } catch {
        // /healthz and the store's errors in the log report an outage; a scrape must not fail for it.
      }
    },
  });
  const cells = {
    succeeded: attempts.cell({ status: 'succeeded' }),
    pending: attempts.cell({ status: 'pending' }),
    failed: attempts.cell({ status: 'failed' }),
  };
  return ({ delivery, attempt, status }) => {
    cells[status].value += 1;
    if (status === 'succeeded')
      latency.observe(Math.max(0, attempt.at.getTime() + attempt.durationMs - delivery.delivery.message.createdAt.getTime()) / 1000);
  };
}

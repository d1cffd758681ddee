import { createWebhookRelay, type HostResolver, type TimeSource, type WebhookSettings, type WebhookStore } from '@switchyard/core';
import type { Logger, Registry } from '@switchyard/runtime';
import { webhookMetrics } from './webhook-metrics.js';
import { createHttpWebhookSender } from './http-webhook-sender.js';

export interface RelayHandle {
  close(): Promise<void>;
}

/**
 * Every instance runs the relay: claims keep one delivery with one instance
 * at a time, and pending deliveries left by a stopped instance are due again
 * once its claim lapses. Logs name the endpoint and delivery, never a secret
 * or a header.
 */
export function startWebhookRelay(
  store: WebhookStore,
  settings: WebhookSettings,
  log: Logger,
  time: TimeSource,
  resolve?: HostResolver,
  metrics?: Registry,
): RelayHandle {
  const count = metrics ? webhookMetrics(metrics, store, () => time.now()) : undefined;
  const sender = createHttpWebhookSender({ addresses: settings.addresses, resolve, timers: time });
  const relay = createWebhookRelay({
    store,
    sender,
    time,
    settings,
    onAttempt: (report) => {
      count?.(report);
      const { delivery, attempt, status } = report;
      if (status === 'failed')
        log.warn(
          { webhookId: delivery.endpoint.id, deliveryId: delivery.delivery.id, statusCode: attempt.statusCode, error: attempt.error },
          'webhook delivery failed after its last attempt',
        );
    },
    onError: (error: unknown) =>
      log.warn({ err: error }, 'the webhook relay could not read or record deliveries; it tries again at its next poll'),
  });
  relay.start();
  return {
    async close() {
      await relay.close();
      sender.close();
    },
  };
}

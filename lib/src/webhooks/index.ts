export { WEBHOOK_EVENT_TYPES, MAX_EVENT_FILTERS, eventFiltersOf, matchesEvent } from './event-types.js';
export type { WebhookEventType } from './event-types.js';
export { WEBHOOK_SECRET_PREFIX, newWebhookSecret, webhookSecretKey } from './webhook-secret.js';
export { signWebhook } from './signature.js';
export type { WebhookSignatureHeaders } from './signature.js';
export { DEFAULT_WEBHOOK_RETRY_SCHEDULE, parseRetrySchedule } from './retry-schedule.js';
export {
  MAX_WEBHOOK_URL_LENGTH,
  createAddressPolicy,
  hostAddress,
  parseCidr,
  resolveDestination,
  systemResolver,
  webhookUrlOf,
} from './destination.js';
export type { AddressPolicy, HostResolver, ResolvedAddress } from './destination.js';
export { DEFAULT_WEBHOOK_TIMEOUT_MS, webhookSettingsOf } from './webhook-settings.js';
export type { WebhookSettings, WebhookSettingsInput } from './webhook-settings.js';
export { assetChangeEvent, routeChangeEvent, testEvent, eventBody } from './webhook-events.js';
export { outboxRows, messageOf, newDelivery } from './outbox-rows.js';
export type { OutboxRows } from './outbox-rows.js';
export { DISABLE_AFTER_FAILING_MS, afterAttempt, failingTooLong, retryAfterMs } from './delivery-rules.js';
export type { AttemptResult, AttemptVerdict } from './delivery-rules.js';
export { RESPONSE_EXCERPT_BYTES } from './webhook-sender.js';
export type { WebhookAnswer, WebhookRequest, WebhookSender } from './webhook-sender.js';
export { CLAIM_MARGIN_MS, createWebhookRelay } from './webhook-relay.js';
export { DueSignal } from './due-signal.js';
export { claimRuns, runLengthOf } from './claim-runs.js';
export type { ClaimRuns } from './claim-runs.js';
export type { AttemptReport, WebhookRelay, WebhookRelayOptions } from './webhook-relay.js';
export {
  MAX_WEBHOOKS_PER_WORKSPACE,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  ROTATION_OVERLAP_MS,
  createWebhookService,
  toDelivery,
  toEndpoint,
} from './webhook-service.js';
export type { WebhookServiceParts } from './webhook-service.js';
export type {
  CreateWebhookInput,
  DeliveryListInput,
  DeliveryPage,
  DeliveryView,
  UpdateWebhookInput,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookService,
} from './types.js';

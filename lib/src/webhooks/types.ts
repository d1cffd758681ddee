import type { Principal } from '../auth/principal.js';
import type { DeliveryStatus } from '../ports/webhook-store.js';

/** A webhook endpoint as callers see it: never its secrets. */
export interface WebhookEndpoint {
  readonly id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly description: string;
  readonly enabled: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The answer to create: the endpoint and its secret, shown this once. */
export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  readonly secret: string;
}

export interface CreateWebhookInput {
  readonly url: unknown;
  readonly events: unknown;
  readonly description?: unknown;
}

export interface UpdateWebhookInput {
  readonly url?: unknown;
  readonly events?: unknown;
  readonly description?: unknown;
  readonly enabled?: unknown;
}

export interface DeliveryView {
  readonly id: string;
  readonly webhookId: string;
  /** The `webhook-id` header of every attempt. */
  readonly messageId: string;
  readonly eventType: string;
  readonly status: DeliveryStatus;
  readonly createdAt: Date;
  readonly attempts: readonly {
    readonly at: Date;
    readonly statusCode: number;
    readonly durationMs: number;
    readonly error: string;
    readonly response: string;
  }[];
  /** When the next attempt is due; undefined once final. */
  readonly nextAttemptAt: Date | undefined;
}

export interface DeliveryListInput {
  readonly status?: string | undefined;
  readonly pageSize?: number | undefined;
  readonly pageToken?: string | undefined;
}

export interface DeliveryPage {
  readonly deliveries: readonly DeliveryView[];
  readonly nextPageToken: string;
}

/** Webhook endpoints of the caller's workspace, for `workspace:admin`. */
export interface WebhookService {
  create(principal: Principal, input: CreateWebhookInput): Promise<WebhookEndpointWithSecret>;
  list(principal: Principal): Promise<readonly WebhookEndpoint[]>;
  get(principal: Principal, id: string): Promise<WebhookEndpoint>;
  update(principal: Principal, id: string, input: UpdateWebhookInput): Promise<WebhookEndpoint>;
  delete(principal: Principal, id: string): Promise<void>;
  /** A new secret; the old one keeps signing beside it for ROTATION_OVERLAP_MS. */
  rotateSecret(principal: Principal, id: string): Promise<{ readonly secret: string }>;
  /** Queues a `webhook.test` delivery to this endpoint. */
  test(principal: Principal, id: string): Promise<DeliveryView>;
  listDeliveries(principal: Principal, id: string, input?: DeliveryListInput): Promise<DeliveryPage>;
  resend(principal: Principal, id: string, deliveryId: string): Promise<void>;
  /** Queues again every failed delivery of the endpoint created since `since`; answers how many. */
  recover(principal: Principal, id: string, since: unknown): Promise<{ readonly queued: number }>;
}

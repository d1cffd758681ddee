/** A webhook endpoint as stored, secrets included (they sign; callers never read them back). */
export interface WebhookEndpointRecord {
  readonly id: string;
  readonly workspace: string;
  readonly url: string;
  /** Event types and patterns (`asset.*`, `*`), validated. */
  readonly events: readonly string[];
  readonly description: string;
  readonly enabled: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** `whsec_…`, the current signing secret. */
  readonly secret: string;
  /** The secret before the last rotation, still signing until `previousSecretUntil`. */
  readonly previousSecret: string | undefined;
  readonly previousSecretUntil: Date | undefined;
  /** When the current run of failed attempts began (none: the last attempt succeeded). */
  readonly failingSince: Date | undefined;
}

/** What an update may change; absent fields stay. */
export type WebhookEndpointChanges = Partial<
  Pick<
    WebhookEndpointRecord,
    'url' | 'events' | 'description' | 'enabled' | 'secret' | 'previousSecret' | 'previousSecretUntil' | 'failingSince'
  >
> & { readonly updatedAt: Date };

/** One event to deliver, as the outbox writes it: its body is exactly what is sent. */
export interface WebhookMessage {
  /** `msg_…`: the `webhook-id` of every attempt of every delivery of it. */
  readonly id: string;
  readonly workspace: string;
  readonly type: string;
  /** The JSON body, `{"type", "timestamp", "data"}`, serialized once. */
  readonly body: string;
  readonly createdAt: Date;
}

/** An event of a change, before the outbox gives it an id (see webhook-events.ts). */
export interface WebhookEventDraft {
  readonly type: string;
  readonly time: Date;
  readonly data: Readonly<Record<string, unknown>>;
}

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One try at a delivery. Never holds a secret or a request header. */
export interface DeliveryAttempt {
  readonly at: Date;
  /** The HTTP status answered; 0 when none was (refused, unreachable, timed out). */
  readonly statusCode: number;
  readonly durationMs: number;
  /** Why it failed, in words; `""` on success. */
  readonly error: string;
  /** The start of the answer's body, at most 1 KiB. */
  readonly response: string;
}

/** One message for one endpoint, with its attempts so far. */
export interface DeliveryRecord {
  readonly id: string;
  readonly workspace: string;
  readonly webhookId: string;
  readonly message: WebhookMessage;
  readonly status: DeliveryStatus;
  /** Attempts since it was last queued (the next wait is the schedule's entry at this index, less one). */
  readonly tries: number;
  /** When it is due (pending) or leased until (claimed); undefined once it is final. */
  readonly nextAttemptAt: Date | undefined;
  /** Oldest first. */
  readonly attempts: readonly DeliveryAttempt[];
}

/** A claimed delivery and the endpoint to send it to. */
export interface ClaimedDelivery {
  readonly delivery: DeliveryRecord;
  readonly endpoint: WebhookEndpointRecord;
}

export interface ClaimQuery {
  readonly now: Date;
  /** The claimed deliveries are due again (to any instance) at this time, should this one never finish them. */
  readonly leaseUntil: Date;
  readonly limit: number;
  /** At most this many runs per endpoint, counting `busy`. */
  readonly perEndpoint: number;
  /** Endpoint id → runs this instance is sending to it now. */
  readonly busy: ReadonlyMap<string, number>;
  /**
   * Deliveries per run (1 when unset): a run is up to this many due
   * deliveries of one endpoint, in due order, sent one after another. `limit`
   * counts runs.
   */
  readonly run?: number;
}

/** What an attempt settled: the delivery's state after it. */
export interface AttemptOutcome {
  readonly status: DeliveryStatus;
  readonly tries: number;
  readonly nextAttemptAt: Date | undefined;
}

export interface DeliveryListQuery {
  readonly status?: DeliveryStatus | undefined;
  /** Only deliveries after this id (the page cursor); newest first, so "after" means older. */
  readonly before?: string | undefined;
  readonly limit: number;
}

/**
 * Webhook endpoints and their outbox of deliveries, shared by every instance.
 *
 * Contract:
 * - Endpoint reads and writes see only the given workspace's endpoints;
 *   `listEndpoints` is in id (creation) order. `deleteEndpoint` removes its
 *   deliveries too. An update that sets `enabled: false` turns the
 *   endpoint's pending deliveries `failed` (kept, recoverable).
 * - Deliveries of changes are written by the asset and route stores in the
 *   change's own transaction (`enqueue` of each store's outbox); `addDelivery`
 *   queues one message for one endpoint outside of a change (a test event).
 *   A delivery for a disabled endpoint is written `failed`, never dropped.
 * - `claimDue` takes pending deliveries due at `now`, oldest due first, up to
 *   `limit` and `perEndpoint`, and moves their `nextAttemptAt` to
 *   `leaseUntil`; one delivery is claimed by one caller at a time (on MySQL
 *   with `FOR UPDATE SKIP LOCKED`). A claim whose lease ran out is due again.
 * - `releaseClaims` makes the named deliveries due at `now` again, those
 *   still pending and leased until `leaseUntil` (claimed, then not sent).
 * - `recordAttempt` appends the attempt and sets the outcome, only while the
 *   delivery is pending and leased until `leaseUntil` (else a later claim
 *   owns it and the call changes nothing, answering false).
 * - `listDeliveries` is newest first. `requeue` makes the named delivery
 *   pending and due at `now` with no tries; `recover` does so for every
 *   failed delivery created at or after `since`, answering how many.
 * - `oldestDue` answers the due time of the oldest pending delivery, if any.
 * - `onDue`, where a store has it, tells its listener after a write of this
 *   process made deliveries due now has committed (enqueue's change, a test,
 *   a requeue, a recovery): the relay then sends at once instead of at its
 *   next poll. Writes of other processes are found by polling.
 */
export interface WebhookStore {
  insertEndpoint(record: WebhookEndpointRecord): Promise<void>;
  getEndpoint(workspace: string, id: string): Promise<WebhookEndpointRecord | undefined>;
  listEndpoints(workspace: string): Promise<WebhookEndpointRecord[]>;
  updateEndpoint(workspace: string, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpointRecord | undefined>;
  deleteEndpoint(workspace: string, id: string): Promise<boolean>;
  addDelivery(endpoint: WebhookEndpointRecord, draft: WebhookEventDraft): Promise<DeliveryRecord>;
  claimDue(query: ClaimQuery): Promise<ClaimedDelivery[]>;
  recordAttempt(id: string, leaseUntil: Date, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean>;
  releaseClaims(ids: readonly string[], leaseUntil: Date, now: Date): Promise<void>;
  getDelivery(workspace: string, webhookId: string, id: string): Promise<DeliveryRecord | undefined>;
  listDeliveries(workspace: string, webhookId: string, query: DeliveryListQuery): Promise<DeliveryRecord[]>;
  requeue(workspace: string, webhookId: string, id: string, now: Date): Promise<boolean>;
  recover(workspace: string, webhookId: string, since: Date, now: Date): Promise<number>;
  oldestDue(): Promise<Date | undefined>;
  onDue?(listener: () => void): () => void;
}

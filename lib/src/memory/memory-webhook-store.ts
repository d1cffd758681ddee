import { SwitchyardError } from '../errors.js';
import { createUlidSource, type IdSource } from '../ids.js';
import type {
  AttemptOutcome,
  ClaimQuery,
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryListQuery,
  DeliveryRecord,
  WebhookEndpointChanges,
  WebhookEndpointRecord,
  WebhookEventDraft,
  WebhookStore,
} from '../ports/webhook-store.js';
import { claimRuns } from '../webhooks/claim-runs.js';
import { DueSignal } from '../webhooks/due-signal.js';
import { messageOf, newDelivery, outboxRows } from '../webhooks/outbox-rows.js';

/**
 * WebhookStore in process memory. `enqueue` is synchronous, so the memory
 * asset and route stores call it inside the same step as their write: the
 * change and its deliveries are one.
 */
export class MemoryWebhookStore implements WebhookStore {
  readonly #endpoints = new Map<string, WebhookEndpointRecord>();
  /** In creation order. */
  readonly #deliveries = new Map<string, DeliveryRecord>();
  readonly #ids: IdSource;
  readonly #due = new DueSignal();

  constructor(options: { ids?: IdSource } = {}) {
    this.#ids = options.ids ?? createUlidSource();
  }

  /** The outbox's write: a delivery per (event, endpoint hearing it); called by the stores inside their writes. */
  enqueue(workspace: string, drafts: readonly WebhookEventDraft[]): void {
    const endpoints = [...this.#endpoints.values()].filter((endpoint) => endpoint.workspace === workspace);
    if (endpoints.length === 0) return;
    const { deliveries } = outboxRows(workspace, endpoints, drafts, this.#ids);
    for (const delivery of deliveries) this.#deliveries.set(delivery.id, delivery);
    // The listener only schedules the relay: it reads these after the store's write has returned.
    if (deliveries.some((delivery) => delivery.status === 'pending')) this.#due.notify();
  }

  onDue(listener: () => void): () => void {
    return this.#due.subscribe(listener);
  }

  async insertEndpoint(record: WebhookEndpointRecord): Promise<void> {
    if (this.#endpoints.has(record.id)) throw new SwitchyardError('already_exists', 'webhook id already exists');
    this.#endpoints.set(record.id, Object.freeze({ ...record, events: Object.freeze([...record.events]) }));
  }

  async getEndpoint(workspace: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    const record = this.#endpoints.get(id);
    return record?.workspace === workspace ? record : undefined;
  }

  async listEndpoints(workspace: string): Promise<WebhookEndpointRecord[]> {
    return [...this.#endpoints.values()].filter((record) => record.workspace === workspace).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async updateEndpoint(workspace: string, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpointRecord | undefined> {
    const current = await this.getEndpoint(workspace, id);
    if (!current) return undefined;
    const updated = Object.freeze({ ...current, ...changes, events: Object.freeze([...(changes.events ?? current.events)]) });
    this.#endpoints.set(id, updated);
    if (changes.enabled === false)
      for (const delivery of this.#deliveries.values())
        if (delivery.webhookId === id && delivery.status === 'pending')
          this.#deliveries.set(delivery.id, Object.freeze({ ...delivery, status: 'failed', nextAttemptAt: undefined }));
    return updated;
  }

  async deleteEndpoint(workspace: string, id: string): Promise<boolean> {
    if (!(await this.getEndpoint(workspace, id))) return false;
    this.#endpoints.delete(id);
    for (const delivery of this.#deliveries.values()) if (delivery.webhookId === id) this.#deliveries.delete(delivery.id);
    return true;
  }

  async addDelivery(endpoint: WebhookEndpointRecord, draft: WebhookEventDraft): Promise<DeliveryRecord> {
    const current = this.#endpoints.get(endpoint.id) ?? endpoint;
    const delivery = newDelivery(current, messageOf(endpoint.workspace, draft, this.#ids), this.#ids);
    this.#deliveries.set(delivery.id, delivery);
    if (delivery.status === 'pending') this.#due.notify();
    return delivery;
  }

  async claimDue(query: ClaimQuery): Promise<ClaimedDelivery[]> {
    const due = [...this.#deliveries.values()]
      .filter((delivery) => delivery.status === 'pending' && delivery.nextAttemptAt! <= query.now)
      .sort((a, b) => a.nextAttemptAt!.getTime() - b.nextAttemptAt!.getTime() || (a.id < b.id ? -1 : 1));
    const runs = claimRuns(query);
    const claimed: ClaimedDelivery[] = [];
    for (const delivery of due) {
      const endpoint = this.#endpoints.get(delivery.webhookId);
      if (!endpoint || !runs.take(delivery.webhookId)) continue;
      const leased = Object.freeze({ ...delivery, nextAttemptAt: query.leaseUntil });
      this.#deliveries.set(delivery.id, leased);
      claimed.push({ delivery: leased, endpoint });
    }
    return claimed;
  }

  async recordAttempt(id: string, leaseUntil: Date, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean> {
    const delivery = this.#deliveries.get(id);
    if (delivery?.status !== 'pending' || delivery.nextAttemptAt?.getTime() !== leaseUntil.getTime()) return false;
    this.#deliveries.set(
      id,
      Object.freeze({ ...delivery, ...outcome, attempts: Object.freeze([...delivery.attempts, Object.freeze({ ...attempt })]) }),
    );
    return true;
  }

  async releaseClaims(ids: readonly string[], leaseUntil: Date, now: Date): Promise<void> {
    for (const id of ids) {
      const delivery = this.#deliveries.get(id);
      if (delivery?.status === 'pending' && delivery.nextAttemptAt?.getTime() === leaseUntil.getTime())
        this.#deliveries.set(id, Object.freeze({ ...delivery, nextAttemptAt: now }));
    }
  }

  async getDelivery(workspace: string, webhookId: string, id: string): Promise<DeliveryRecord | undefined> {
    const delivery = this.#deliveries.get(id);
    return delivery?.workspace === workspace && delivery.webhookId === webhookId ? delivery : undefined;
  }

  async listDeliveries(workspace: string, webhookId: string, query: DeliveryListQuery): Promise<DeliveryRecord[]> {
    return [...this.#deliveries.values()]
      .filter(
        (delivery) =>
          delivery.workspace === workspace &&
          delivery.webhookId === webhookId &&
          (query.status === undefined || delivery.status === query.status) &&
          (query.before === undefined || delivery.id < query.before),
      )
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .slice(0, query.limit);
  }

  async requeue(workspace: string, webhookId: string, id: string, now: Date): Promise<boolean> {
    const delivery = await this.getDelivery(workspace, webhookId, id);
    if (!delivery) return false;
    this.#deliveries.set(id, Object.freeze({ ...delivery, status: 'pending', tries: 0, nextAttemptAt: now }));
    this.#due.notify();
    return true;
  }

  async recover(workspace: string, webhookId: string, since: Date, now: Date): Promise<number> {
    let queued = 0;
    for (const delivery of this.#deliveries.values())
      if (
        delivery.workspace === workspace &&
        delivery.webhookId === webhookId &&
        delivery.status === 'failed' &&
        delivery.message.createdAt >= since
      ) {
        this.#deliveries.set(delivery.id, Object.freeze({ ...delivery, status: 'pending', tries: 0, nextAttemptAt: now }));
        queued++;
      }
    if (queued > 0) this.#due.notify();
    return queued;
  }

  async oldestDue(): Promise<Date | undefined> {
    let oldest: Date | undefined;
    for (const delivery of this.#deliveries.values())
      if (delivery.status === 'pending' && (oldest === undefined || delivery.nextAttemptAt! < oldest)) oldest = delivery.nextAttemptAt;
    return oldest;
  }
}

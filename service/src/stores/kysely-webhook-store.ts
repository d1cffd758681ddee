import { type Kysely, type Selectable, type Transaction } from 'kysely';
import {
  claimRuns,
  createUlidSource,
  runLengthOf,
  DueSignal,
  outboxRows,
  messageOf,
  newDelivery,
  SwitchyardError,
  type AttemptOutcome,
  type ClaimQuery,
  type ClaimedDelivery,
  type DeliveryAttempt,
  type DeliveryListQuery,
  type DeliveryRecord,
  type DeliveryStatus,
  type IdSource,
  type WebhookEndpointChanges,
  type WebhookEndpointRecord,
  type WebhookEventDraft,
  type WebhookMessage,
  type WebhookStore,
} from '@switchyard/core';
import { dialectOf } from './database.js';
import { directWriterOf, relaxedCommits, type WriteNow } from './sqlite-write-now.js';
import { preparedStatement } from './prepared-query.js';
import { databaseError } from './database-errors.js';
import { retryingDeadlocks } from './workspace-revision.js';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable, WebhookMessagesTable } from './schema.js';

type EndpointRow = Selectable<WebhookEndpointsTable>;
type DeliveryRow = Selectable<WebhookDeliveriesTable>;
type Executor = Kysely<Database> | Transaction<Database>;

/** The columns of an attempt's row, in the order recordAttempt's prepared insert takes them. */
const ATTEMPT_COLUMNS = ['delivery_id', 'seq', 'at', 'status_code', 'duration_ms', 'error', 'response'] as const;

/**
 * recordAttempt on SQLite, run directly (sqlite-write-now.ts): the delivery
 * marked if this claim still holds it, then its attempt appended after the
 * last one (seq 0 for the first).
 */
const MARK_ATTEMPTED_SQL =
  'update "webhook_deliveries" set "status" = ?, "tries" = ?, "next_attempt_at" = ? where "id" = ? and "status" = \'pending\' and "next_attempt_at" = ?';
const APPEND_ATTEMPT_SQL =
  'insert into "webhook_attempts" ("delivery_id", "seq", "at", "status_code", "duration_ms", "error", "response") ' +
  'select ?, coalesce(max("seq") + 1, 0), ?, ?, ?, ?, ? from "webhook_attempts" where "delivery_id" = ?';

/** Outbox rows per INSERT. */
const ROWS_PER_STATEMENT = 500;

/** Due deliveries read per claim beyond its limit, so endpoints at their cap do not starve the others. */
const CLAIM_OVERREAD = 4;

/**
 * WebhookStore on MySQL or SQLite. `enqueue` runs inside the asset and route
 * stores' write transactions (the outbox): the change, its messages and its
 * deliveries commit or roll back together. Claims on MySQL lock the rows
 * they take with FOR UPDATE SKIP LOCKED, so instances never take the same
 * delivery; SQLite has one writer.
 */
export class KyselyWebhookStore implements WebhookStore {
  readonly #db: Kysely<Database>;
  readonly #ids: IdSource;
  readonly #mysql: boolean;
  /** Prepared once: every asset and route write asks it, inside its transaction. */
  readonly #endpointsOf;
  /** recordAttempt's statements on MySQL, prepared once: the relay runs them for every delivery it sends (webhook-delivery). */
  readonly #markAttempted;
  readonly #lastAttemptSeq;
  readonly #insertAttempt;
  /** SQLite's direct path for recordAttempt; undefined on MySQL. */
  readonly #writeNow: WriteNow | undefined;
  readonly #due = new DueSignal();

  constructor(db: Kysely<Database>, options: { ids?: IdSource } = {}) {
    this.#db = db;
    this.#ids = options.ids ?? createUlidSource();
    this.#mysql = dialectOf(db) === 'mysql';
    this.#writeNow = directWriterOf(db);
    this.#endpointsOf = preparedStatement<Database, EndpointRow, [string]>(
      (workspace) => db.selectFrom('webhook_endpoints').selectAll().where('workspace', '=', workspace),
      ['\0workspace'],
    );
    this.#markAttempted = preparedStatement<Database, unknown, [string, number, number | null, string, string, number]>(
      (status, tries, nextAttemptAt, id, pending, leaseUntil) =>
        db
          .updateTable('webhook_deliveries')
          .set({ status, tries, next_attempt_at: nextAttemptAt })
          .where('id', '=', id)
          .where('status', '=', pending)
          .where('next_attempt_at', '=', leaseUntil),
      // Sentinels (prepared-query.ts): values no other parameter has, strings in the numbers' places too.
      ['\0status', '\0tries', '\0next', '\0id', '\0pending', '\0lease'] as unknown as [
        string,
        number,
        number | null,
        string,
        string,
        number,
      ],
    );
    this.#lastAttemptSeq = preparedStatement<Database, { seq: number | null }, [string]>(
      (id) =>
        db
          .selectFrom('webhook_attempts')
          .select((eb) => eb.fn.max('seq').as('seq'))
          .where('delivery_id', '=', id),
      ['\0id'],
    );
    this.#insertAttempt = preparedStatement<Database, unknown, unknown[]>(
      (...values) =>
        db.insertInto('webhook_attempts').values(Object.fromEntries(ATTEMPT_COLUMNS.map((column, i) => [column, values[i]])) as never),
      ATTEMPT_COLUMNS.map((column) => `\0${column}`),
    );
  }

  /** The outbox's write, inside the change's transaction: nothing when no endpoint of the workspace hears these events. */
  async enqueue(trx: Transaction<Database>, workspace: string, drafts: () => readonly WebhookEventDraft[]): Promise<boolean> {
    const { rows } = await this.#endpointsOf(trx, workspace);
    if (rows.length === 0) return false;
    const { messages, deliveries } = outboxRows(workspace, rows.map(endpointOf), drafts(), this.#ids);
    if (messages.length === 0) return false;
    // In runs, so a 5,000-route apply to several endpoints stays within a statement's placeholders.
    for (let start = 0; start < messages.length; start += ROWS_PER_STATEMENT)
      await trx
        .insertInto('webhook_messages')
        .values(messages.slice(start, start + ROWS_PER_STATEMENT).map(messageRow))
        .execute();
    for (let start = 0; start < deliveries.length; start += ROWS_PER_STATEMENT)
      await trx
        .insertInto('webhook_deliveries')
        .values(deliveries.slice(start, start + ROWS_PER_STATEMENT).map(deliveryRow))
        .execute();
    return deliveries.some((delivery) => delivery.status === 'pending');
  }

  committed(): void {
    this.#due.notify();
  }

  onDue(listener: () => void): () => void {
    return this.#due.subscribe(listener);
  }

  async insertEndpoint(record: WebhookEndpointRecord): Promise<void> {
    try {
      await this.#db.insertInto('webhook_endpoints').values(endpointRow(record)).execute();
    } catch (error) {
      throw databaseError(error, () => new SwitchyardError('already_exists', 'webhook id already exists', [], { cause: error }));
    }
  }

  async getEndpoint(workspace: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    return this.#run(async () => {
      const row = await this.#endpointRow(this.#db, workspace, id);
      return row && endpointOf(row);
    });
  }

  async listEndpoints(workspace: string): Promise<WebhookEndpointRecord[]> {
    return this.#run(async () => {
      const rows = await this.#db.selectFrom('webhook_endpoints').selectAll().where('workspace', '=', workspace).orderBy('id').execute();
      return rows.map(endpointOf);
    });
  }

  async updateEndpoint(workspace: string, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpointRecord | undefined> {
    return this.#run(() =>
      this.#db.transaction().execute(async (trx) => {
        const set: Partial<WebhookEndpointsTable> = { updated_at: changes.updatedAt.getTime() };
        if (changes.url !== undefined) set.url = changes.url;
        if (changes.events !== undefined) set.events = JSON.stringify(changes.events);
        if (changes.description !== undefined) set.description = changes.description;
        if (changes.enabled !== undefined) set.enabled = changes.enabled ? 1 : 0;
        if (changes.secret !== undefined) set.secret = changes.secret;
        if ('previousSecret' in changes) set.previous_secret = changes.previousSecret ?? null;
        if ('previousSecretUntil' in changes) set.previous_secret_until = changes.previousSecretUntil?.getTime() ?? null;
        if ('failingSince' in changes) set.failing_since = changes.failingSince?.getTime() ?? null;
        const result = await trx
          .updateTable('webhook_endpoints')
          .set(set)
          .where('id', '=', id)
          .where('workspace', '=', workspace)
          .executeTakeFirst();
        if (result.numUpdatedRows === 0n) return undefined;
        if (changes.enabled === false)
          await trx
            .updateTable('webhook_deliveries')
            .set({ status: 'failed', next_attempt_at: null })
            .where('webhook_id', '=', id)
            .where('status', '=', 'pending')
            .execute();
        const row = await this.#endpointRow(trx, workspace, id);
        return row && endpointOf(row);
      }),
    );
  }

  async deleteEndpoint(workspace: string, id: string): Promise<boolean> {
    return this.#run(() =>
      this.#db.transaction().execute(async (trx) => {
        const result = await trx.deleteFrom('webhook_endpoints').where('id', '=', id).where('workspace', '=', workspace).executeTakeFirst();
        if (result.numDeletedRows === 0n) return false;
        await trx
          .deleteFrom('webhook_attempts')
          .where('delivery_id', 'in', trx.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', id))
          .execute();
        const messages = trx.selectFrom('webhook_deliveries').select('message_id').where('webhook_id', '=', id);
        const held = (await messages.execute()).map((row) => row.message_id);
        await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
        // A message is kept while another endpoint still has a delivery of it.
        for (let start = 0; start < held.length; start += 500) {
          const chunk = held.slice(start, start + 500);
          await trx
            .deleteFrom('webhook_messages')
            .where('id', 'in', chunk)
            .where(({ not, exists, selectFrom }) =>
              not(
                exists(
                  selectFrom('webhook_deliveries as other').select('other.id').whereRef('other.message_id', '=', 'webhook_messages.id'),
                ),
              ),
            )
            .execute();
        }
        return true;
      }),
    );
  }

  async addDelivery(endpoint: WebhookEndpointRecord, draft: WebhookEventDraft): Promise<DeliveryRecord> {
    return this.#run(() =>
      this.#db.transaction().execute(async (trx) => {
        const row = await this.#endpointRow(trx, endpoint.workspace, endpoint.id);
        const message = messageOf(endpoint.workspace, draft, this.#ids);
        const delivery = newDelivery(row ? endpointOf(row) : endpoint, message, this.#ids);
        await trx.insertInto('webhook_messages').values(messageRow(message)).execute();
        await trx.insertInto('webhook_deliveries').values(deliveryRow(delivery)).execute();
        return delivery;
      }),
    ).then((delivery) => {
      if (delivery.status === 'pending') this.#due.notify();
      return delivery;
    });
  }

  async claimDue(query: ClaimQuery): Promise<ClaimedDelivery[]> {
    if (query.limit <= 0) return [];
    // A claim lost to a power cut only makes its deliveries due again: no flush needed either.
    return this.#run(() =>
      relaxedCommits(this.#db, (db) =>
        db.transaction().execute(async (trx) => {
          let select = trx
            .selectFrom('webhook_deliveries')
            .select(['id', 'webhook_id'])
            .where('status', '=', 'pending')
            .where('next_attempt_at', '<=', query.now.getTime())
            .orderBy('next_attempt_at')
            .orderBy('id')
            .limit(query.limit * runLengthOf(query) * CLAIM_OVERREAD);
          if (this.#mysql) select = select.forUpdate().skipLocked();
          const due = await select.execute();
          if (due.length === 0) return [];
          const endpoints = new Map<string, WebhookEndpointRecord>();
          const wanted = [...new Set(due.map((row) => row.webhook_id))];
          for (const row of await trx.selectFrom('webhook_endpoints').selectAll().where('id', 'in', wanted).execute())
            endpoints.set(row.id, endpointOf(row));
          const runs = claimRuns(query);
          const chosen: string[] = [];
          for (const row of due) if (endpoints.get(row.webhook_id)?.enabled && runs.take(row.webhook_id)) chosen.push(row.id);
          if (chosen.length === 0) return [];
          await trx
            .updateTable('webhook_deliveries')
            .set({ next_attempt_at: query.leaseUntil.getTime() })
            .where('id', 'in', chosen)
            .execute();
          const records = await this.#deliveries(trx, trx.selectFrom('webhook_deliveries').selectAll().where('id', 'in', chosen).execute());
          const byId = new Map(records.map((record) => [record.id, record]));
          return chosen.map((id) => {
            const delivery = byId.get(id)!;
            return { delivery, endpoint: endpoints.get(delivery.webhookId)! };
          });
        }),
      ),
    );
  }

  async recordAttempt(id: string, leaseUntil: Date, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean> {
    const writeNow = this.#writeNow;
    // A record lost to a power cut sends the delivery again: no flush (relaxedCommits).
    if (writeNow !== undefined)
      return this.#run(() =>
        writeNow((prepare) => {
          const marked = prepare(MARK_ATTEMPTED_SQL).run(
            outcome.status,
            outcome.tries,
            outcome.nextAttemptAt?.getTime() ?? null,
            id,
            leaseUntil.getTime(),
          );
          if (marked.changes === 0) return false;
          const { at, statusCode, durationMs, error, response } = attempt;
          prepare(APPEND_ATTEMPT_SQL).run(id, at.getTime(), statusCode, boundedDuration(durationMs), error.slice(0, 1024), response, id);
          return true;
        }),
      );
    // MySQL: the same statements through Kysely, flushed as the server is configured.
    return this.#run(() =>
      this.#db.transaction().execute(async (trx) => {
        const result = await this.#markAttempted(
          trx,
          outcome.status,
          outcome.tries,
          outcome.nextAttemptAt?.getTime() ?? null,
          id,
          'pending',
          leaseUntil.getTime(),
        );
        if (!result.numAffectedRows) return false;
        const last = (await this.#lastAttemptSeq(trx, id)).rows[0]?.seq;
        const row: Record<(typeof ATTEMPT_COLUMNS)[number], unknown> = {
          delivery_id: id,
          seq: last === null || last === undefined ? 0 : Number(last) + 1,
          at: attempt.at.getTime(),
          status_code: attempt.statusCode,
          duration_ms: boundedDuration(attempt.durationMs),
          error: attempt.error.slice(0, 1024),
          response: attempt.response,
        };
        await this.#insertAttempt(trx, ...ATTEMPT_COLUMNS.map((column) => row[column]));
        return true;
      }),
    );
  }

  async releaseClaims(ids: readonly string[], leaseUntil: Date, now: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.#run(async () => {
      const result = await this.#db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: now.getTime() })
        .where('id', 'in', [...ids])
        .where('status', '=', 'pending')
        .where('next_attempt_at', '=', leaseUntil.getTime())
        .executeTakeFirst();
      if (result.numUpdatedRows > 0n) this.#due.notify();
    });
  }

  async getDelivery(workspace: string, webhookId: string, id: string): Promise<DeliveryRecord | undefined> {
    return this.#run(async () => {
      const rows = this.#db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .where('webhook_id', '=', webhookId)
        .execute();
      return (await this.#deliveries(this.#db, rows))[0];
    });
  }

  async listDeliveries(workspace: string, webhookId: string, query: DeliveryListQuery): Promise<DeliveryRecord[]> {
    return this.#run(async () => {
      let select = this.#db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .where('workspace', '=', workspace);
      if (query.status !== undefined) select = select.where('status', '=', query.status);
      if (query.before !== undefined) select = select.where('id', '<', query.before);
      return this.#deliveries(this.#db, select.orderBy('id', 'desc').limit(query.limit).execute());
    });
  }

  async requeue(workspace: string, webhookId: string, id: string, now: Date): Promise<boolean> {
    return this.#run(async () => {
      const result = await this.#db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', tries: 0, next_attempt_at: now.getTime() })
        .where('id', '=', id)
        .where('workspace', '=', workspace)
        .where('webhook_id', '=', webhookId)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      this.#due.notify();
      return true;
    });
  }

  async recover(workspace: string, webhookId: string, since: Date, now: Date): Promise<number> {
    return this.#run(async () => {
      const result = await this.#db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', tries: 0, next_attempt_at: now.getTime() })
        .where('webhook_id', '=', webhookId)
        .where('workspace', '=', workspace)
        .where('status', '=', 'failed')
        .where('created_at', '>=', since.getTime())
        .executeTakeFirst();
      const queued = Number(result.numUpdatedRows);
      if (queued > 0) this.#due.notify();
      return queued;
    });
  }

  async oldestDue(): Promise<Date | undefined> {
    return this.#run(async () => {
      const row = await this.#db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.min('next_attempt_at').as('due'))
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return row?.due === null || row?.due === undefined ? undefined : new Date(Number(row.due));
    });
  }

  #endpointRow(db: Executor, workspace: string, id: string): Promise<EndpointRow | undefined> {
    return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).where('workspace', '=', workspace).executeTakeFirst();
  }

  /** The delivery rows with their messages and attempts, in the rows' order. */
  async #deliveries(db: Executor, pending: Promise<DeliveryRow[]>): Promise<DeliveryRecord[]> {
    const rows = await pending;
    if (rows.length === 0) return [];
    const messageIds = [...new Set(rows.map((row) => row.message_id))];
    const messages = new Map<string, WebhookMessage>();
    for (const row of await db.selectFrom('webhook_messages').selectAll().where('id', 'in', messageIds).execute())
      messages.set(row.id, messageFromRow(row));
    const attempts = new Map<string, DeliveryAttempt[]>();
    const attemptRows = await db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'delivery_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('delivery_id')
      .orderBy('seq')
      .execute();
    for (const row of attemptRows) {
      let list = attempts.get(row.delivery_id);
      if (!list) attempts.set(row.delivery_id, (list = []));
      list.push(
        Object.freeze({
          at: new Date(Number(row.at)),
          statusCode: Number(row.status_code),
          durationMs: Number(row.duration_ms),
          error: row.error,
          response: row.response,
        }),
      );
    }
    return rows.map((row) =>
      Object.freeze({
        id: row.id,
        workspace: row.workspace,
        webhookId: row.webhook_id,
        message: messages.get(row.message_id)!,
        status: row.status as DeliveryStatus,
        tries: Number(row.tries),
        nextAttemptAt: row.next_attempt_at === null ? undefined : new Date(Number(row.next_attempt_at)),
        attempts: Object.freeze(attempts.get(row.id) ?? []),
      }),
    );
  }

  /**
   * Runs `work` (one transaction), again when MySQL chose it as a deadlock's
   * victim: a claim's row locks meet the outbox inserts of changes committing
   * beside it (seen as a lost claim in the conformance suite).
   */
  async #run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await retryingDeadlocks(work);
    } catch (error) {
      throw databaseError(error);
    }
  }
}

function endpointRow(record: WebhookEndpointRecord): WebhookEndpointsTable {
  return {
    id: record.id,
    workspace: record.workspace,
    url: record.url,
    events: JSON.stringify(record.events),
    description: record.description,
    enabled: record.enabled ? 1 : 0,
    created_at: record.createdAt.getTime(),
    updated_at: record.updatedAt.getTime(),
    secret: record.secret,
    previous_secret: record.previousSecret ?? null,
    previous_secret_until: record.previousSecretUntil?.getTime() ?? null,
    failing_since: record.failingSince?.getTime() ?? null,
  };
}

function endpointOf(row: EndpointRow): WebhookEndpointRecord {
  return Object.freeze({
    id: row.id,
    workspace: row.workspace,
    url: row.url,
    events: Object.freeze(JSON.parse(row.events) as string[]),
    description: row.description,
    enabled: Number(row.enabled) === 1,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    secret: row.secret,
    previousSecret: row.previous_secret ?? undefined,
    previousSecretUntil: row.previous_secret_until === null ? undefined : new Date(Number(row.previous_secret_until)),
    failingSince: row.failing_since === null ? undefined : new Date(Number(row.failing_since)),
  });
}

function messageRow(message: WebhookMessage): WebhookMessagesTable {
  return { id: message.id, workspace: message.workspace, type: message.type, body: message.body, created_at: message.createdAt.getTime() };
}

function messageFromRow(row: Selectable<WebhookMessagesTable>): WebhookMessage {
  return Object.freeze({
    id: row.id,
    workspace: row.workspace,
    type: row.type,
    body: row.body,
    createdAt: new Date(Number(row.created_at)),
  });
}

function deliveryRow(delivery: DeliveryRecord): WebhookDeliveriesTable {
  return {
    id: delivery.id,
    workspace: delivery.workspace,
    webhook_id: delivery.webhookId,
    message_id: delivery.message.id,
    status: delivery.status,
    tries: delivery.tries,
    next_attempt_at: delivery.nextAttemptAt?.getTime() ?? null,
    created_at: delivery.message.createdAt.getTime(),
  };
}

/** An attempt's duration as its INTEGER column holds it. */
const boundedDuration = (durationMs: number): number => Math.min(durationMs, 2_147_483_647);

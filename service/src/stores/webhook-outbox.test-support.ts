import type { Kysely, Transaction } from 'kysely';
import type { ExecutionContext } from 'ava';
import { sampleAsset, sampleEndpoint, sampleRoute, uniqueName } from '@switchyard/core/testing';
import type { WebhookEventDraft } from '@switchyard/core';
import { KyselyAssetStore } from './kysely-asset-store.js';
import type { KyselyOutbox } from './kysely-outbox.js';
import { KyselyRouteStore } from './kysely-route-store.js';
import { KyselyWebhookStore } from './kysely-webhook-store.js';
import type { Database } from './schema.js';

/** The outbox's own rows, then a failure later in the same transaction: the change must roll back with them. */
class FailingAfterOutbox implements KyselyOutbox {
  /** Wakes asked for: a rolled-back write must ask none. */
  wakes = 0;
  constructor(readonly inner: KyselyWebhookStore) {}
  async enqueue(trx: Transaction<Database>, workspace: string, drafts: () => readonly WebhookEventDraft[]): Promise<boolean> {
    await this.inner.enqueue(trx, workspace, drafts);
    throw new Error('the transaction fails after the outbox wrote');
  }
  committed(): void {
    this.wakes += 1;
  }
}

/**
 * A write whose transaction fails after its deliveries were written leaves
 * neither the change nor a delivery, on assets and routes alike; the same
 * writes through the real outbox leave both.
 */
export async function rolledBackWritesQueueNothing(t: ExecutionContext, db: Kysely<Database>): Promise<void> {
  const webhooks = new KyselyWebhookStore(db);
  const workspace = uniqueName();
  const endpoint = sampleEndpoint(workspace);
  await webhooks.insertEndpoint(endpoint);
  const failing = new FailingAfterOutbox(webhooks);
  const author = { actor: 'a', time: new Date('2025-01-01T00:00:00Z') };
  const asset = sampleAsset(workspace);
  const route = sampleRoute(workspace);
  await t.throwsAsync(new KyselyAssetStore(db, { outbox: failing }).insert(asset, author));
  await t.throwsAsync(new KyselyRouteStore(db, { outbox: failing }).insert(route, author));
  t.is(await new KyselyAssetStore(db).get(workspace, asset.id), undefined, 'the asset rolled back');
  t.is(await new KyselyRouteStore(db).get(workspace, route.id), undefined, 'the route rolled back');
  t.deepEqual(await webhooks.listDeliveries(workspace, endpoint.id, { limit: 10 }), [], 'and so did their deliveries');
  t.is(failing.wakes, 0, 'and no relay was woken for them');
  const countMessages = async () =>
    Number(
      (
        await db
          .selectFrom('webhook_messages')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('workspace', '=', workspace)
          .executeTakeFirstOrThrow()
      ).n,
    );
  t.is(await countMessages(), 0);

  await new KyselyAssetStore(db, { outbox: webhooks }).insert(asset, author);
  await new KyselyRouteStore(db, { outbox: webhooks }).insert(route, author);
  const kept = await webhooks.listDeliveries(workspace, endpoint.id, { limit: 10 });
  t.deepEqual(kept.map((delivery) => delivery.message.type).reverse(), ['asset.created', 'route.created']);
  t.is(await countMessages(), 2);
}

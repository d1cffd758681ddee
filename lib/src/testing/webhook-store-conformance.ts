import type { AssetStore, ChangeAuthor } from '../ports/index.js';
import type { RouteStore } from '../ports/route-store.js';
import type { DeliveryRecord, WebhookEndpointRecord, WebhookStore } from '../ports/webhook-store.js';
import { createUlidSource } from '../ids.js';
import { testEvent } from '../webhooks/webhook-events.js';
import { sampleAsset } from './asset-samples.js';
import { defineCase, uniqueName, type ConformanceOptions, type RegisterTest } from './conformance.js';
import { sampleRoute } from './route-samples.js';

/** A webhook store and the asset and route stores that write its outbox in their transactions. */
export interface WebhookStores {
  readonly webhooks: WebhookStore;
  readonly assets: AssetStore;
  readonly routes: RouteStore;
}

const ids = createUlidSource();
const BASE = Date.parse('2025-03-04T05:06:07.089Z');
const at = (ms: number): Date => new Date(BASE + ms);
const author = (ms: number): ChangeAuthor => ({ actor: 'alice', time: at(ms) });

/** An enabled endpoint of `workspace` hearing `events`. */
export function sampleEndpoint(workspace: string, overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    id: ids.next('webhook'),
    workspace,
    url: 'https://hooks.example.com/in',
    events: ['*'],
    description: 'Search index – ✓',
    enabled: true,
    createdAt: at(0),
    updatedAt: at(0),
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    previousSecret: undefined,
    previousSecretUntil: undefined,
    failingSince: undefined,
    ...overrides,
  };
}

const iso = (date: Date | undefined) => date?.toISOString();
function endpointView(record: WebhookEndpointRecord | undefined): unknown {
  return (
    record && {
      ...record,
      events: [...record.events],
      createdAt: iso(record.createdAt),
      updatedAt: iso(record.updatedAt),
      previousSecretUntil: iso(record.previousSecretUntil),
      failingSince: iso(record.failingSince),
    }
  );
}
const typesOf = (deliveries: readonly DeliveryRecord[]) => deliveries.map((delivery) => delivery.message.type);
const all = (store: WebhookStore, workspace: string, webhookId: string) => store.listDeliveries(workspace, webhookId, { limit: 1000 });

/** Registers the WebhookStore contract tests (see `ports/webhook-store.ts`), with the outbox written by the asset and route stores. */
export function webhookStoreConformance(test: RegisterTest, options: ConformanceOptions<WebhookStores>): void {
  const name = 'WebhookStore';

  defineCase(test, options, `${name}: endpoints are read, listed, updated and deleted within their workspace`, async (t, { webhooks }) => {
    const workspace = uniqueName();
    const first = sampleEndpoint(workspace, { events: ['asset.*', 'route.deleted'] });
    const second = sampleEndpoint(workspace, { url: 'http://127.0.0.1:9/x?y=1', description: '' });
    await webhooks.insertEndpoint(first);
    await webhooks.insertEndpoint(second);
    t.deepEqual(endpointView(await webhooks.getEndpoint(workspace, first.id)), endpointView(first));
    t.is(await webhooks.getEndpoint(uniqueName(), first.id), undefined);
    t.deepEqual((await webhooks.listEndpoints(workspace)).map(endpointView), [first, second].map(endpointView));
    t.deepEqual(await webhooks.listEndpoints(uniqueName()), []);
    t.is(await webhooks.updateEndpoint(uniqueName(), first.id, { enabled: false, updatedAt: at(1) }), undefined);
    const rotated = await webhooks.updateEndpoint(workspace, first.id, {
      events: ['*'],
      secret: 'whsec_bmV3',
      previousSecret: first.secret,
      previousSecretUntil: at(86_400_000),
      failingSince: at(5),
      updatedAt: at(10),
    });
    t.deepEqual(
      endpointView(rotated),
      endpointView({
        ...first,
        events: ['*'],
        secret: 'whsec_bmV3',
        previousSecret: first.secret,
        previousSecretUntil: at(86_400_000),
        failingSince: at(5),
        updatedAt: at(10),
      }),
    );
    const cleared = await webhooks.updateEndpoint(workspace, first.id, { failingSince: undefined, updatedAt: at(11) });
    t.is(cleared?.failingSince, undefined, 'an explicit undefined clears the field');
    t.is(cleared?.previousSecret, first.secret, 'absent fields stay');
    t.true(await webhooks.deleteEndpoint(workspace, first.id));
    t.false(await webhooks.deleteEndpoint(workspace, first.id));
    t.deepEqual(
      (await webhooks.listEndpoints(workspace)).map((record) => record.id),
      [second.id],
    );
  });

  defineCase(
    test,
    options,
    `${name}: every committed asset and route change is queued for each endpoint hearing it, in order, with its exact body`,
    async (t, stores) => {
      const workspace = uniqueName();
      const everything = sampleEndpoint(workspace, { events: ['*'] });
      const assetsOnly = sampleEndpoint(workspace, { events: ['asset.*'] });
      const deletesOnly = sampleEndpoint(workspace, { events: ['asset.deleted', 'route.deleted'] });
      const elsewhere = sampleEndpoint(uniqueName(), { events: ['*'] });
      for (const endpoint of [everything, assetsOnly, deletesOnly, elsewhere]) await stores.webhooks.insertEndpoint(endpoint);

      const one = sampleAsset(workspace);
      const two = sampleAsset(workspace);
      await stores.assets.insert(one, author(1));
      await stores.assets.insert(two, author(2));
      await stores.assets.update(workspace, one.id, { name: 'renamed.png' }, author(3));
      await stores.assets.deleteMany(workspace, [two.id, one.id], author(4));
      const route = sampleRoute(workspace);
      await stores.routes.insert(route, { actor: 'bob', time: at(5) });
      await stores.routes.delete(workspace, route.id, { actor: 'bob', time: at(6) });

      const oldestFirst = async (id: string) => (await all(stores.webhooks, workspace, id)).reverse();
      const heard = await oldestFirst(everything.id);
      t.deepEqual(typesOf(heard), [
        'asset.created',
        'asset.created',
        'asset.updated',
        'asset.deleted',
        'asset.deleted',
        'route.created',
        'route.deleted',
      ]);
      t.deepEqual(typesOf(await oldestFirst(assetsOnly.id)), [
        'asset.created',
        'asset.created',
        'asset.updated',
        'asset.deleted',
        'asset.deleted',
      ]);
      const deletes = await oldestFirst(deletesOnly.id);
      t.deepEqual(typesOf(deletes), ['asset.deleted', 'asset.deleted', 'route.deleted']);
      t.deepEqual(await all(stores.webhooks, elsewhere.workspace, elsewhere.id), [], "another workspace's endpoint hears nothing");

      for (const delivery of heard) {
        t.is(delivery.status, 'pending');
        t.is(delivery.tries, 0);
        t.deepEqual(delivery.attempts, []);
        t.is(delivery.webhookId, everything.id);
        t.truthy(/^msg_/.test(delivery.message.id));
      }
      t.deepEqual(
        heard.map((delivery) => iso(delivery.nextAttemptAt)),
        [1, 2, 3, 4, 4, 5, 6].map((ms) => iso(at(ms))),
        'due at once: at the time of the change',
      );
      // One message per event, shared by every endpoint that hears it (one webhook-id for all).
      t.is(deletes[0]!.message.id, heard[3]!.message.id);
      t.is(deletes[0]!.message.body, heard[3]!.message.body);
      const created = JSON.parse(heard[0]!.message.body) as { type: string; timestamp: string; data: Record<string, unknown> };
      t.deepEqual(Object.keys(created), ['type', 'timestamp', 'data']);
      t.is(created.type, 'asset.created');
      t.is(created.timestamp, iso(at(1)));
      t.is(created.data.workspace, workspace);
      t.is(created.data.revision, 1);
      t.is((created.data.asset as { id: string }).id, one.id);
      const batch = heard.slice(3, 5).map((delivery) => JSON.parse(delivery.message.body) as { data: Record<string, unknown> });
      t.deepEqual(
        batch.map((body) => [body.data.id, body.data.revision]),
        [
          [two.id, 4],
          [one.id, 4],
        ],
        'a batch delete: one event per asset, in the order deleted, at one revision',
      );
      const routeCreated = JSON.parse(heard[5]!.message.body) as { data: Record<string, unknown> };
      t.is((routeCreated.data.route as { id: string }).id, route.id);
      t.is(routeCreated.data.revision, 1);
      t.deepEqual((JSON.parse(heard[6]!.message.body) as { data: unknown }).data, { workspace, revision: 2, actor: 'bob', id: route.id });
    },
  );

  defineCase(
    test,
    options,
    `${name}: a refused write queues nothing; a workspace without endpoints writes no outbox rows`,
    async (t, stores) => {
      const workspace = uniqueName();
      const endpoint = sampleEndpoint(workspace);
      await stores.webhooks.insertEndpoint(endpoint);
      const asset = sampleAsset(workspace);
      await stores.assets.insert(asset, author(1));
      await t.throwsAsync(stores.assets.insert(asset, author(2)), 'a duplicate id is refused');
      t.is(await stores.assets.update(workspace, sampleAsset(workspace).id, { name: 'x' }, author(3)), undefined);
      const route = sampleRoute(workspace);
      await stores.routes.insert(route, { actor: 'a', time: at(4) });
      await t.throwsAsync(
        stores.routes.insert({ ...sampleRoute(workspace), path: route.path, shape: route.shape }, { actor: 'a', time: at(5) }),
      );
      await t.throwsAsync(
        stores.routes.applyRevision({
          workspace,
          delete: [route.id],
          update: [],
          create: [],
          expectedRevision: 7,
          origin: { actor: 'a', time: at(6) },
        }),
      );
      t.deepEqual(typesOf((await all(stores.webhooks, workspace, endpoint.id)).reverse()), ['asset.created', 'route.created']);
    },
  );

  defineCase(
    test,
    options,
    `${name}: a disabled endpoint's events are kept as failed deliveries; disabling fails what was pending; recover and resend queue again`,
    async (t, stores) => {
      const workspace = uniqueName();
      const endpoint = sampleEndpoint(workspace, { events: ['asset.*'] });
      await stores.webhooks.insertEndpoint(endpoint);
      await stores.assets.insert(sampleAsset(workspace), author(1));
      await stores.webhooks.updateEndpoint(workspace, endpoint.id, { enabled: false, updatedAt: at(2) });
      await stores.assets.insert(sampleAsset(workspace), author(3));
      const kept = await all(stores.webhooks, workspace, endpoint.id);
      t.deepEqual(
        kept.map((delivery) => [delivery.status, iso(delivery.nextAttemptAt)]),
        [
          ['failed', undefined],
          ['failed', undefined],
        ],
      );
      t.deepEqual((await stores.webhooks.listDeliveries(workspace, endpoint.id, { status: 'pending', limit: 10 })).length, 0);
      await stores.webhooks.updateEndpoint(workspace, endpoint.id, { enabled: true, updatedAt: at(4) });
      t.is(await stores.webhooks.recover(workspace, endpoint.id, at(3), at(10)), 1, 'only failures since the time given');
      t.is(await stores.webhooks.recover(uniqueName(), endpoint.id, at(0), at(10)), 0);
      const [newest, oldest] = await all(stores.webhooks, workspace, endpoint.id);
      t.deepEqual([newest!.status, newest!.tries, iso(newest!.nextAttemptAt)], ['pending', 0, iso(at(10))]);
      t.is(oldest!.status, 'failed');
      t.true(await stores.webhooks.requeue(workspace, endpoint.id, oldest!.id, at(11)));
      t.false(
        await stores.webhooks.requeue(workspace, sampleEndpoint(workspace).id, oldest!.id, at(11)),
        "another endpoint's delivery is not found",
      );
      t.deepEqual((await stores.webhooks.getDelivery(workspace, endpoint.id, oldest!.id))?.status, 'pending');
      t.is(await stores.webhooks.getDelivery(uniqueName(), endpoint.id, oldest!.id), undefined);
    },
  );

  defineCase(
    test,
    options,
    `${name}: a test delivery; pages newest first with a status filter; deleting an endpoint deletes its deliveries`,
    async (t, { webhooks }) => {
      const workspace = uniqueName();
      const endpoint = sampleEndpoint(workspace);
      await webhooks.insertEndpoint(endpoint);
      const made: DeliveryRecord[] = [];
      for (let i = 0; i < 5; i++) made.push(await webhooks.addDelivery(endpoint, testEvent(workspace, endpoint.id, at(i))));
      t.deepEqual(JSON.parse(made[0]!.message.body), {
        type: 'webhook.test',
        timestamp: iso(at(0)),
        data: { workspace, webhookId: endpoint.id },
      });
      const page1 = await webhooks.listDeliveries(workspace, endpoint.id, { limit: 2 });
      const page2 = await webhooks.listDeliveries(workspace, endpoint.id, { limit: 2, before: page1.at(-1)!.id });
      const page3 = await webhooks.listDeliveries(workspace, endpoint.id, { limit: 2, before: page2.at(-1)!.id });
      t.deepEqual(
        [...page1, ...page2, ...page3].map((delivery) => delivery.id),
        made.map((delivery) => delivery.id).reverse(),
      );
      t.deepEqual(await webhooks.listDeliveries(workspace, endpoint.id, { limit: 10, status: 'failed' }), []);
      t.true(await webhooks.deleteEndpoint(workspace, endpoint.id));
      t.deepEqual(await all(webhooks, workspace, endpoint.id), []);
      t.is(await webhooks.getDelivery(workspace, endpoint.id, made[0]!.id), undefined);
    },
  );

  // The only case that claims: claims take any workspace's due deliveries, so its deliveries are due decades
  // before every other case's (1990), and no other case's delivery is due by the times it claims at.
  defineCase(
    test,
    options,
    `${name}: claims take due deliveries once per lease, oldest first, within the per-endpoint cap; attempts are recorded under the lease only`,
    async (t, { webhooks }) => {
      const early = Date.parse('1990-01-01T00:00:00.000Z') + Math.floor(Math.random() * 1000) * 60_000;
      const when = (ms: number) => new Date(early + ms);
      const workspace = uniqueName();
      const a = sampleEndpoint(workspace);
      const b = sampleEndpoint(workspace);
      const off = sampleEndpoint(workspace, { enabled: false });
      for (const endpoint of [a, b, off]) await webhooks.insertEndpoint(endpoint);
      const a1 = await webhooks.addDelivery(a, testEvent(workspace, a.id, when(0)));
      const a2 = await webhooks.addDelivery(a, testEvent(workspace, a.id, when(1)));
      const b1 = await webhooks.addDelivery(b, testEvent(workspace, b.id, when(2)));
      await webhooks.addDelivery(off, testEvent(workspace, off.id, when(3)));
      const later = await webhooks.addDelivery(a, testEvent(workspace, a.id, when(60_000)));
      const mine = (claims: readonly { delivery: DeliveryRecord }[]) =>
        claims.filter((claim) => claim.delivery.workspace === workspace).map((claim) => claim.delivery.id);

      const lease = when(30_000);
      const first = await webhooks.claimDue({ now: when(10), leaseUntil: lease, limit: 10, perEndpoint: 1, busy: new Map() });
      t.deepEqual(mine(first), [a1.id, b1.id], 'one per endpoint, oldest first; not the disabled one, not one due later');
      t.is(first.find((claim) => claim.delivery.id === a1.id)?.endpoint.id, a.id);
      t.is(iso(first[0]!.delivery.nextAttemptAt), iso(lease));
      t.deepEqual(
        mine(
          await webhooks.claimDue({
            now: when(10),
            leaseUntil: lease,
            limit: 10,
            perEndpoint: 1,
            busy: new Map([
              [a.id, 1],
              [b.id, 1],
            ]),
          }),
        ),
        [],
        'busy endpoints get no more',
      );
      t.deepEqual(
        mine(await webhooks.claimDue({ now: when(10), leaseUntil: lease, limit: 10, perEndpoint: 2, busy: new Map() })),
        [a2.id],
        'a claimed delivery is not claimed again under its lease',
      );

      const attempt = { at: when(11), statusCode: 500, durationMs: 3, error: 'answered 500', response: 'oops ✗' };
      t.false(
        await webhooks.recordAttempt(a1.id, when(29_999), attempt, { status: 'pending', tries: 1, nextAttemptAt: when(5011) }),
        'not under its lease',
      );
      t.true(await webhooks.recordAttempt(a1.id, lease, attempt, { status: 'pending', tries: 1, nextAttemptAt: when(5011) }));
      t.false(await webhooks.recordAttempt(a1.id, lease, attempt, { status: 'pending', tries: 1, nextAttemptAt: when(5011) }), 'once');
      const recorded = await webhooks.getDelivery(workspace, a.id, a1.id);
      t.deepEqual(
        recorded && [recorded.status, recorded.tries, iso(recorded.nextAttemptAt), recorded.attempts.map((x) => ({ ...x, at: iso(x.at) }))],
        ['pending', 1, iso(when(5011)), [{ ...attempt, at: iso(attempt.at) }]],
      );
      // b1's claim lapses unrecorded (its instance died): due again after the lease, to anyone.
      const again = await webhooks.claimDue({ now: when(30_000), leaseUntil: when(70_000), limit: 10, perEndpoint: 1, busy: new Map() });
      t.deepEqual(mine(again).sort(), [a1.id, b1.id].sort());
      t.true(
        await webhooks.recordAttempt(
          b1.id,
          when(70_000),
          { ...attempt, statusCode: 204, error: '', response: '' },
          { status: 'succeeded', tries: 1, nextAttemptAt: undefined },
        ),
      );
      t.true(
        await webhooks.recordAttempt(
          a1.id,
          when(70_000),
          { ...attempt, statusCode: 200, error: '', response: 'ok' },
          { status: 'succeeded', tries: 2, nextAttemptAt: undefined },
        ),
      );
      const done = await webhooks.getDelivery(workspace, a.id, a1.id);
      t.deepEqual([done?.status, done?.attempts.map((x) => x.statusCode), iso(done?.nextAttemptAt)], ['succeeded', [500, 200], undefined]);
      t.deepEqual(
        mine(await webhooks.claimDue({ now: when(60_000), leaseUntil: when(90_000), limit: 10, perEndpoint: 5, busy: new Map() })),
        [a2.id, later.id],
        'a lapsed claim and a newly due delivery, oldest due first',
      );

      // Runs: one run takes an endpoint's due deliveries in due order, up to its length; `limit` counts runs.
      const runLease = when(130_000);
      t.deepEqual(
        mine(await webhooks.claimDue({ now: when(90_000), leaseUntil: runLease, limit: 1, perEndpoint: 1, busy: new Map(), run: 5 })),
        [a2.id, later.id],
        'one run of the endpoint, in order',
      );
      await webhooks.releaseClaims([a2.id, later.id], when(129_999), when(90_001));
      t.deepEqual(
        mine(await webhooks.claimDue({ now: when(90_001), leaseUntil: when(131_000), limit: 10, perEndpoint: 5, busy: new Map() })),
        [],
        'a release under another lease changes nothing',
      );
      await webhooks.releaseClaims([later.id], runLease, when(90_002));
      t.deepEqual(
        mine(await webhooks.claimDue({ now: when(90_002), leaseUntil: when(132_000), limit: 10, perEndpoint: 5, busy: new Map(), run: 5 })),
        [later.id],
        'a released claim is due again at once; the rest of its run stays claimed',
      );
      t.true(
        await webhooks.recordAttempt(
          a2.id,
          runLease,
          { at: when(90_003), statusCode: 204, durationMs: 1, error: '', response: '' },
          { status: 'succeeded', tries: 1, nextAttemptAt: undefined },
        ),
        'the rest of the run is still recorded under the run’s lease',
      );
    },
  );
}

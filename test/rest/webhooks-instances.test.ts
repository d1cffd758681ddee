// Webhooks across a deployment (issue 42, "Done when"): two services, each with its gateway, on one MySQL
// database and bucket. 500 mixed asset and route changes go through both gateways, one after another. An
// endpoint subscribed to `*` gets every change at least once, each `webhook-id` once except where the
// delivery log shows a retry, every signature valid (the spec-written check and the `standardwebhooks`
// package); an endpoint subscribed to `asset.deleted` gets those and nothing else, under the same
// webhook-ids. Receivers are real node:http servers on 127.0.0.1. Skipped only when MySQL is unreachable
// and not required.
import test from 'ava';
import { createRestClient, type RestClient, type RestDelivery } from '@switchyard/client';
import { eventually } from '../support/eventually.js';
import { mysqlS3Deployment, type Deployment } from '../hardening/support/deployments.js';
import { stillReachable, testNeedingMysql } from '../support/mysql.js';
import { acceptedByStandardWebhooks, signedBy, startReceiver, type Received } from '../support/webhook-receiver.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

process.env['AWS_ACCESS_KEY_ID'] = 'S3RVER';
process.env['AWS_SECRET_ACCESS_KEY'] = 'S3RVER';

const CYCLES = 50;
/** One cycle's changes, each through gateway A or B: 10 changes, every event type. */
const CYCLE = [
  ['a', 'upload'],
  ['b', 'upload'],
  ['a', 'rename'],
  ['b', 'route-create'],
  ['a', 'route-create'],
  ['b', 'route-update'],
  ['a', 'delete'],
  ['b', 'route-delete'],
  ['a', 'upload'],
  ['b', 'rename'],
] as const;

const mysqlTest = await testNeedingMysql();

let deployment: Deployment | undefined;
let a: Stack;
let b: Stack;

test.before(async () => {
  deployment = stillReachable(await mysqlS3Deployment());
  const { CDN_URL: _cdn, ...env } = deployment.env;
  const shared = { ...env, WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s,8s,16s' };
  a = await startStack(shared);
  b = await startStack(shared);
});
test.after.always(async () => {
  await a?.stop();
  await b?.stop();
  await deployment?.cleanup();
});

const typeOf = (received: Received) => (JSON.parse(received.body) as { type: string }).type;
const idOf = (received: Received) => String(received.headers['webhook-id']);

/** Every delivery of an endpoint, a page of 1,000 at a time. */
async function deliveriesOf(client: RestClient, webhookId: string): Promise<RestDelivery[]> {
  const all: RestDelivery[] = [];
  let pageToken = '';
  do {
    const page = await client.listDeliveries(webhookId, { pageSize: 1000, ...(pageToken ? { pageToken } : {}) });
    all.push(...page.deliveries);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return all;
}

mysqlTest.serial(
  '500 mixed changes through two instances reach `*` each at least once and `asset.deleted` only those, all signed',
  async (t) => {
    const workspace = freshWorkspace('hooks-500');
    const clients = {
      a: createRestClient({ baseUrl: a.url, token: await a.token(workspace) }),
      b: createRestClient({ baseUrl: b.url, token: await b.token(workspace) }),
    };
    const everything = await startReceiver();
    const deletes = await startReceiver();
    try {
      const all = await clients.a.createWebhook({ url: everything.url, events: ['*'], description: 'everything' });
      const onlyDeletes = await clients.b.createWebhook({ url: deletes.url, events: ['asset.deleted'], description: 'deletes' });

      const assets: string[] = [];
      const routes: string[] = [];
      const deleted: string[] = [];
      const expected = new Map<string, number>();
      let changes = 0;
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        for (const [via, kind] of CYCLE) {
          const client = clients[via];
          const n = changes;
          let type: string;
          if (kind === 'upload') {
            const asset = await client.uploadAsset(new Blob([`change ${n}\n`], { type: 'text/plain' }), { filename: `c${n}.txt` });
            assets.push(asset.id);
            type = 'asset.created';
          } else if (kind === 'rename') {
            await client.updateAsset(assets.at(-1)!, { name: `renamed-${n}.txt` });
            type = 'asset.updated';
          } else if (kind === 'delete') {
            const id = assets.shift()!;
            await client.deleteAsset(id);
            deleted.push(id);
            type = 'asset.deleted';
          } else if (kind === 'route-create') {
            routes.push((await client.createRoute({ method: 'GET', path: `/c${n}/:id`, handler: `h${n}` })).id);
            type = 'route.created';
          } else if (kind === 'route-update') {
            await client.updateRoute(routes.at(-1)!, { handler: `updated${n}` });
            type = 'route.updated';
          } else {
            await client.deleteRoute(routes.shift()!);
            type = 'route.deleted';
          }
          expected.set(type, (expected.get(type) ?? 0) + 1);
          changes += 1;
        }
      }
      t.is(changes, 500);

      const distinct = (received: readonly Received[]) => new Set(received.map(idOf)).size;
      await eventually(() => distinct(everything.received) === changes && distinct(deletes.received) === deleted.length, {
        timeout: 180_000,
        interval: 250,
        message: `${changes} events at the * endpoint and ${deleted.length} at the asset.deleted one`,
      });

      // Each event once, by type, as made; a repeated webhook-id only where its delivery was tried again.
      const firstOf = new Map<string, Received>();
      for (const received of everything.received) if (!firstOf.has(idOf(received))) firstOf.set(idOf(received), received);
      const heard = new Map<string, number>();
      for (const received of firstOf.values()) heard.set(typeOf(received), (heard.get(typeOf(received)) ?? 0) + 1);
      t.deepEqual(Object.fromEntries([...heard].sort()), Object.fromEntries([...expected].sort()));
      const log = await eventually(
        async () => {
          const deliveries = await deliveriesOf(clients.a, all.id);
          return deliveries.length === changes && deliveries.every((delivery) => delivery.status === 'succeeded') && deliveries;
        },
        { timeout: 60_000, message: 'every delivery to * recorded as succeeded' },
      );
      const attemptsOf = new Map(log.map((delivery) => [delivery.messageId, delivery.attempts.length]));
      const repeated = [...firstOf.keys()].filter((id) => everything.received.filter((received) => idOf(received) === id).length > 1);
      t.deepEqual(
        repeated.filter((id) => (attemptsOf.get(id) ?? 0) < 2),
        [],
        'a webhook-id heard twice is a retry in the delivery log',
      );
      for (const received of everything.received)
        t.is(received.body, firstOf.get(idOf(received))!.body, 'every attempt of an event sends the same bytes');

      // Every request of both endpoints signed with its endpoint's secret.
      const unsigned = [
        ...everything.received.filter(
          (received) => !signedBy(received, [all.secret])[0] || !acceptedByStandardWebhooks(received, all.secret),
        ),
        ...deletes.received.filter(
          (received) => !signedBy(received, [onlyDeletes.secret])[0] || !acceptedByStandardWebhooks(received, onlyDeletes.secret),
        ),
      ];
      t.is(unsigned.length, 0, 'every signature valid');

      // The asset.deleted endpoint: those events only, the assets deleted, under the webhook-ids the * endpoint heard.
      t.deepEqual([...new Set(deletes.received.map(typeOf))], ['asset.deleted']);
      const deletedIds = new Set(deletes.received.map((received) => (JSON.parse(received.body) as { data: { id: string } }).data.id));
      t.deepEqual([...deletedIds].sort(), [...deleted].sort());
      const allDeleteIds = new Set([...firstOf.values()].filter((received) => typeOf(received) === 'asset.deleted').map(idOf));
      t.deepEqual([...new Set(deletes.received.map(idOf))].sort(), [...allDeleteIds].sort(), 'one message per event, for every endpoint');
    } finally {
      await everything.close();
      await deletes.close();
    }
  },
);

// A service SIGKILLed mid-delivery, again and again (issue 42, "Faults"): every change is delivered in the end,
// and each kill costs at most one extra delivery (the one in flight, sent again once its claim lapses). The
// service runs as its own process on SQLite with a compressed retry schedule; the receiver, a real node:http
// server on 127.0.0.1, holds the request the service is making when it is killed.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { createRestClient } from '@switchyard/client';
import { eventually } from '../support/eventually.js';
import { acceptedByStandardWebhooks, signedBy, startReceiver } from '../support/webhook-receiver.js';
import { startKillableDeployment } from './support/killable-service.js';
import { mintToken } from './support/tokens.js';

const KILLS = 3;
const CHANGES_PER_ROUND = 6;

test('SIGKILL of the service mid-delivery, three times: every change is delivered, with at most one extra delivery per kill', async (t) => {
  const deployment = await startKillableDeployment('webhook-crash', {
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s,8s,16s,32s',
    // A killed instance's claim lapses this long plus 30 s after it was taken; then the restarted one sends it again.
    WEBHOOK_TIMEOUT_MS: '2000',
  });
  const receiver = await startReceiver();
  try {
    const workspace = `ws-${randomBytes(4).toString('hex')}`;
    const client = createRestClient({ baseUrl: deployment.gatewayUrl, token: await mintToken(deployment.secret, { workspace }) });
    const endpoint = await client.createWebhook({ url: receiver.url, events: ['*'] });
    let changes = 0;
    const held: string[] = [];
    /** Asset and route changes, alternately; the gateway retries nothing, so a call to a restarting service is tried again here. */
    const makeChanges = async (round: number) => {
      for (let i = 0; i < CHANGES_PER_ROUND; i += 1) {
        await eventually(
          async () => {
            if (i % 2 === 0)
              await client.uploadAsset(new Blob([`round ${round} change ${i}\n`], { type: 'text/plain' }), {
                filename: `r${round}-${i}.txt`,
              });
            else await client.createRoute({ method: 'GET', path: `/round-${round}/change-${i}`, handler: 'h' });
            return true;
          },
          { timeout: 30_000, interval: 200, message: `change ${i} of round ${round}` },
        );
        changes += 1;
      }
    };

    for (let kill = 1; kill <= KILLS; kill += 1) {
      // The next request the receiver gets is held open: the service is mid-delivery when it is killed.
      const before = receiver.received.length;
      receiver.answerNext('hang');
      await makeChanges(kill);
      await receiver.until(before + 1);
      held.push(String(receiver.received[before]!.headers['webhook-id']));
      await deployment.killAndRestart();
    }
    await makeChanges(KILLS + 1);

    const ids = () => new Set(receiver.received.map((received) => String(received.headers['webhook-id'])));
    await eventually(() => ids().size === changes, {
      timeout: 120_000,
      interval: 250,
      message: `${changes} distinct events delivered (the held ones again once their claims lapsed)`,
    });
    // Nothing left to send: every delivery of the endpoint succeeded (the held ones on a later attempt).
    const pending = await eventually(
      async () => {
        const { deliveries } = await client.listDeliveries(endpoint.id, { pageSize: 100 });
        return deliveries.length === changes && deliveries.every((delivery) => delivery.status === 'succeeded') ? deliveries : false;
      },
      { timeout: 60_000, interval: 250, message: 'every delivery recorded as succeeded' },
    );
    t.is(pending.length, changes);
    const extra = receiver.received.length - changes;
    t.true(extra >= 0 && extra <= KILLS, `${extra} extra deliveries for ${KILLS} kills`);
    const timesSent = (id: string) => receiver.received.filter((received) => received.headers['webhook-id'] === id).length;
    t.deepEqual(
      held.map(timesSent),
      held.map(() => 2),
      'each delivery held when its service was killed was sent again, once',
    );
    for (const received of receiver.received) {
      t.deepEqual(signedBy(received, [endpoint.secret]), [true], 'every delivery is signed');
      t.true(acceptedByStandardWebhooks(received, endpoint.secret), 'standardwebhooks verifies every delivery');
    }
    const types = receiver.received.map((received) => (JSON.parse(received.body) as { type: string }).type);
    t.is(new Set(types).size, 2, 'asset.created and route.created');
  } finally {
    await receiver.close();
    await deployment.close();
  }
});

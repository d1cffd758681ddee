// Webhook faults end to end (issue 42, "Done when"), with a compressed schedule: a receiver down for 30 s
// then back; answering 500 twice, then 200; hanging past WEBHOOK_TIMEOUT_MS; 429 with Retry-After: 3. In
// each, nothing is lost: every change arrives in the end with its one webhook-id, and the delivery log
// tells each attempt. Real node:http receivers on 127.0.0.1; every delivery verified with the
// `standardwebhooks` package. (410 and recovery: webhooks.test.ts; a SIGKILLed service: webhook-crash.)
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { createRestClient, type RestClient, type RestDelivery } from '@switchyard/client';
import { eventually } from '../support/eventually.js';
import { acceptedByStandardWebhooks, startReceiver, type Received } from '../support/webhook-receiver.js';
import { freshWorkspace, startStack, type Stack } from './support/stack.js';

let stack: Stack;

test.before(async () => {
  stack = await startStack({ WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s,8s,16s,32s,32s', WEBHOOK_TIMEOUT_MS: '2000' });
});

test.after.always(async () => {
  await stack?.stop();
});

async function clientOf(name: string): Promise<RestClient> {
  return createRestClient({ baseUrl: stack.url, token: await stack.token(freshWorkspace(name)) });
}

/** Three changes: a route created, updated and deleted. */
async function threeChanges(client: RestClient, name: string): Promise<void> {
  const route = await client.createRoute({ method: 'GET', path: `/${name}/:id`, handler: 'h' });
  await client.updateRoute(route.id, { handler: 'h2' });
  await client.deleteRoute(route.id);
}

/** Waits until the endpoint's deliveries all succeeded; answers them, oldest first. */
async function allSucceeded(client: RestClient, webhookId: string, count: number): Promise<RestDelivery[]> {
  return eventually(
    async () => {
      const { deliveries } = await client.listDeliveries(webhookId);
      return deliveries.length === count && deliveries.every((delivery) => delivery.status === 'succeeded') && [...deliveries].reverse();
    },
    { timeout: 120_000, interval: 250, message: `${count} deliveries succeeded` },
  );
}

/** Each event once or more, and nothing else: the distinct webhook-ids are the deliveries' messages. */
function assertNothingLost(t: import('ava').ExecutionContext, received: readonly Received[], log: readonly RestDelivery[], secret: string) {
  t.deepEqual(
    [...new Set(received.map((request) => String(request.headers['webhook-id'])))].sort(),
    log.map((delivery) => delivery.messageId).sort(),
  );
  t.true(
    received.every((request) => acceptedByStandardWebhooks(request, secret)),
    'standardwebhooks verifies every attempt',
  );
}

test('a receiver down for 30 s, then back: every change arrives, after attempts that found nobody', async (t) => {
  const probe = await startReceiver();
  const port = probe.port;
  await probe.close();
  const client = await clientOf('down');
  const endpoint = await client.createWebhook({ url: `http://127.0.0.1:${port}/hooks`, events: ['route.*'] });
  await threeChanges(client, 'down');
  await sleep(30_000);
  const receiver = await startReceiver(port);
  try {
    const log = await allSucceeded(client, endpoint.id, 3);
    assertNothingLost(t, receiver.received, log, endpoint.secret);
    for (const delivery of log) {
      t.true(delivery.attempts.length >= 2, 'refused at least once');
      t.regex(delivery.attempts[0]!.error, /ECONNREFUSED/, 'the first attempt found nobody listening');
      t.is(delivery.attempts.at(-1)!.statusCode, 200);
    }
  } finally {
    await receiver.close();
  }
});

test('answered 500 twice, then 200: retried with the same webhook-id and body', async (t) => {
  const receiver = await startReceiver();
  try {
    receiver.answerNext({ status: 500, body: 'oops' }, { status: 500, body: 'oops again' });
    const client = await clientOf('500');
    const endpoint = await client.createWebhook({ url: receiver.url, events: ['route.*'] });
    await threeChanges(client, 'five-hundred');
    const log = await allSucceeded(client, endpoint.id, 3);
    assertNothingLost(t, receiver.received, log, endpoint.secret);
    const retried = log.find((delivery) => delivery.attempts.length > 1)!;
    t.deepEqual(
      log
        .flatMap((delivery) => delivery.attempts.map((attempt) => [attempt.statusCode, attempt.response]))
        .filter(([status]) => status === 500),
      [
        [500, 'oops'],
        [500, 'oops again'],
      ],
    );
    const copies = receiver.received.filter((request) => request.headers['webhook-id'] === retried.messageId);
    t.true(copies.length >= 2);
    t.true(copies.every((request) => request.body === copies[0]!.body));
  } finally {
    await receiver.close();
  }
});

test('a receiver that hangs past the timeout: that attempt fails, the next one delivers', async (t) => {
  const receiver = await startReceiver();
  try {
    receiver.answerNext('hang');
    const client = await clientOf('hang');
    const endpoint = await client.createWebhook({ url: receiver.url, events: ['route.*'] });
    await threeChanges(client, 'hang');
    const log = await allSucceeded(client, endpoint.id, 3);
    assertNothingLost(t, receiver.received, log, endpoint.secret);
    // The held request is the first delivery's first attempt (one delivery at a time per endpoint).
    t.deepEqual(log[0]!.attempts[0]!, { ...log[0]!.attempts[0]!, statusCode: 0, error: 'no answer within 2000 ms' });
    t.is(log[0]!.attempts.at(-1)!.statusCode, 200);
  } finally {
    await receiver.close();
  }
});

test('429 with Retry-After: 3: the next attempt waits those 3 s, then delivers', async (t) => {
  const receiver = await startReceiver();
  try {
    receiver.answerNext({ status: 429, headers: { 'retry-after': '3' } });
    const client = await clientOf('429');
    const endpoint = await client.createWebhook({ url: receiver.url, events: ['route.*'] });
    await threeChanges(client, 'too-many');
    const log = await allSucceeded(client, endpoint.id, 3);
    assertNothingLost(t, receiver.received, log, endpoint.secret);
    const slowed = log.find((delivery) => delivery.attempts[0]!.statusCode === 429)!;
    t.deepEqual(
      slowed.attempts.map((attempt) => attempt.statusCode),
      [429, 200],
    );
    t.true(
      Date.parse(slowed.attempts[1]!.at) - Date.parse(slowed.attempts[0]!.at) >= 3000,
      'not sent again before Retry-After said (the schedule alone would have waited 1 s)',
    );
  } finally {
    await receiver.close();
  }
});

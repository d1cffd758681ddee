import test from 'ava';
import { createClock } from '@sinonjs/fake-timers';
import { timeSourceOf } from '@switchyard/core/testing';
import { systemTime, type TimeSource } from '@switchyard/core';
import { randomBytes } from 'node:crypto';
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { sqliteDiskTarget } from '../grpc/support/storage-targets.js';
import { decodeStatusDetails } from '../grpc/support/status-details.js';
import { startTestService } from '../grpc/support/test-service.js';
import { freshWorkspace, startStack, type Stack } from '../rest/support/stack.js';
import { scaled, SOAK } from './support/soak.js';
import { storedIn } from './support/stored.js';
import { quietPeriod } from '../support/eventually.js';

const stacks: Stack[] = [];
/**
 * A stack whose rate limits refill by `time`: by default a clock that stands
 * still, so a burst stays spent however slowly the machine sends the calls
 * that follow it (the sustained-load test passes the system's own).
 */
async function stack(env: Record<string, string>, time: TimeSource = timeSourceOf(createClock(Date.now()))): Promise<Stack> {
  const started = await startStack(env, { time });
  stacks.push(started);
  return started;
}
test.after.always(async () => {
  await Promise.all(stacks.map((s) => s.stop()));
});

const UNKNOWN_ASSET = 'as_01arz3ndektsv4rrffq69g5fav';

async function getAsset(s: Stack, headers: Record<string, string>): Promise<Response> {
  return fetch(`${s.url}/v1/assets/${UNKNOWN_ASSET}`, { headers });
}

test('past its burst a workspace gets 429 resource_exhausted with Retry-After; other workspaces do not notice', async (t) => {
  // On a clock that stands still unless moved: no token comes back while the burst is sent, however slow the machine.
  const clock = createClock(Date.now());
  const s = await stack({ RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '6' }, timeSourceOf(clock));
  const greedy = await s.auth(freshWorkspace('greedy'));
  const burst = await Promise.all(Array.from({ length: 6 }, () => getAsset(s, greedy)));
  t.deepEqual(
    burst.map((response) => response.status),
    [404, 404, 404, 404, 404, 404],
  );
  const refused = await getAsset(s, greedy);
  t.is(refused.status, 429);
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After: ${refused.headers.get('retry-after')}`);
  const body = (await refused.json()) as Record<string, unknown>;
  t.like(body, { code: 'resource_exhausted' });
  t.regex(String(body['message']), /rate limit of 2 calls per second/);
  t.true(Array.isArray(body['details']));
  // Another workspace, and routes too, are served as usual.
  const other = await s.auth(freshWorkspace('other'));
  t.is((await getAsset(s, other)).status, 404);
  t.is((await fetch(`${s.url}/v1/routing/rt_01arz3ndektsv4rrffq69g5fav`, { headers: other })).status, 404);
  // Not a moment before the wait it names; after it, the greedy workspace is admitted again.
  clock.tick(retryAfter * 1000 - 600);
  t.is((await getAsset(s, greedy)).status, 429);
  clock.tick(600);
  t.is((await getAsset(s, greedy)).status, 404);
});

test('a refused upload is 429 (not 413), its body unread, and nothing is stored', async (t) => {
  const s = await stack({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '1' });
  const auth = await s.auth(freshWorkspace());
  t.is((await getAsset(s, auth)).status, 404);
  const form = new FormData();
  form.append('file', new Blob([randomBytes(512 * 1024)]), 'refused.bin');
  const response = await fetch(`${s.url}/v1/assets/upload`, { method: 'POST', headers: auth, body: form });
  t.is(response.status, 429);
  t.truthy(response.headers.get('retry-after'));
  t.like(await response.json(), { code: 'resource_exhausted' });
  // A negative check: nothing of the refused body may land, even a moment after the answer.
  await quietPeriod(100);
  const stored = await storedIn(s.dataDir);
  t.deepEqual([stored.assetRows, stored.blobKeys, stored.files], [0, [], []]);
});

test('files under CDN_URL are public and never rate-limited; unauthenticated calls are refused before any bucket', async (t) => {
  const s = await stack({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
  const auth = await s.auth(freshWorkspace());
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('hello, rate limit')], { type: 'text/plain' }), 'hello.txt');
  const asset = (await (await fetch(`${s.url}/v1/assets/upload`, { method: 'POST', headers: auth, body: form })).json()) as { url: string };
  // The workspace spends its bucket (burst 2, refilled at 1 per second): of three calls at once, at least one is
  // refused however long the upload took (two calls one after the other raced the refill on a busy machine).
  const statuses = (await Promise.all(Array.from({ length: 3 }, () => getAsset(s, auth)))).map((response) => response.status);
  t.true(statuses.includes(429), `the workspace has spent its burst: ${statuses.join(', ')}`);
  t.true(
    statuses.every((status) => status === 404 || status === 429),
    statuses.join(', '),
  );
  const reads = scaled(50, 2_000);
  for (let i = 0; i < reads; i++) {
    const response = await fetch(asset.url);
    t.is(response.status, 200);
    await response.arrayBuffer();
  }
  // Bad tokens cost no workspace anything: they are 401, never 429.
  for (let i = 0; i < 10; i++) t.is((await getAsset(s, { authorization: 'Bearer garbage' })).status, 401);
});

test('RATE_LIMIT_PER_SECOND=0 turns the limit off', async (t) => {
  const s = await stack({ RATE_LIMIT_PER_SECOND: '0' });
  const auth = await s.auth(freshWorkspace());
  const statuses = new Set<number>();
  const total = scaled(300, 3_000);
  // 100 at a time: the gateway's connection bound (1024 by default) is not what this test is about.
  for (let sent = 0; sent < total; sent += 100) {
    for (const response of await Promise.all(Array.from({ length: 100 }, () => getAsset(s, auth)))) statuses.add(response.status);
  }
  t.deepEqual([...statuses], [404]);
});

test('under sustained load a workspace is admitted at its rate, in bursts of its burst, per instance', async (t) => {
  const rate = 20;
  const burst = 10;
  const s = await stack({ RATE_LIMIT_PER_SECOND: String(rate), RATE_LIMIT_BURST: String(burst) }, systemTime);
  const auth = await s.auth(freshWorkspace());
  const durationMs = scaled(2_000, 30_000);
  const started = performance.now();
  let admitted = 0;
  let refused = 0;
  let other = 0;
  // 8 clients in a loop, far faster than the rate.
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() - started < durationMs) {
        const response = await getAsset(s, auth);
        await response.arrayBuffer();
        if (response.status === 404) admitted += 1;
        else if (response.status === 429) refused += 1;
        else other += 1;
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  const ceiling = burst + rate * elapsedS;
  t.log(`${elapsedS.toFixed(1)} s: ${admitted} admitted (ceiling ${Math.round(ceiling)}), ${refused} refused with 429, ${other} other`);
  t.is(other, 0);
  t.true(admitted <= ceiling + 1, `admitted ${admitted} > ${ceiling}`);
  // The bucket starts full, so at least a burst gets in, and a client far above the rate is refused.
  const offered = admitted + refused;
  t.true(admitted >= Math.min(offered, burst), `admitted only ${admitted} of ${offered}`);
  if (offered > ceiling * 1.5) t.true(refused > 0);
  // Over a long run, the limit admits close to its rate. Only then: in 2 s on a busy machine (npm test runs
  // files side by side) the clients themselves stall, and tokens past the burst are lost while nobody asks.
  if (SOAK) t.true(admitted >= Math.min(offered, ceiling) * 0.8, `admitted only ${admitted} of ${offered}`);
});

test('gRPC: RESOURCE_EXHAUSTED carries the wait as a trailer and as google.rpc.RetryInfo', async (t) => {
  const target = await sqliteDiskTarget();
  const service = await startTestService({
    storage: target.storage,
    dataDir: target.dataDir,
    env: { RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '2' },
  });
  t.teardown(async () => {
    await service.stop();
    await target.cleanup();
  });
  // The bucket gives one call back every 500 ms: a trial is judged only when its four calls fit in that. A busy
  // machine can stretch them past it (CI beside other builds did), and then the trial runs again, up to five times.
  for (let attempt = 1; ; attempt++) {
    const auth = await service.auth(freshWorkspace());
    const started = performance.now();
    const outcomes = await Promise.allSettled([0, 1, 2].map(() => service.clients.getAsset(auth, UNKNOWN_ASSET)));
    // Client streams are charged once per call, and refused before a byte is read.
    const upload = await service.clients.upload(auth, {}, randomBytes(1000)).then(
      (asset) => asset,
      (error: unknown) => error as ServiceError,
    );
    if (performance.now() - started >= 450 && attempt < 5) continue;
    const codes = outcomes.map((outcome) => ((outcome as PromiseRejectedResult).reason as ServiceError).code);
    t.deepEqual(codes.sort(), [Status.RESOURCE_EXHAUSTED, Status.NOT_FOUND, Status.NOT_FOUND].sort());
    const limited = outcomes
      .map((outcome) => (outcome as PromiseRejectedResult).reason as ServiceError)
      .find((error) => error.code === Status.RESOURCE_EXHAUSTED)!;
    const waitMs = Number(limited.metadata.get('switchyard-retry-after-ms')[0]);
    t.true(waitMs > 0 && waitMs <= 500, `wait ${waitMs} ms`);
    t.is(decodeStatusDetails(limited)?.errorInfo?.reason, 'RESOURCE_EXHAUSTED');
    const raw = limited.metadata.get('grpc-status-details-bin')[0] as Buffer;
    t.true(raw.includes(Buffer.from('type.googleapis.com/google.rpc.RetryInfo')));
    t.is((upload as ServiceError).code, Status.RESOURCE_EXHAUSTED, 'the upload is refused');
    break;
  }
  // The file read RPC is public: never limited.
  t.is(await service.clients.healthCheck(''), 'SERVING');
});

test('the Connect protocol relays the refusal and its wait', async (t) => {
  const s = await stack({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '1' });
  const auth = await s.auth(freshWorkspace());
  const call = () =>
    fetch(`${s.url}/switchyard.v1.AssetService/GetAsset`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'connect-protocol-version': '1' },
      body: JSON.stringify({ id: UNKNOWN_ASSET }),
    });
  t.is((await call()).status, 404);
  const refused = await call();
  t.is(refused.status, 429);
  t.like(await refused.json(), { code: 'resource_exhausted' });
  const wait = refused.headers.get('switchyard-retry-after-ms') ?? refused.headers.get('trailer-switchyard-retry-after-ms');
  t.true(Number(wait) > 0, `wait header: ${wait}`);
});

// RATE_LIMIT_STORE=redis: two services on one MariaDB database and one
// private redis-server share a workspace's limit. Calls over both get about
// the limit through and the rest RESOURCE_EXHAUSTED with the wait, as with
// one instance; with Redis stopped each service limits on its own (counted in
// switchyard_rate_limit_fallback_total), never failing a call for it.
import test from 'ava';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { createMetricsRegistry, type Registry } from '@switchyard/runtime';
import { startRedis } from '../support/brokers.js';
import { decodeStatusDetails } from '../grpc/support/status-details.js';
import { mysqlS3Target, type StorageTarget } from '../grpc/support/storage-targets.js';
import { startTestService, type TestService } from '../grpc/support/test-service.js';
import { parseMetrics, valueOf } from '../metrics/support/prometheus-text.js';
import { eventually } from '../support/eventually.js';

const UNKNOWN_ASSET = 'as_01arz3ndektsv4rrffq69g5fav';
const RATE = 10;

const target = await mysqlS3Target();
if (!target) test.skip('MySQL is unreachable (set REQUIRE_MYSQL=1 to make that a failure)', () => undefined);
else defineTests(target);

function defineTests(target: StorageTarget): void {
  test('two services share a workspace limit through Redis, and fall back to their own while Redis is down', async (t) => {
    const redis = await startRedis();
    const secret = randomBytes(32).toString('base64url');
    const env = {
      RATE_LIMIT_STORE: 'redis',
      RATE_LIMIT_REDIS_URL: redis.url,
      RATE_LIMIT_PER_SECOND: String(RATE),
      RATE_LIMIT_BURST: String(RATE),
    };
    const registries: Registry[] = [createMetricsRegistry(), createMetricsRegistry()];
    const services: TestService[] = [];
    t.teardown(async () => {
      await Promise.all(services.map((service) => service.stop()));
      await redis.close();
      await target.cleanup();
    });
    // One after the other: each applies the migrations at start.
    for (const metrics of registries)
      services.push(await startTestService({ storage: target.storage, dataDir: target.dataDir, secret, env, serviceOptions: { metrics } }));
    const metric = async (index: number, name: string) => valueOf(parseMetrics(await registries[index]!.metrics()), name, {});
    for (const name of ['switchyard_rate_limit_fallback_total', 'switchyard_rate_limit_fallback_admitted_total']) {
      t.true(
        parseMetrics(await registries[0]!.metrics()).some((sample) => sample.name === name),
        `${name} exists at zero`,
      );
    }

    // 8 times the rate for 3 s, round-robin over both services.
    const shared = await offer(services, await services[0]!.auth(`shared-${randomUUID()}`), RATE * 8, 3);
    t.log(
      `shared: ${shared.elapsedS.toFixed(2)} s, ${shared.admitted} admitted, ${shared.refused.length} refused, other: ${shared.other.join(', ') || 'none'}`,
    );
    t.deepEqual(shared.other, []);
    // 1-second windows at the rate (burst = rate: no burst window); per-instance limits would admit 2 × (10 + 10 × 3) = 80.
    t.true(shared.admitted <= RATE * Math.ceil(shared.elapsedS + 1), `admitted ${shared.admitted}`);
    t.true(shared.admitted >= RATE * 3 * 0.8, `admitted only ${shared.admitted}`);
    // Refusals carry the wait, as with the in-memory limit.
    const refused = shared.refused[0]!;
    const waitMs = Number(refused.metadata.get('switchyard-retry-after-ms')[0]);
    t.true(waitMs > 0 && waitMs <= 1_000, `wait ${waitMs} ms`);
    t.is(decodeStatusDetails(refused)?.errorInfo?.reason, 'RESOURCE_EXHAUSTED');
    t.true(
      (refused.metadata.get('grpc-status-details-bin')[0] as Buffer).includes(Buffer.from('type.googleapis.com/google.rpc.RetryInfo')),
    );
    t.is((await metric(0, 'switchyard_rate_limited_total')) + (await metric(1, 'switchyard_rate_limited_total')), shared.refused.length);
    t.is((await metric(0, 'switchyard_rate_limit_fallback_total')) + (await metric(1, 'switchyard_rate_limit_fallback_total')), 0);

    // Redis gone: each service admits on its own bucket (burst 10, 10/s), so together about twice the limit; no call fails for it.
    await redis.stop();
    const alone = await offer(services, await services[0]!.auth(`alone-${randomUUID()}`), RATE * 8, 2);
    t.log(
      `Redis stopped: ${alone.elapsedS.toFixed(2)} s, ${alone.admitted} admitted, ${alone.refused.length} refused, other: ${alone.other.join(', ') || 'none'}`,
    );
    t.deepEqual(alone.other, []);
    t.true(alone.refused.length > 0, 'each instance still limits');
    t.true(alone.admitted > RATE * Math.ceil(alone.elapsedS + 1), `per-instance limits admit more than the shared one: ${alone.admitted}`);
    for (const index of [0, 1])
      t.true((await metric(index, 'switchyard_rate_limit_fallback_total')) > 0, `service ${index} counted its fallbacks`);
    // Those let through, apart: every call admitted while Redis was away.
    t.is(
      (await metric(0, 'switchyard_rate_limit_fallback_admitted_total')) +
        (await metric(1, 'switchyard_rate_limit_fallback_admitted_total')),
      alone.admitted,
    );
    t.is(
      services.map((service) => service.logs.lines().filter((line) => String(line['msg']).includes('not answering')).length).join(),
      '1,1',
      'said once per service',
    );

    // Redis back: shared again.
    await redis.start();
    const auth = await services[0]!.auth(`back-${randomUUID()}`);
    // Each service asks Redis again within its probe interval once ioredis has reconnected.
    await eventually(
      async () => {
        await Promise.all(services.map((service) => service.clients.getAsset(auth, UNKNOWN_ASSET).catch(() => undefined)));
        return services.every((service) => service.logs.lines().some((line) => String(line['msg']).includes('answering again')));
      },
      { timeout: 15_000, interval: 100, message: "every service says Redis is 'answering again'" },
    );
    const back = await offer(services, await services[0]!.auth(`back-${randomUUID()}`), RATE * 8, 2);
    t.log(`Redis back: ${back.elapsedS.toFixed(2)} s, ${back.admitted} admitted, ${back.refused.length} refused`);
    t.deepEqual(back.other, []);
    t.true(back.admitted <= RATE * Math.ceil(back.elapsedS + 1), `admitted ${back.admitted}`);
  });
}

interface Offered {
  admitted: number;
  readonly refused: ServiceError[];
  /** Status names of calls neither admitted (NOT_FOUND: the asset does not exist) nor refused by the limit. */
  readonly other: string[];
  elapsedS: number;
}

/** `perSecond` GetAsset calls a second for `seconds`, round-robin over the services. */
async function offer(
  services: readonly TestService[],
  auth: Awaited<ReturnType<TestService['auth']>>,
  perSecond: number,
  seconds: number,
): Promise<Offered> {
  const offered: Offered = { admitted: 0, refused: [], other: [], elapsedS: 0 };
  const tickMs = 50;
  const perTick = Math.round((perSecond * tickMs) / 1000);
  const calls: Promise<void>[] = [];
  const started = performance.now();
  let next = 0;
  while (performance.now() - started < seconds * 1000) {
    for (let i = 0; i < perTick; i++) {
      const service = services[next++ % services.length]!;
      calls.push(
        service.clients.getAsset(auth, UNKNOWN_ASSET).then(
          () => void offered.other.push('OK'),
          (error: ServiceError) => {
            if (error.code === Status.NOT_FOUND) offered.admitted += 1;
            else if (error.code === Status.RESOURCE_EXHAUSTED) offered.refused.push(error);
            else offered.other.push(Status[error.code] ?? String(error.code));
          },
        ),
      );
    }
    await sleep(tickMs);
  }
  offered.elapsedS = (performance.now() - started) / 1000;
  await Promise.all(calls);
  return offered;
}

// Two services on one MariaDB database with EVENTS_URL (a private Redis, then
// a private NATS): a change through one reaches a watcher on the other by a
// message, not by polling (how soon: bench/'s route-sync-cross-instance and
// route-sync-cross-instance-nats goals); idle watched workspaces cost the database next to no revision reads;
// the broker stopped and started mid-run loses no change and fails no watch.
import type { ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { status as Status, type ClientReadableStream, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { Registry } from '@switchyard/runtime';
import type { RouteEvent } from '@switchyard/service/gen/switchyard/v1/routes.js';
import type { AssetWatchEvent } from '@switchyard/service/gen/switchyard/v1/assets.js';
import { startNats, startRedis, type TestBroker } from '../support/brokers.js';
import { eventually, quietPeriod } from '../support/eventually.js';
import { createTestMysqlDatabase, stillReachable, testNeedingMysql } from '../support/mysql.js';
import { startTestService, tempDir, type TestService } from '../grpc/support/test-service.js';

interface Instance {
  readonly service: TestService;
  readonly metrics: Registry;
}

/** Generous: it catches what never comes; speed is bench/'s. */
const ARRIVAL_DEADLINE_MS = 20_000;

/** The value of a counter or gauge without labels. */
async function metric(registry: Registry, name: string): Promise<number> {
  const found = (await registry.getMetricsAsJSON()).find((entry) => entry.name === name);
  return Number(found?.values[0]?.value ?? Number.NaN);
}

/** A watch on `instance`: the events so far, and a way to wait for one. */
function watch(instance: Instance, auth: Metadata) {
  const events: RouteEvent[] = [];
  const errors: ServiceError[] = [];
  const stream: ClientReadableStream<RouteEvent> = instance.service.clients.routes.watchRoutes({ sinceRevision: 0 }, auth);
  let notify = (): void => undefined;
  stream.on('data', (event: RouteEvent) => {
    events.push(event);
    notify();
  });
  stream.on('error', (error: ServiceError) => {
    if (error.code !== Status.CANCELLED) errors.push(error);
  });
  /** Resolves once an event matching `predicate` has arrived; fails after a generous deadline (a hang, not a speed). */
  const arrival = (predicate: (event: RouteEvent) => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (!events.some(predicate)) return false;
        clearTimeout(timer);
        notify = () => undefined;
        resolve();
        return true;
      };
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no such event within ${ARRIVAL_DEADLINE_MS} ms; ${events.length} events, errors: ${errors.map((e) => e.message).join('; ')}`,
            ),
          ),
        ARRIVAL_DEADLINE_MS,
      );
      if (!check()) notify = () => void check();
    });
  return { events, errors, arrival, close: () => stream.cancel() };
}

/** Resolves once `logs` holds `count` lines whose message starts with `start`. */
async function logged(service: TestService, start: string, count: number): Promise<void> {
  await eventually(() => service.logs.lines().filter((line) => String(line['msg']).startsWith(start)).length >= count, {
    timeout: ARRIVAL_DEADLINE_MS,
    interval: 20,
    message: `${count} log line(s) "${start}…"`,
  });
}

async function startPair(t: ExecutionContext, broker: TestBroker): Promise<[Instance, Instance]> {
  const database = stillReachable(await createTestMysqlDatabase(t));
  const dir = await tempDir('change-feed');
  t.teardown(() => dir.remove());
  const secret = randomBytes(32).toString('base64url');
  const storage = { database: { kind: 'mysql' as const, url: database.url }, blobs: { kind: 'disk' as const, root: `${dir.path}/files` } };
  const instances: Instance[] = [];
  // One after the other: both would run the migrations.
  for (let i = 0; i < 2; i++) {
    const metrics = new Registry();
    const service = await startTestService({
      storage,
      dataDir: dir.path,
      secret,
      env: { EVENTS_URL: broker.url },
      serviceOptions: { metrics },
    });
    t.teardown(() => service.stop());
    instances.push({ service, metrics });
  }
  return instances as [Instance, Instance];
}

const mysqlTest = await testNeedingMysql();

const BROKERS: [string, () => Promise<TestBroker>][] = [
  ['redis', startRedis],
  ['nats', startNats],
];

for (const [kind, startBroker] of BROKERS) {
  mysqlTest.serial(`${kind}: a change through one service reaches a watcher on the other by a message, without polling`, async (t) => {
    const broker = await startBroker();
    t.teardown(() => broker.close());
    const pair = await startPair(t, broker);
    const [a, b] = pair;
    t.is(await metric(b.metrics, 'switchyard_events_feed_up'), 1);
    const auth = await a.service.auth('crossing');
    const watcher = watch(b, auth);
    t.teardown(() => watcher.close());
    await watcher.arrival((event) => event.synced !== undefined);
    const reads = () => metric(b.metrics, 'switchyard_route_revision_reads_total');
    const readsBefore = await reads();
    const created: string[] = [];
    for (let i = 0; i < 20; i++) {
      const route = await a.service.clients.createRoute(auth, { method: 'GET', path: `/crossing/${i}`, handler: 'h' });
      created.push(route.id);
      await watcher.arrival((event) => event.upsert?.id === route.id);
    }
    t.deepEqual(
      watcher.events.flatMap((event) => (event.upsert ? [event.upsert.id] : [])),
      created,
      'every change, once, in order',
    );
    // Each change was awaited before the next: polling would have read b's revision at least once per change.
    // A message carries the revision, so b reads it only for a safety poll. (How soon: bench/'s route-sync-cross-instance goals.)
    const readsDuring = (await reads()) - readsBefore;
    t.log(`${readsDuring} revision reads on b during 20 changes`);
    t.true(readsDuring < 5, `${readsDuring} revision reads for 20 changes: they came by message`);
    t.true((await metric(a.metrics, 'switchyard_events_published_total')) >= 20);
    t.true((await metric(b.metrics, 'switchyard_events_received_total')) >= 20);
    t.deepEqual(watcher.errors, []);
  });

  mysqlTest.serial(
    `${kind}: an asset change through one service reaches an asset watcher on the other by a message, without polling`,
    async (t) => {
      const broker = await startBroker();
      t.teardown(() => broker.close());
      const [a, b] = await startPair(t, broker);
      const auth = await a.service.auth('asset-crossing');
      const events: AssetWatchEvent[] = [];
      const stream = b.service.clients.assets.watchAssets({}, auth);
      t.teardown(() => stream.cancel());
      stream.on('data', (event: AssetWatchEvent) => void events.push(event));
      stream.on('error', () => undefined);
      const arrival = (what: string, predicate: (event: AssetWatchEvent) => boolean) =>
        eventually(() => events.some(predicate), { timeout: ARRIVAL_DEADLINE_MS, interval: 5, message: what });
      await arrival('synced', (event) => event.synced !== undefined);
      const reads = () => metric(b.metrics, 'switchyard_asset_revision_reads_total');
      const readsBefore = await reads();
      const receivedBefore = await metric(b.metrics, 'switchyard_events_received_total');
      const uploaded: string[] = [];
      for (let i = 0; i < 20; i++) {
        const asset = await a.service.clients.upload(auth, {}, Buffer.from(`crossing ${i}\n`));
        uploaded.push(asset.id);
        await arrival(`the upload of ${asset.id}`, (event) => event.change?.assetId === asset.id);
      }
      t.deepEqual(
        events.flatMap((event) => (event.change ? [event.change.assetId] : [])),
        uploaded,
        'every change, once, in order',
      );
      // As for routes: polling would have read b's asset revision at least once per change; messages carry it.
      const readsDuring = (await reads()) - readsBefore;
      t.true(readsDuring < 5, `${readsDuring} asset revision reads for 20 changes: they came by message`);
      t.true((await metric(b.metrics, 'switchyard_events_received_total')) - receivedBefore >= 20);
    },
  );

  mysqlTest.serial(`${kind}: idle watched workspaces cost next to no revision reads (polling alone: four a second each)`, async (t) => {
    const broker = await startBroker();
    t.teardown(() => broker.close());
    const pair = await startPair(t, broker);
    const [a, b] = pair;
    const watchers = [];
    for (let i = 0; i < 20; i++) {
      const instance = i % 2 === 0 ? a : b;
      const watcher = watch(instance, await a.service.auth(`idle-${i}`));
      t.teardown(() => watcher.close());
      watchers.push(watcher);
    }
    await Promise.all(watchers.map((watcher) => watcher.arrival((event) => event.synced !== undefined)));
    // Settling: the first read of each newly watched workspace may still be under way.
    await sleep(500);
    const reads = async () =>
      (await metric(a.metrics, 'switchyard_route_revision_reads_total')) +
      (await metric(b.metrics, 'switchyard_route_revision_reads_total'));
    const before = await reads();
    // A count over a quiet window (reads that do NOT happen): a loaded machine makes fewer, never more.
    await quietPeriod(3_000);
    const during = (await reads()) - before;
    t.log(`${during} revision reads in 3 s`);
    // Polling: 20 workspaces x 4 reads a second x 3 s = 240. With the feed, safety polls every 15 to 30 s each.
    t.true(during <= 12, `${during} revision reads in 3 s of 20 idle watched workspaces`);
    for (const watcher of watchers) t.deepEqual(watcher.errors, []);
  });

  mysqlTest.serial(`${kind}: the broker stopped and started mid-run: no change lost, no watch failed, the feed back up`, async (t) => {
    const broker = await startBroker();
    t.teardown(() => broker.close());
    const pair = await startPair(t, broker);
    const [a, b] = pair;
    const auth = await a.service.auth('outage');
    const watcher = watch(b, auth);
    t.teardown(() => watcher.close());
    await watcher.arrival((event) => event.synced !== undefined);
    const created: string[] = [];
    const writes = (async () => {
      for (let i = 0; i < 40; i++) {
        created.push((await a.service.clients.createRoute(auth, { method: 'GET', path: `/outage/${i}`, handler: 'h' })).id);
        // Paced, so that the stream spans the outage.
        await sleep(75);
      }
    })();
    // Some changes before the outage, some during it, the rest after: counted, not timed.
    const writtenAtLeast = (count: number, what: string) =>
      eventually(() => created.length >= count, { timeout: ARRIVAL_DEADLINE_MS, interval: 10, message: what });
    await writtenAtLeast(5, 'changes before the outage');
    await broker.stop();
    await logged(b.service, 'events feed down: route watchers poll the database every WATCH_POLL_MS until it is back', 1);
    t.is(await metric(b.metrics, 'switchyard_events_feed_up'), 0);
    await writtenAtLeast(created.length + 5, 'changes during the outage');
    await broker.start();
    // The second: the first said so at start.
    await logged(b.service, 'events feed up', 2);
    await writes;
    await watcher.arrival((event) => event.upsert?.id === created.at(-1));
    const seen = watcher.events.flatMap((event) => (event.upsert ? [event.upsert.id] : []));
    t.deepEqual(seen, created, 'every change, once, in order');
    const revisions = watcher.events.map((event) => event.revision);
    t.deepEqual(
      revisions,
      [...revisions].sort((x, y) => x - y),
      'revisions never go back',
    );
    t.deepEqual(watcher.errors, []);
    t.is(await metric(b.metrics, 'switchyard_events_feed_up'), 1);
    t.true(
      (await metric(a.metrics, 'switchyard_events_publish_failures_total')) >= 1,
      'writes during the outage failed to publish, and succeeded',
    );
  });
}

mysqlTest.serial('a broker unreachable at start: the service starts, polls, and its watchers see changes made elsewhere', async (t) => {
  const broker = await startRedis();
  t.teardown(() => broker.close());
  await broker.stop();
  const pair = await startPair(t, broker);
  const [a, b] = pair;
  await b.service.logs.waitFor((line) => String(line['msg']).startsWith('events broker not reachable at start'));
  const auth = await a.service.auth('no-broker');
  const watcher = watch(b, auth);
  t.teardown(() => watcher.close());
  await watcher.arrival((event) => event.synced !== undefined);
  t.is(await metric(b.metrics, 'switchyard_events_feed_up'), 0);
  // Polling: b reads the watched workspace's revision again and again (every WATCH_POLL_MS), not once per safety interval.
  const reads = () => metric(b.metrics, 'switchyard_route_revision_reads_total');
  const readsBefore = await reads();
  await eventually(async () => (await reads()) >= readsBefore + 3, { timeout: ARRIVAL_DEADLINE_MS, message: 'b polls the database' });
  const route = await a.service.clients.createRoute(auth, { method: 'GET', path: '/polled', handler: 'h' });
  await watcher.arrival((event) => event.upsert?.id === route.id);
  await broker.start();
  await b.service.logs.waitFor((line) => String(line['msg']).startsWith('events feed up'));
  const received = await metric(b.metrics, 'switchyard_events_received_total');
  const later = await a.service.clients.createRoute(auth, { method: 'GET', path: '/pushed', handler: 'h' });
  await watcher.arrival((event) => event.upsert?.id === later.id);
  t.true((await metric(b.metrics, 'switchyard_events_received_total')) > received, 'the later change came by message');
  t.deepEqual(watcher.errors, []);
});

// What the scale-out must hold, run against the documented deployment (three
// services and two gateways on one MariaDB database, s3rver and a broker of
// its own), once with Redis and once with NATS carrying route changes.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchRouteTable, type WatchedRouteTable } from '@switchyard/client';
import { eventually } from '../../support/eventually.js';
import { testNeedingMysql } from '../../support/mysql.js';
import { scrapeMetric, startScaleDeployment, type ScaleDeployment } from './deployment.js';

/** The per-workspace limit of the limit scenario; every other scenario stays well under it. */
const LIMIT_PER_SECOND = 50;
/** Generous: it catches a change that never arrives; how soon one arrives is bench/'s route-sync-cross-instance goals. */
const ARRIVAL_DEADLINE_MS = 20_000;
/** Revision reads, counted by each service's route store. */
export const REVISION_READS = 'switchyard_route_revision_reads_total';
const RATE_LIMIT_FALLBACKS = 'switchyard_rate_limit_fallback_total';
/** Of those, the calls the per-instance limit let through. */
const RATE_LIMIT_FALLBACKS_ADMITTED = 'switchyard_rate_limit_fallback_admitted_total';

/** A counter summed over several processes' /metrics. */
async function sumOf(metricsUrls: readonly string[], name: string): Promise<number> {
  return (await Promise.all(metricsUrls.map((url) => scrapeMetric(url, name)))).reduce((sum, value) => sum + value, 0);
}

interface RouteAnswer {
  readonly id: string;
  readonly revision: number;
}

/** Registers the scenarios, as skips when MariaDB is unreachable: await it before the file declares anything else. */
export async function scaleScenarios(broker: 'redis' | 'nats'): Promise<void> {
  const mysqlTest = await testNeedingMysql();
  let deployment: ScaleDeployment | undefined;
  const watches: WatchedRouteTable[] = [];
  const deployed = (): ScaleDeployment => {
    if (!deployment) throw new Error('no deployment: MariaDB answered when the scenarios were registered, and is unreachable now');
    return deployment;
  };

  // Ten processes, and bounds that are rates (the limit scenario, polling's reads) or a one-second window (the kill):
  // the files that use these scenarios are in the timing tier (test/tiers.mjs), alone on the machine.
  test.before(async () => {
    deployment = await startScaleDeployment({
      broker,
      env: { RATE_LIMIT_PER_SECOND: String(LIMIT_PER_SECOND), RATE_LIMIT_BURST: String(LIMIT_PER_SECOND) },
    });
  });
  test.after.always(async () => {
    for (const watch of watches) watch.close();
    await deployment?.close();
  });

  const rest = async (url: string, workspace: string, init: { method?: string; body?: unknown } = {}): Promise<Response> => {
    const token = await deployed().token(workspace);
    return fetch(url, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  };
  const watch = async (gatewayUrl: string, workspace: string): Promise<WatchedRouteTable> => {
    const table = watchRouteTable({ url: gatewayUrl, token: await deployed().token(workspace) });
    watches.push(table);
    await table.ready;
    return table;
  };
  /** Resolves once the table reaches `revision`; rejects after a generous deadline (a change that never came). */
  const reached = (table: WatchedRouteTable, revision: number): Promise<void> => {
    if (table.revision >= revision) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`revision ${revision} did not arrive within ${ARRIVAL_DEADLINE_MS} ms (at ${table.revision})`));
      }, ARRIVAL_DEADLINE_MS);
      const stop = table.onChange(() => {
        if (table.revision < revision) return;
        clearTimeout(timer);
        stop();
        resolve();
      });
    });
  };

  mysqlTest.serial(
    `${broker}: every one of 200 route changes through gateway A reaches a watcher of gateway B, in order, each before the next is made`,
    async (t) => {
      const { gateways } = deployed();
      const [a, b] = [gateways[0]!.url, gateways[1]!.url];
      const workspace = `changes-${broker}`;
      const table = await watch(b, workspace);
      const seen: number[] = [];
      table.onChange((event) => seen.push(event.revision));
      const revisions: number[] = [];
      let routeId: string | undefined;
      for (let change = 0; change < 200; change++) {
        // Creates, then updates of one route, then a delete now and again: every kind of change crosses.
        let response: Response;
        if (routeId === undefined) {
          response = await rest(`${a}/v1/routing`, workspace, {
            method: 'POST',
            body: { method: 'GET', path: `/items/${change}/:id`, handler: `h${change}` },
          });
        } else if (change % 50 === 49) {
          response = await rest(`${a}/v1/routing/${routeId}`, workspace, { method: 'DELETE' });
        } else {
          response = await rest(`${a}/v1/routing/${routeId}`, workspace, { method: 'PATCH', body: { handler: `h${change}` } });
        }
        t.true(response.ok, `change ${change}: ${response.status} ${await response.clone().text()}`);
        let revision: number;
        if (response.status === 204) {
          routeId = undefined;
          revision = revisions.at(-1)! + 1;
        } else {
          const route = (await response.json()) as RouteAnswer;
          routeId = route.id;
          revision = route.revision;
        }
        revisions.push(revision);
        // Each change reaches B before the next is made. How soon (the issue's "within a second"): bench/'s
        // route-sync-cross-instance (Redis) and route-sync-cross-instance-nats, p99 against a watcher of A.
        await reached(table, revision);
        // Stay well under the workspace's limit of 50 calls a second (each change is one call).
        await sleep(25);
      }
      t.deepEqual(
        revisions,
        Array.from({ length: 200 }, (_, index) => revisions[0]! + index),
        'revisions are gap-free',
      );
      t.deepEqual(seen, revisions, 'the watcher saw every change once, in order');
      t.is(table.routes().length, routeId === undefined ? 0 : 1);
    },
  );

  mysqlTest.serial(
    `${broker}: 500 idle watched workspaces cost the database fewer than 5 % of the revision reads polling alone makes`,
    async (t) => {
      const deployment = deployed();
      // The same 500 watches against a service without a broker (polling every WATCH_POLL_MS), in the same 10 s.
      const polling = await deployment.startService({ EVENTS_URL: '', RATE_LIMIT_REDIS_URL: deployment.limits.url });
      const pollingGateway = await deployment.startGateway(`http://${polling.address}`);
      const reads = (urls: readonly string[]) => sumOf(urls, REVISION_READS);
      const fedUrls = deployment.services.map((service) => service.metricsUrl);
      const workspaces = Array.from({ length: 500 }, (_, index) => `idle-${broker}-${index}`);
      const fed: WatchedRouteTable[] = [];
      const polled: WatchedRouteTable[] = [];
      for (let start = 0; start < workspaces.length; start += 50) {
        const batch = workspaces.slice(start, start + 50);
        fed.push(...(await Promise.all(batch.map((workspace, index) => watch(deployment.gateways[index % 2]!.url, workspace)))));
        polled.push(...(await Promise.all(batch.map((workspace) => watch(pollingGateway.url, workspace)))));
      }
      const [fedBefore, polledBefore] = [await reads(fedUrls), await reads([polling.metricsUrl])];
      await sleep(10_000);
      const fedReads = (await reads(fedUrls)) - fedBefore;
      const polledReads = (await reads([polling.metricsUrl])) - polledBefore;
      t.log(
        `revision reads in 10 s with 500 idle watched workspaces: ${fedReads} with ${broker}, ${polledReads} polling alone (${((100 * fedReads) / polledReads).toFixed(2)} %)`,
      );
      t.true(polledReads >= 500 * 20, `polling alone read ${polledReads} times: it should poll each workspace about every 250 ms`);
      t.true(fedReads < 0.05 * polledReads, `${fedReads} reads with ${broker} vs ${polledReads} polling`);
      t.true([...fed, ...polled].every((table) => table.connected));
      for (const table of [...fed, ...polled]) table.close();
      await pollingGateway.child.stop();
      await polling.child.stop();
    },
  );

  mysqlTest.serial(
    `${broker}: a workspace limited to ${LIMIT_PER_SECOND} calls/s making 400 calls/s over both gateways gets 40 to 75 a second through, the rest 429`,
    async (t) => {
      const { gateways } = deployed();
      const workspace = `limited-${broker}`;
      const token = await deployed().token(workspace);
      const statuses = new Map<number, number>();
      const errors = new Set<string>();
      const calls: Promise<void>[] = [];
      const total = 400 * 5;
      const serviceMetrics = deployed().services.map((service) => service.metricsUrl);
      const fallbacks = async () =>
        [await sumOf(serviceMetrics, RATE_LIMIT_FALLBACKS), await sumOf(serviceMetrics, RATE_LIMIT_FALLBACKS_ADMITTED)] as const;
      const [fallbacksBefore, admittedAloneBefore] = await fallbacks();
      const started = performance.now();
      let lastAnswer = started;
      for (let call = 0; call < total; call++) {
        // Paced: call n leaves at n × 2.5 ms, alternating gateways.
        const wait = started + call * 2.5 - performance.now();
        if (wait > 1) await sleep(wait);
        const url = `${gateways[call % 2]!.url}/v1/routing?pageSize=1`;
        calls.push(
          fetch(url, { headers: { authorization: `Bearer ${token}` } }).then(
            async (response) => {
              await response.arrayBuffer();
              lastAnswer = Math.max(lastAnswer, performance.now());
              statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            },
            (error: Error) => {
              errors.add(String((error.cause as Error | undefined)?.message ?? error.message));
              statuses.set(0, (statuses.get(0) ?? 0) + 1);
            },
          ),
        );
      }
      const offeredSeconds = (performance.now() - started) / 1000;
      await Promise.all(calls);
      const answeredSeconds = (lastAnswer - started) / 1000;
      const ok = statuses.get(200) ?? 0;
      const refused = statuses.get(429) ?? 0;
      // Calls Redis did not answer within 500 ms (a loaded machine) were judged by the instance's own bucket, as
      // documented: those it let through (counted apart) may have gone through on top of the shared limit.
      const [fallbacksAfter, admittedAloneAfter] = await fallbacks();
      const judgedAlone = fallbacksAfter - fallbacksBefore;
      const admittedAlone = admittedAloneAfter - admittedAloneBefore;
      // Unloaded, the calls are sent in 5 s and answered as they go, and the bounds below are the issue's, over 5 s.
      // A loaded machine sends more slowly than planned, or answers calls seconds after they were sent (a run beside
      // other work sent 2,000 in 5.1 s and answered them over 16 s). The services judged every call somewhere between
      // the first call sent and the last answer, so a shared limit cannot let more than its rate through over that
      // span: the upper bound is judged over it. The lower bound is judged over the time of sending: calls judged
      // late, in windows the sending did not last, only add to what got through.
      const sentSeconds = Math.max(5, offeredSeconds);
      const judgedSeconds = Math.max(5, answeredSeconds);
      const offeredPerSecond = total / offeredSeconds;
      t.log(
        `${ok} through, ${refused} refused of ${total} sent in ${offeredSeconds.toFixed(1)} s (${offeredPerSecond.toFixed(0)}/s offered), answered within ${answeredSeconds.toFixed(1)} s: ` +
          `${(ok / sentSeconds).toFixed(1)}/s through over the sending, ${(ok / judgedSeconds).toFixed(1)}/s until the last answer; ${judgedAlone} judged per instance (Redis slow), ${admittedAlone} of them let through`,
      );
      t.is(ok + refused, total, `only 200 and 429: ${JSON.stringify([...statuses])} ${[...errors].join('; ')}`);
      // The scenario tells shared from per-instance limits only if the load is well over what those would let through (3 × 50/s).
      t.true(offeredPerSecond >= 300, `only ${offeredPerSecond.toFixed(0)} calls/s offered of the 400 planned`);
      t.true(judgedAlone <= total / 4, `Redis judged most calls: ${judgedAlone} of ${total} fell back`);
      t.true(ok / sentSeconds >= 40, `${(ok / sentSeconds).toFixed(1)} calls/s through`);
      t.true(
        (ok - admittedAlone) / judgedSeconds <= 75,
        `${(ok / judgedSeconds).toFixed(1)} calls/s through, ${admittedAlone} of them let through per instance`,
      );
    },
  );

  mysqlTest.serial(
    `${broker}: the broker stopped for 5 s and started again mid-run loses no change, answers no 5xx, and watchers catch up`,
    async (t) => {
      const deployment = deployed();
      const [a, b] = [deployment.gateways[0]!.url, deployment.gateways[1]!.url];
      const workspace = `outage-${broker}`;
      const table = await watch(b, workspace);
      const seen: number[] = [];
      table.onChange((event) => seen.push(event.revision));
      const disconnects: string[] = [];
      table.onDisconnect((reason) => disconnects.push(String(reason)));
      const servicesUrls = deployment.services.map((service) => service.metricsUrl);
      const fallbacksBefore = await sumOf(servicesUrls, RATE_LIMIT_FALLBACKS);
      const created = await rest(`${a}/v1/routing`, workspace, {
        method: 'POST',
        body: { method: 'GET', path: '/outage/:id', handler: 'h0' },
      });
      t.is(created.status, 201);
      const route = (await created.json()) as RouteAnswer;
      const revisions = [route.revision];
      const statuses: number[] = [];
      /** The last revision written before the broker stopped, and the watcher's revision just before it came back. */
      let writtenBeforeStop = 0;
      let watchedBeforeReturn = 0;
      // The scenario's schedule (2 s of changes, a 5 s outage, changes after), not waits for an outcome.
      const outage = (async () => {
        await sleep(2_000);
        writtenBeforeStop = revisions.at(-1)!;
        await deployment.events.stop();
        await sleep(5_000);
        watchedBeforeReturn = table.revision;
        await deployment.events.start();
      })();
      const until = performance.now() + 11_000;
      for (let change = 1; performance.now() < until; change++) {
        const response = await rest(`${a}/v1/routing/${route.id}`, workspace, { method: 'PATCH', body: { handler: `h${change}` } });
        statuses.push(response.status);
        if (response.ok) revisions.push(((await response.json()) as RouteAnswer).revision);
        else await response.arrayBuffer();
        await sleep(100);
      }
      await outage;
      t.deepEqual(
        statuses.filter((status) => status !== 200),
        [],
        'every change was accepted, none answered 5xx',
      );
      await reached(table, revisions.at(-1)!);
      t.deepEqual(seen, revisions, 'the watcher saw every change, in order');
      t.is(table.match('GET', '/outage/1')?.route.handler, `h${revisions.length - 1}`);
      // Polling took over while the broker was away: changes made during the outage reached the watcher before the
      // broker's return (a safety poll comes after 15 to 30 s, so without polling none would have). How soon a polled
      // change arrives (within the contract's second): bench/'s route-sync-cross-instance-polling.
      t.log(`revision ${writtenBeforeStop} written before the stop; the watcher at ${watchedBeforeReturn} before the return`);
      t.true(
        watchedBeforeReturn > writtenBeforeStop,
        `changes made during the outage reached the watcher while the broker was down (${watchedBeforeReturn} > ${writtenBeforeStop})`,
      );
      t.deepEqual(disconnects, [], 'the watch itself never failed');
      if (broker === 'redis')
        t.true(
          (await sumOf(servicesUrls, RATE_LIMIT_FALLBACKS)) > fallbacksBefore,
          'limits on the stopped Redis fell back to per instance (counted), and no call failed for it',
        );

      // The feed is back on every service, and carries changes again: every service hears one made now from the broker.
      await eventually(async () => (await sumOf(servicesUrls, 'switchyard_events_feed_up')) === servicesUrls.length, {
        timeout: ARRIVAL_DEADLINE_MS,
        interval: 100,
        message: "the feed up again on every service after the broker's return",
      });
      const receivedBefore = await sumOf(servicesUrls, 'switchyard_events_received_total');
      const last = await rest(`${a}/v1/routing/${route.id}`, workspace, { method: 'PATCH', body: { handler: 'after' } });
      t.is(last.status, 200);
      await reached(table, ((await last.json()) as RouteAnswer).revision);
      const heard = await eventually(
        async () => {
          const count = (await sumOf(servicesUrls, 'switchyard_events_received_total')) - receivedBefore;
          if (count < servicesUrls.length) throw new Error(`${count} of ${servicesUrls.length} services heard it`);
          return count;
        },
        { timeout: ARRIVAL_DEADLINE_MS, message: 'every service heard the change from the broker' },
      );
      t.is(heard, servicesUrls.length, 'every service heard the change from the broker, once');
    },
  );

  mysqlTest.serial(
    `${broker}: one service SIGKILLed under a steady read load: reads go on through the others, none fails after the first second`,
    async (t) => {
      const deployment = deployed();
      // The reads are spread over five workspaces, each far under the limit: this is about availability, and a
      // read retried after its connection died is charged twice, as a paced load that a stalled loop sends late comes in a burst.
      const readers = await Promise.all(
        Array.from({ length: 5 }, async (_, index) => {
          const workspace = `kill-${broker}-${index}`;
          const created = await rest(`${deployment.gateways[0]!.url}/v1/routing`, workspace, {
            method: 'POST',
            body: { method: 'GET', path: '/kill/:id', handler: 'h' },
          });
          t.is(created.status, 201);
          return { route: (await created.json()) as RouteAnswer, token: await deployment.token(workspace) };
        }),
      );
      const results: { at: number; status: number }[] = [];
      let killedAt = Number.POSITIVE_INFINITY;
      const started = performance.now();
      const reads: Promise<void>[] = [];
      // 25 reads a second (5 per workspace, a tenth of its limit) for 8 s, alternating gateways; the kill comes at 2 s.
      for (let call = 0; call < 200; call++) {
        const wait = started + call * 40 - performance.now();
        if (wait > 1) await sleep(wait);
        if (call === 50) {
          deployment.services[0]!.child.process.kill('SIGKILL');
          killedAt = performance.now();
        }
        const at = performance.now();
        const { route, token } = readers[call % readers.length]!;
        reads.push(
          fetch(`${deployment.gateways[call % 2]!.url}/v1/routing/${route.id}`, { headers: { authorization: `Bearer ${token}` } }).then(
            async (response) => {
              await response.arrayBuffer();
              results.push({ at, status: response.status });
            },
            () => void results.push({ at, status: 0 }),
          ),
        );
      }
      await Promise.all(reads);
      const late = results.filter((result) => result.at > killedAt + 1_000);
      const failedEarly = results.filter((result) => result.at <= killedAt + 1_000 && result.status !== 200).length;
      t.log(
        `${results.length} reads; ${failedEarly} failed within the first second after the kill; ${late.filter((result) => result.status !== 200).length} after`,
      );
      t.true(late.length >= 100);
      t.deepEqual(
        late.filter((result) => result.status !== 200),
        [],
        'no read after the first second fails',
      );
    },
  );
}

// @switchyard/dispatch in real Express 5, Fastify 5, Hono 4 and node:http apps,
// following a real `npm start` through `watchRouteTable`: records created,
// changed and deleted over REST change what each app serves. How soon is
// bench/'s `route-sync-latency` (a watchRouteTable client of `npm start`).
import test from 'ava';
import { eventually } from '../support/eventually.js';
import { OWN, startApp, type Framework, type RunningApp } from './support/apps.js';
import { BURST_VARIANTS, type Served } from './support/registry.js';
import { Routes, startSwitchyard, type RestRoute, type RunningSwitchyard } from './support/switchyard.js';

const FRAMEWORKS: readonly Framework[] = ['express', 'fastify', 'hono', 'node'];
/** How an app answers a failure the dispatcher passed on or answered: Express and Fastify hand it to the app's error handler. */
const FAILURE_BODY: Record<Framework, (message: string) => unknown> = {
  express: (message) => ({ appError: message }),
  fastify: (message) => ({ appError: message }),
  hono: () => ({ code: 'internal', message: 'internal error', details: [] }),
  node: () => ({ code: 'internal', message: 'internal error', details: [] }),
};
/** A returned value JSON cannot hold: Fastify serializes it itself, so its error handler has it (not onError). */
const UNWRITABLE_BODY: Record<Framework, unknown> = {
  express: { appError: 'Do not know how to serialize a BigInt' },
  fastify: { appError: 'Do not know how to serialize a BigInt' },
  hono: { code: 'internal', message: 'internal error', details: [] },
  node: { code: 'internal', message: 'internal error', details: [] },
};
/** What no record matches: the app's own 404 where the framework falls through; Hono's notFound is the dispatcher itself. */
const UNMATCHED_BODY: Record<Framework, (path: string) => unknown> = {
  express: () => OWN.notFound,
  fastify: () => OWN.notFound,
  hono: (path) => ({ code: 'not_found', message: `no route matches GET ${path}`, details: [] }),
  node: () => OWN.notFound,
};

let switchyard: RunningSwitchyard;
const apps = new Map<Framework, { app: RunningApp; routes: Routes }>();

test.before(async () => {
  switchyard = await startSwitchyard();
  for (const framework of FRAMEWORKS) {
    const token = await switchyard.token(`dispatch-${framework}`);
    apps.set(framework, { app: await startApp(framework, switchyard.url, token), routes: new Routes(switchyard.url, token) });
  }
});
test.after.always(async () => {
  for (const { app } of apps.values()) await app.close();
  await switchyard?.stop();
});

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

async function get(app: RunningApp, path: string): Promise<Answer> {
  const response = await fetch(`${app.url}${path}`);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return { status: response.status, headers: response.headers, body };
}

/** Generous: it catches a change that never arrives; how fast one arrives is bench/'s route-sync-latency goal. */
const CHANGE_DEADLINE_MS = 15_000;

/** Asks the app until its answer satisfies `holds` (a change has reached it through the watch). */
function served(app: RunningApp, path: string, holds: (answer: Answer) => boolean, what: string): Promise<Answer> {
  return eventually(
    async () => {
      const last = await get(app, path);
      if (!holds(last)) throw new Error(`last answer ${last.status} ${JSON.stringify(last.body)}`);
      return last;
    },
    { timeout: CHANGE_DEADLINE_MS, interval: 10, message: what },
  );
}

const servedBy = (handler: string) => (answer: Answer) => answer.status === 200 && (answer.body as Served).handler === handler;

for (const framework of FRAMEWORKS) {
  const setup = () => apps.get(framework)!;

  test.serial(`${framework}: a route created, changed and deleted over REST changes what the app serves`, async (t) => {
    const { app, routes } = setup();
    const created = await routes.create({ method: 'GET', path: '/lifecycle/:id/files/*', handler: 'show' });
    const first = await served(app, '/lifecycle/42/files/a/b%20c.png', servedBy('show'), 'created');
    t.deepEqual(first.body, {
      handler: 'show',
      params: { id: '42', '*': 'a/b c.png' },
      revision: (first.body as Served).revision,
      routeRevision: created.revision,
      trail: [],
    });
    t.true((first.body as Served).revision >= created.revision);

    const changed = await routes.update(created.id, { path: '/lifecycle/:name', handler: 'other' });
    const second = await served(app, '/lifecycle/ada', servedBy('other'), 'changed');
    t.deepEqual((second.body as Served).params, { name: 'ada' });
    t.is((second.body as Served).routeRevision, changed.revision, 'ctx.route is the changed record');
    t.true((second.body as Served).revision >= changed.revision);
    t.deepEqual((await get(app, '/lifecycle/42/files/x')).body, UNMATCHED_BODY[framework]('/lifecycle/42/files/x'), 'the old path is gone');

    await routes.delete(created.id);
    const gone = await served(app, '/lifecycle/ada', (answer) => answer.status === 404, 'deleted');
    t.deepEqual(gone.body, UNMATCHED_BODY[framework]('/lifecycle/ada'));
  });

  test.serial(
    `${framework}: middleware run in the record's order around the handler; one may answer and stop; failures go where the framework expects`,
    async (t) => {
      const { app, routes } = setup();
      await routes.create({ method: 'GET', path: '/order/ab', middleware: ['stamp', 'a', 'b'], handler: 'show' });
      await routes.create({ method: 'GET', path: '/order/ba', middleware: ['b', 'a'], handler: 'show' });
      const ab = await served(app, '/order/ab', servedBy('show'), 'ab');
      t.deepEqual((ab.body as Served).trail, ['a', 'b', 'b:after', 'a:after']);
      t.is(ab.headers.get('x-revision'), String((ab.body as Served).revision), 'a header set after next()');
      t.deepEqual(((await served(app, '/order/ba', servedBy('show'), 'ba')).body as Served).trail, ['b', 'a', 'a:after', 'b:after']);

      const denied = await routes.create({ method: 'GET', path: '/order/denied', middleware: ['a', 'deny', 'b'], handler: 'boom' });
      const stopped = await served(app, '/order/denied', (answer) => answer.status === 401, 'short-circuit');
      t.deepEqual(
        stopped.body,
        { denied: true, revision: (stopped.body as { revision: number }).revision },
        'neither b nor the handler ran',
      );
      t.true((stopped.body as { revision: number }).revision >= denied.revision);

      const errorsBefore = app.errors.length;
      await routes.create({ method: 'GET', path: '/order/boom', middleware: ['a'], handler: 'boom' });
      await routes.create({ method: 'GET', path: '/order/explode', middleware: ['explode'], handler: 'show' });
      const boom = await served(app, '/order/boom', (answer) => answer.status === 500, 'handler failure');
      t.deepEqual(boom.body, FAILURE_BODY[framework]('handler exploded'));
      const explode = await served(app, '/order/explode', (answer) => answer.status === 500, 'middleware failure');
      t.deepEqual(explode.body, FAILURE_BODY[framework]('middleware exploded'));
      t.deepEqual(app.errors.slice(errorsBefore), ['handler exploded', 'middleware exploded'], 'each reported to onError');

      // What the handler threw comes back through `await next()`: a middleware may turn it into an answer.
      await routes.create({ method: 'GET', path: '/order/rescued', middleware: ['rescue', 'a'], handler: 'boom' });
      const rescued = await served(app, '/order/rescued', (answer) => answer.status === 503, 'rescued failure');
      t.deepEqual(
        rescued.body,
        { rescued: 'handler exploded', trail: ['a'] },
        'a ran, its after-part did not: the throw passed through it',
      );
      t.is(app.errors.length, errorsBefore + 2, 'a failure a middleware answered is not reported');

      // An answer that cannot be written (JSON of a BigInt) is a failure like a throw, not a crash of the app.
      const failuresBefore = app.dispatcher.metrics().failures;
      await routes.create({ method: 'GET', path: '/order/unwritable', handler: 'unwritable' });
      const unwritable = await served(app, '/order/unwritable', (answer) => answer.status === 500, 'unwritable answer');
      t.deepEqual(unwritable.body, UNWRITABLE_BODY[framework]);
      if (framework !== 'fastify') {
        t.deepEqual(app.errors.slice(errorsBefore + 2), ['Do not know how to serialize a BigInt'], 'reported to onError');
        t.is(app.dispatcher.metrics().failures, failuresBefore + 1);
      }
      t.deepEqual((await get(app, '/own/health')).body, OWN.health, 'the app still serves after the failures');
    },
  );

  test.serial(
    `${framework}: a record naming an unregistered handler or middleware is reported on arrival, listed, and answers 501`,
    async (t) => {
      const { app, routes } = setup();
      const metricsBefore = app.dispatcher.metrics();
      const ghost = await routes.create({ method: 'GET', path: '/ghost/:id', middleware: ['a', 'phantom'], handler: 'ghost' });
      // On arrival, before any request asks for it: the hook, the counter and unknown().
      await eventually(() => app.unknownReported.some((unknown) => unknown.route.id === ghost.id), {
        timeout: CHANGE_DEADLINE_MS,
        interval: 5,
        message: 'reported on arrival',
      });
      t.is(app.dispatcher.metrics().unknownReported, metricsBefore.unknownReported + 1);
      t.is(app.dispatcher.metrics().unimplementedAnswered, metricsBefore.unimplementedAnswered, 'no request has been answered 501 yet');
      t.deepEqual(
        app.dispatcher.unknown().map((unknown) => unknown.route.id),
        [ghost.id],
      );
      const answer = await served(app, '/ghost/1', (a) => a.status === 501, 'unknown names');
      t.deepEqual(answer.body, {
        code: 'unimplemented',
        message: `route ${ghost.id} (GET /ghost/:id) names handler "ghost" and middleware "phantom", which this service does not provide`,
        details: [
          { field: 'handler', reason: '"ghost" is not registered' },
          { field: 'middleware', reason: '"phantom" is not registered' },
        ],
      });
      t.is(answer.headers.get('content-type'), 'application/json; charset=utf-8');
      t.deepEqual(
        app.dispatcher.unknown().map((unknown) => unknown.route.id),
        [ghost.id],
      );
      t.deepEqual(
        app.unknownReported.map((unknown) => [unknown.route.id, unknown.handler, unknown.middleware]),
        [[ghost.id, 'ghost', ['phantom']]],
      );
      t.is(app.dispatcher.metrics().unimplementedAnswered, metricsBefore.unimplementedAnswered + 1);

      await routes.update(ghost.id, { middleware: ['a'], handler: 'show' });
      await served(app, '/ghost/1', servedBy('show'), 'fixed');
      t.deepEqual(app.dispatcher.unknown(), []);
    },
  );

  test.serial(`${framework}: the app's own routes win and what no record matches falls through to the framework`, async (t) => {
    const { app, routes } = setup();
    await routes.create({ method: 'GET', path: '/own/shadowed', handler: 'show' });
    await routes.create({ method: 'GET', path: '/fallthrough/probe', handler: 'show' });
    await served(app, '/fallthrough/probe', servedBy('show'), 'probe record');
    t.deepEqual((await get(app, '/own/shadowed')).body, OWN.shadowed, "the app's route, not the record");
    t.deepEqual((await get(app, '/own/health')).body, OWN.health);
    t.deepEqual((await get(app, '/own/after')).body, OWN.after, 'an app route after the dispatcher is reached');
    const miss = await get(app, '/nothing/here');
    t.is(miss.status, 404);
    t.deepEqual(miss.body, UNMATCHED_BODY[framework]('/nothing/here'));
  });

  test.serial(
    `${framework}: under a burst of changes with requests in flight, every request runs one revision's middleware and handler`,
    async (t) => {
      const { app, routes } = setup();
      const burst = await routes.create({ method: 'GET', path: '/burst', middleware: ['m0'], handler: 'h0' });
      await served(app, '/burst', servedBy('h0'), 'burst record');
      /** The record as of each revision the burst wrote: a response at revision R must be the newest at or below R. */
      const versions: RestRoute[] = [burst];
      const responses: Served[] = [];
      /** Requests a change overtook (it landed between their match and their answer's arrival): where a mix would show. */
      let overtaken = 0;
      let changing = true;
      const load = async (): Promise<void> => {
        while (changing) {
          const answer = await get(app, '/burst');
          t.is(answer.status, 200, JSON.stringify(answer.body));
          responses.push(answer.body as Served);
          if ((answer.body as Served).revision < app.dispatcher.revision) overtaken++;
        }
      };
      const loaders = Array.from({ length: 6 }, load);
      for (let change = 1; change <= 40; change++) {
        const k = change % BURST_VARIANTS;
        // Handler and middleware change together: a mix would show as mK with hJ.
        const middleware = [`m${k}`, `m${(k + 1) % BURST_VARIANTS}`].slice(0, 1 + (change % 2));
        versions.push(await routes.update(burst.id, { middleware, handler: `h${k}` }));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // The load runs on until the app has the burst's last revision, so answers after the last change count too.
      await eventually(() => app.dispatcher.revision >= versions.at(-1)!.revision, {
        timeout: CHANGE_DEADLINE_MS,
        interval: 5,
        message: 'the last change reached the app',
      });
      changing = false;
      await Promise.all(loaders);

      const revisionsSeen = new Set<number>();
      for (const response of responses) {
        const record = versions.filter((version) => version.revision <= response.revision).at(-1);
        if (record === undefined) return t.fail(`a response at revision ${response.revision}, before the record existed`);
        revisionsSeen.add(response.revision);
        t.deepEqual(
          { handler: response.handler, trail: response.trail, routeRevision: response.routeRevision },
          { handler: record.handler, trail: [...record.middleware], routeRevision: record.revision },
          `revision ${response.revision}`,
        );
      }
      t.log(`${responses.length} requests over ${revisionsSeen.size} revisions, ${overtaken} overtaken by a change`);
      t.true(revisionsSeen.size >= 5, 'the load saw the table change many times');
      t.true(overtaken > 0, 'some requests were overtaken by a change');
    },
  );
}

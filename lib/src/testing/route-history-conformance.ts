import { createPrincipal } from '../auth/principal.js';
import { createUlidSource } from '../ids.js';
import type { RouteStore } from '../ports/route-store.js';
import { createRouteService } from '../routes/route-service.js';
import type { Route, RouteService } from '../routes/types.js';
import type { Check } from './assertions.js';
import { uniqueName } from './conformance.js';
import { SAMPLE_ROUTE_TIME } from './route-samples.js';

const ids = createUlidSource();

/** The table as lines, each route's definition and owner, in no particular order. */
async function tableOf(service: RouteService, principal: ReturnType<typeof createPrincipal>, atRevision?: number): Promise<string[]> {
  const routes: Route[] = [];
  let pageToken = '';
  do {
    const page = await service.list(principal, { atRevision, pageSize: 2, pageToken });
    routes.push(...page.routes);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return routes.map((r) => `${r.method} ${r.path} ${r.handler} [${r.middleware.join(',')}] ${r.owner}`).sort();
}

/**
 * What the core rebuilds from a store's change log (part of routeStoreConformance): the
 * table at every earlier revision, and a rollback to one, through the route service over the store.
 */
export function routeHistoryConformance(define: (title: string, body: (t: Check, store: RouteStore) => Promise<void>) => void): void {
  define('history: the table at each earlier revision is rebuilt from the change log, and a rollback restores it', async (t, store) => {
    let now = SAMPLE_ROUTE_TIME;
    const service = createRouteService({ store, clock: { now: () => new Date((now += 1_000)) }, ids });
    const principal = createPrincipal('ci', uniqueName(), ['routes:read', 'routes:write']);
    const tables: string[][] = [await tableOf(service, principal)];
    const wrote = async (write: Promise<unknown>) => {
      await write;
      tables.push(await tableOf(service, principal));
    };
    await wrote(service.apply(principal, { owner: 'team', routes: [route('/a'), route('/b/:x'), route('/c')] }));
    const [first] = (await service.list(principal, {})).routes;
    await wrote(service.create(principal, { ...route('/solo'), middleware: ['auth'] }));
    await wrote(service.update(principal, first!.id, { handler: 'changed', middleware: ['m1', 'm2'] }));
    await wrote(service.apply(principal, { owner: 'team', prune: true, routes: [route('/b/:y'), route('/d')] }));
    await wrote(service.delete(principal, (await service.list(principal, {})).routes.find((r) => r.path === '/solo')!.id));
    t.is(tables.length, 6);
    for (const [revision, table] of tables.entries())
      t.deepEqual(await tableOf(service, principal, revision), table, `at revision ${revision}`);

    const changes = await service.changes(principal, { sinceRevision: 3, pageSize: 1 });
    t.deepEqual(
      changes.changes.map((change) => `${change.revision} ${change.kind}`),
      ['4 delete', '4 delete', '4 update', '4 create'],
      'a page holds a whole revision',
    );
    const rolled = await service.rollback(principal, { revision: 2 });
    t.is(rolled.revision, 6);
    t.deepEqual(await tableOf(service, principal), tables[2]);
    t.is((await service.rollback(principal, { revision: 6 })).revision, 6, 'the table already is so: no revision');
  });
}

function route(path: string) {
  return { method: 'GET', path, handler: 'h' };
}

import test from 'ava';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SyncedRouteTable, type Route } from '@switchyard/core/routes';

/** A route's fields as a test gives them: the owner may be left out (none). */
type RouteFields = Omit<Route, 'id' | 'createdAt' | 'updatedAt' | 'revision' | 'owner'> & { readonly owner?: string };

/** A SyncedRouteTable fed by hand, as routes.watch would: a snapshot, then changes, each at the next revision. */
export class FedTable {
  readonly table = new SyncedRouteTable();
  #revision = 0;
  #ids = 0;

  constructor(routes: readonly RouteFields[] = []) {
    this.table.apply({ type: 'reset', revision: ++this.#revision });
    for (const route of routes) this.table.apply({ type: 'upsert', revision: this.#revision, route: this.#route(route) });
    this.table.apply({ type: 'synced', revision: this.#revision });
  }

  upsert(fields: RouteFields, id?: string): Route {
    const route = this.#route(fields, id, ++this.#revision);
    this.table.apply({ type: 'upsert', revision: this.#revision, route });
    return route;
  }

  delete(id: string): void {
    this.table.apply({ type: 'delete', revision: ++this.#revision, id });
  }

  /** Several upserts as one revision (an apply): each but the last marked `moreInRevision`; `between` runs after each but the last. */
  revision(routes: readonly RouteFields[], between: () => void = () => {}): Route[] {
    const revision = ++this.#revision;
    return routes.map((fields, i) => {
      const route = this.#route(fields, undefined, revision);
      const more = i < routes.length - 1;
      this.table.apply({ type: 'upsert', revision, route, moreInRevision: more });
      if (more) between();
      return route;
    });
  }

  #route(fields: RouteFields, id = `rt_${String(++this.#ids).padStart(26, '0')}`, revision = this.#revision): Route {
    const now = new Date(0);
    return Object.freeze({ owner: '', ...fields, id, createdAt: now, updatedAt: now, revision });
  }
}

export const silent = { warn: () => {}, error: () => {} };

/** Serves `server` on a loopback port for the test file's run; `base()` is its url once listening. */
export function serveForTests(server: Server): { base: () => string } {
  let base = '';
  test.before(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  test.after.always(() => {
    server.closeAllConnections();
    server.close();
  });
  return { base: () => base };
}

/**
 * Compiled RouteTables per workspace, so `match` does not rebuild a trie per call.
 *
 * The version of a workspace's table is `store.revision(workspace)`, which
 * grows with every create, update and delete, so one cheap read per match
 * tells whether the cached table is current. Every instance of a scaled-out
 * service sees the same revision, so no invalidation messages are needed. Least recently used workspaces are dropped past
 * `capacity`. Concurrent matches of a stale workspace share one rebuild.
 */
import { SwitchyardError } from '../errors.js';
import type { RouteStore } from '../ports/route-store.js';
import { toRoute } from './route-view.js';
import { RouteTable } from './route-table.js';
import type { Route } from './types.js';

interface CachedTable {
  readonly version: number;
  readonly table: Promise<RouteTable<Route>>;
}

export class RouteTableCache {
  readonly #store: RouteStore;
  readonly #capacity: number;
  /** Map order is recency order: oldest first. */
  readonly #byWorkspace = new Map<string, CachedTable>();

  constructor(store: RouteStore, capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.#store = store;
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#byWorkspace.size;
  }

  async tableFor(workspace: string): Promise<RouteTable<Route>> {
    const version = await this.#store.revision(workspace);
    const cached = this.#byWorkspace.get(workspace);
    // A table at least as new as the revision read is current (revisions only grow).
    if (cached !== undefined && cached.version >= version) {
      this.#touch(workspace, cached);
      return cached.table;
    }
    const entry: CachedTable = { version, table: this.#build(workspace) };
    this.#touch(workspace, entry);
    entry.table.catch(() => {
      if (this.#byWorkspace.get(workspace) === entry) this.#byWorkspace.delete(workspace);
    });
    return entry.table;
  }

  async #build(workspace: string): Promise<RouteTable<Route>> {
    const { records } = await this.#store.snapshot(workspace);
    try {
      return new RouteTable(records.map(toRoute));
    } catch (error) {
      // Stored routes were validated on create; failing here means the data was changed behind our back.
      throw new SwitchyardError('internal', 'stored routes do not compile', [], { cause: error });
    }
  }

  #touch(workspace: string, entry: CachedTable): void {
    this.#byWorkspace.delete(workspace);
    this.#byWorkspace.set(workspace, entry);
    if (this.#byWorkspace.size > this.#capacity) {
      const oldest = this.#byWorkspace.keys().next().value;
      if (oldest !== undefined) this.#byWorkspace.delete(oldest);
    }
  }
}

import { RouteTable, type RouteTableMatch } from './route-table.js';
import type { Route, RouteEvent } from './types.js';

type ChangeEvent = Extract<RouteEvent, { type: 'upsert' | 'delete' }>;

const idOf = (event: ChangeEvent): string => (event.type === 'upsert' ? event.route.id : event.id);

/**
 * A workspace's route table kept in step with a watch (`routes.watch`, the
 * gRPC WatchRoutes stream, the REST event stream, or any source of the same
 * events), matched in-process at RouteTable speed.
 *
 * A snapshot is collected aside and swapped in whole on `synced`, so matches
 * meanwhile (and while a source is disconnected) see the last complete table,
 * never half of one. So is a revision of several changes (an apply): its
 * changes are held aside until the last (the one without `moreInRevision`),
 * then applied together. The compiled matcher is rebuilt on the first match after
 * a change, so a burst of changes costs one rebuild.
 */
export class SyncedRouteTable {
  #routes = new Map<string, Route>();
  /** The snapshot being received, between `reset` and `synced`. */
  #incoming: Map<string, Route> | undefined;
  /** The changes of a revision received so far, before its last. */
  #partial: ChangeEvent[] = [];
  #revision = 0;
  #synced = false;
  #compiled: RouteTable<Route> | undefined;
  readonly #listeners = new Set<(event: RouteEvent) => void>();

  /** The revision of the table matches see. */
  get revision(): number {
    return this.#revision;
  }

  /** True once a whole table has been received. */
  get ready(): boolean {
    return this.#synced;
  }

  /** The routes matches see, in no particular order. */
  routes(): Route[] {
    return [...this.#routes.values()];
  }

  match(method: string, path: string): RouteTableMatch<Route> | undefined {
    this.#compiled ??= new RouteTable(this.#routes.values());
    return this.#compiled.match(method, path);
  }

  /** Called after each event that changed what matches see (a change, or a snapshot swapped in); the changes of a revision once it is whole. */
  onChange(listener: (event: RouteEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Applies one event. Events older than the table (a replay after a reconnect) are ignored. */
  apply(event: RouteEvent): void {
    switch (event.type) {
      case 'reset':
        this.#incoming = new Map();
        this.#partial = [];
        return;
      case 'upsert':
        if (this.#incoming) return void this.#incoming.set(event.route.id, event.route);
        return this.#change(event);
      case 'delete':
        if (this.#incoming) return;
        return this.#change(event);
      case 'synced':
        if (!this.#incoming) return;
        this.#routes = this.#incoming;
        this.#incoming = undefined;
        this.#synced = true;
        return this.#changed(event);
      case 'heartbeat':
        return;
    }
  }

  /** Applies every event of `events` until it ends (or throws). */
  async follow(events: AsyncIterable<RouteEvent>): Promise<void> {
    for await (const event of events) this.apply(event);
  }

  /** A snapshot or a revision cut short (the source went away mid-way) is dropped; the last whole table stays. */
  abandonSnapshot(): void {
    this.#incoming = undefined;
    this.#partial = [];
  }

  /** Holds a change until its revision is whole, then applies the revision's changes at once. */
  #change(event: ChangeEvent): void {
    if (event.revision <= this.#revision) return;
    // Another revision, or this one sent again from its start (a resumed watch; a revision names each route once): start over.
    const first = this.#partial[0];
    if (first !== undefined && (first.revision !== event.revision || idOf(first) === idOf(event))) this.#partial = [];
    this.#partial.push(event);
    if (event.moreInRevision === true) return;
    const revision = this.#partial;
    this.#partial = [];
    for (const change of revision) {
      if (change.type === 'upsert') this.#routes.set(change.route.id, change.route);
      else this.#routes.delete(change.id);
    }
    // Listeners hear of each change, once the table holds the whole revision.
    for (const change of revision) this.#changed(change);
  }

  #changed(event: RouteEvent): void {
    this.#revision = event.revision;
    this.#compiled = undefined;
    for (const listener of this.#listeners) listener(event);
  }
}

import { SwitchyardError } from '../errors.js';
import { routeChangeEvent } from '../webhooks/webhook-events.js';
import type { MemoryOutbox } from './memory-outbox.js';
import type {
  NewRouteRecord,
  RouteChange,
  RouteCursor,
  RouteScope,
  RouteRecord,
  RouteRecordUpdate,
  RouteRevisionWrite,
  RouteRevisionWritten,
  RouteStore,
  RouteWriteOrigin,
} from '../ports/route-store.js';
import { revisionRefusals } from '../ports/revision-refusals.js';
import { wholeRevisions } from '../ports/whole-revisions.js';

/** Revisions whose changes are kept per workspace before the oldest are dropped (watchers further behind get a snapshot). */
export const DEFAULT_ROUTE_HISTORY = 10_000;

interface WorkspaceRoutes {
  readonly workspace: string;
  readonly byId: Map<string, RouteRecord>;
  /** `method shape` → route id. */
  readonly shapes: Map<string, string>;
  revision: number;
  /** Oldest first; revisions consecutive, each with one change or more. */
  readonly changes: RouteChange[];
}

/** RouteStore in process memory: for tests and embedders that need no persistence. Every operation is synchronous inside, so atomic. */
export class MemoryRouteStore implements RouteStore {
  readonly #workspaces = new Map<string, WorkspaceRoutes>();
  readonly #ids = new Set<string>();
  readonly #history: number;

  readonly #outbox: MemoryOutbox | undefined;

  constructor(options: { history?: number; outbox?: MemoryOutbox } = {}) {
    this.#history = options.history ?? DEFAULT_ROUTE_HISTORY;
    this.#outbox = options.outbox;
  }

  async insert(record: NewRouteRecord, origin?: RouteWriteOrigin): Promise<RouteRecord> {
    const routes = this.#routes(record.workspace);
    this.#refuseDuplicate(routes, record.method, record.shape, undefined);
    if (this.#ids.has(record.id)) throw new SwitchyardError('already_exists', 'route id already exists');
    const stored = freezeRoute({ ...record, revision: routes.revision + 1 });
    this.#ids.add(stored.id);
    routes.byId.set(stored.id, stored);
    routes.shapes.set(shapeKey(stored), stored.id);
    this.#log(routes, [{ kind: 'create', ...factsOf(stored, origin), before: undefined, after: stored }]);
    return stored;
  }

  async update(workspace: string, id: string, update: RouteRecordUpdate, origin?: RouteWriteOrigin): Promise<RouteRecord | undefined> {
    const routes = this.#workspaces.get(workspace);
    const current = routes?.byId.get(id);
    if (!routes || !current) return undefined;
    this.#refuseDuplicate(routes, update.method, update.shape, id);
    const stored = freezeRoute({ ...current, ...update, revision: routes.revision + 1 });
    routes.shapes.delete(shapeKey(current));
    routes.shapes.set(shapeKey(stored), id);
    routes.byId.set(id, stored);
    this.#log(routes, [{ kind: 'update', ...factsOf(stored, origin), before: current, after: stored }]);
    return stored;
  }

  async delete(workspace: string, id: string, origin?: RouteWriteOrigin): Promise<{ readonly revision: number } | undefined> {
    const routes = this.#workspaces.get(workspace);
    const current = routes?.byId.get(id);
    if (!routes || !current) return undefined;
    routes.byId.delete(id);
    routes.shapes.delete(shapeKey(current));
    const revision = routes.revision + 1;
    const facts = { ...factsOf(current, origin), revision, time: new Date(origin?.time ?? 0) };
    this.#log(routes, [{ kind: 'delete', ...facts, before: current, after: undefined }]);
    return { revision };
  }

  /** Checks the whole write against the table first, then makes it: nothing runs between the two, so it is atomic. */
  async applyRevision(write: RouteRevisionWrite): Promise<RouteRevisionWritten> {
    const routes = this.#routes(write.workspace);
    if (write.expectedRevision !== undefined && write.expectedRevision !== routes.revision)
      throw revisionRefusals.stale(write.expectedRevision, routes.revision);
    const revision = routes.revision + 1;
    const changes = this.#planned(routes, write, revision);
    if (changes.length === 0) return { revision: routes.revision, changes: [] };
    // Every old definition leaves before a new one comes, as #planned checked them.
    for (const { before, id } of changes) {
      if (!before) continue;
      routes.byId.delete(id);
      routes.shapes.delete(shapeKey(before));
    }
    for (const { after, id } of changes) {
      if (!after) continue;
      this.#ids.add(id);
      routes.byId.set(id, after);
      routes.shapes.set(shapeKey(after), id);
    }
    this.#log(routes, changes);
    return { revision, changes };
  }

  /** The changes `write` makes at `revision`, in order, or the refusal of all of it; the table is only read. */
  #planned(routes: WorkspaceRoutes, write: RouteRevisionWrite, revision: number): RouteChange[] {
    const origin = write.origin;
    const named = new Set<string>();
    const current = (id: string): RouteRecord => {
      const record = routes.byId.get(id);
      if (record === undefined || named.has(id)) throw revisionRefusals.missing(id);
      named.add(id);
      return record;
    };
    // Method and shape → holder, as the table will be: deletes and moved updates free theirs first.
    const shapes = new Map(routes.shapes);
    const deleted = write.delete.map((id) => current(id));
    const updated = write.update.map(({ id, update }) => {
      const before = current(id);
      return { before, after: freezeRoute({ ...before, ...update, revision }) };
    });
    for (const record of [...deleted, ...updated.map((change) => change.before)]) shapes.delete(shapeKey(record));
    const take = (record: RouteRecord) => {
      if (shapes.has(shapeKey(record))) throw duplicateShape(record.method);
      shapes.set(shapeKey(record), record.id);
    };
    for (const { after } of updated) take(after);
    const created = write.create.map((record) => {
      if (this.#ids.has(record.id) || named.has(record.id)) throw new SwitchyardError('already_exists', 'route id already exists');
      named.add(record.id);
      const stored = freezeRoute({ ...record, revision });
      take(stored);
      return stored;
    });
    const facts = (record: RouteRecord) => ({ ...factsOf(record, origin), revision });
    return [
      ...deleted.map((before): RouteChange => ({ kind: 'delete', ...facts(before), before, after: undefined })),
      ...updated.map(({ before, after }): RouteChange => ({ kind: 'update', ...facts(after), before, after })),
      ...created.map((after): RouteChange => ({ kind: 'create', ...facts(after), before: undefined, after })),
    ];
  }

  async get(workspace: string, id: string): Promise<RouteRecord | undefined> {
    return this.#workspaces.get(workspace)?.byId.get(id);
  }

  async list(workspace: string): Promise<RouteRecord[]> {
    return [...(this.#workspaces.get(workspace)?.byId.values() ?? [])].sort(compareAge);
  }

  async page(workspace: string, after: RouteCursor | undefined, limit: number): Promise<RouteRecord[]> {
    const all = await this.list(workspace);
    const start = after === undefined ? 0 : all.findIndex((record) => compareAge(record, after) > 0);
    return start === -1 ? [] : all.slice(start, start + limit);
  }

  async count(workspace: string): Promise<number> {
    return this.#workspaces.get(workspace)?.byId.size ?? 0;
  }

  async revision(workspace: string): Promise<number> {
    return this.#workspaces.get(workspace)?.revision ?? 0;
  }

  async snapshot(workspace: string): Promise<{ readonly revision: number; readonly records: RouteRecord[] }> {
    return { revision: await this.revision(workspace), records: await this.list(workspace) };
  }

  async scopedSnapshot(workspace: string, scope: RouteScope): Promise<{ readonly revision: number; readonly records: RouteRecord[] }> {
    const routes = this.#workspaces.get(workspace);
    if (routes === undefined) return { revision: 0, records: [] };
    const found = new Map<string, RouteRecord>();
    for (const record of routes.byId.values()) if (record.owner === scope.owner) found.set(record.id, record);
    for (const { method, shape } of scope.keys) {
      const id = routes.shapes.get(shapeKey({ method, shape }));
      if (id !== undefined) found.set(id, routes.byId.get(id)!);
    }
    return { revision: routes.revision, records: [...found.values()] };
  }

  async changesSince(workspace: string, revision: number, limit: number): Promise<RouteChange[] | undefined> {
    const routes = this.#workspaces.get(workspace);
    const current = routes?.revision ?? 0;
    if (revision > current || revision < 0) return undefined;
    if (revision === current) return [];
    const changes = routes!.changes;
    const oldest = changes[0]?.revision ?? current + 1;
    if (oldest > revision + 1) return undefined;
    const start = changes.findIndex((change) => change.revision > revision);
    return wholeRevisions(changes.slice(start, start + limit + 1), limit) ?? changes.filter((change) => change.revision === revision + 1);
  }

  #routes(workspace: string): WorkspaceRoutes {
    let routes = this.#workspaces.get(workspace);
    if (!routes) this.#workspaces.set(workspace, (routes = { workspace, byId: new Map(), shapes: new Map(), revision: 0, changes: [] }));
    return routes;
  }

  #refuseDuplicate(routes: WorkspaceRoutes, method: string, shape: string, self: string | undefined): void {
    const holder = routes.shapes.get(`${method} ${shape}`);
    if (holder !== undefined && holder !== self) throw duplicateShape(method);
  }

  /** Appends one revision's changes and drops the revisions past the history. */
  #log(routes: WorkspaceRoutes, changes: readonly RouteChange[]): void {
    routes.revision = changes[0]!.revision;
    routes.changes.push(...changes);
    this.#outbox?.enqueue(
      routes.workspace,
      changes.map((change) => routeChangeEvent(routes.workspace, change)),
    );
    const kept = routes.changes.findIndex((change) => change.revision > routes.revision - this.#history);
    if (kept > 0) routes.changes.splice(0, kept);
  }
}

/** The facts a change records of a write of `record`: its revision, owner, and who wrote it when. */
function factsOf(record: RouteRecord, origin: RouteWriteOrigin | undefined) {
  return {
    revision: record.revision,
    id: record.id,
    time: new Date(origin?.time ?? record.updatedAt),
    actor: origin?.actor ?? '',
    owner: record.owner,
  };
}

function duplicateShape(method: string): SwitchyardError {
  return new SwitchyardError('already_exists', `a ${method} route with this path shape already exists`, [
    { field: 'path', reason: 'duplicate method and path shape' },
  ]);
}

function shapeKey(record: Pick<RouteRecord, 'method' | 'shape'>): string {
  return `${record.method} ${record.shape}`;
}

function compareAge(a: Pick<RouteRecord, 'createdAt' | 'id'>, b: Pick<RouteRecord, 'createdAt' | 'id'>): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function freezeRoute(record: RouteRecord): RouteRecord {
  return Object.freeze({
    ...record,
    middleware: Object.freeze([...record.middleware]),
    createdAt: new Date(record.createdAt),
    updatedAt: new Date(record.updatedAt),
  });
}

import { SwitchyardError } from '../errors.js';
import type { RouteRecord, RouteStore } from '../ports/route-store.js';

/** RouteStore in process memory: for tests and embedders that need no persistence. */
export class MemoryRouteStore implements RouteStore {
  readonly #byId = new Map<string, RouteRecord>();
  readonly #byWorkspace = new Map<string, RouteRecord[]>();
  readonly #shapes = new Set<string>();

  async insert(record: RouteRecord): Promise<void> {
    const shapeKey = JSON.stringify([record.workspace, record.method, record.shape]);
    if (this.#shapes.has(shapeKey)) {
      throw new SwitchyardError('already_exists', `a ${record.method} route with this path shape already exists`, [
        { field: 'path', reason: 'duplicate method and path shape' },
      ]);
    }
    if (this.#byId.has(record.id)) throw new SwitchyardError('already_exists', 'route id already exists');
    const copy = freezeRoute(record);
    this.#shapes.add(shapeKey);
    this.#byId.set(copy.id, copy);
    const list = this.#byWorkspace.get(copy.workspace) ?? [];
    // Kept oldest first (by createdAt, then id) whatever the insertion order, as the contract says.
    const at = list.findIndex((other) => compareAge(copy, other) < 0);
    list.splice(at === -1 ? list.length : at, 0, copy);
    this.#byWorkspace.set(copy.workspace, list);
  }

  async get(workspace: string, id: string): Promise<RouteRecord | undefined> {
    const record = this.#byId.get(id);
    return record?.workspace === workspace ? record : undefined;
  }

  async list(workspace: string): Promise<RouteRecord[]> {
    return [...(this.#byWorkspace.get(workspace) ?? [])];
  }

  async count(workspace: string): Promise<number> {
    return this.#byWorkspace.get(workspace)?.length ?? 0;
  }
}

function compareAge(a: RouteRecord, b: RouteRecord): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function freezeRoute(record: RouteRecord): RouteRecord {
  return Object.freeze({ ...record, middleware: Object.freeze([...record.middleware]), createdAt: new Date(record.createdAt) });
}

import type { RouteStore } from '@switchyard/core';
import { CounterFamily, type Registry } from '@switchyard/runtime';

/**
 * The route store with every `revision` call counted in
 * `switchyard_route_revision_reads_total`: what watched workspaces cost the
 * database (each poll of a watched workspace is one), and so what a change
 * feed saves (compare an instance with EVENTS_URL and one without).
 */
export function countRevisionReads(store: RouteStore, registry: Registry): RouteStore {
  const reads = new CounterFamily(registry, {
    name: 'switchyard_route_revision_reads_total',
    help: "Reads of a workspace's route revision by route watchers: one per poll of a watched workspace.",
  }).cell({});
  const revision = (workspace: string): Promise<number> => {
    reads.value += 1;
    return store.revision(workspace);
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'revision') return revision;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

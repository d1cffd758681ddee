import type { ChangeLogName, RevisionSource } from '@switchyard/core';
import { CounterFamily, type Registry } from '@switchyard/runtime';

const METRICS: Readonly<Record<ChangeLogName, { name: string; help: string }>> = {
  routes: {
    name: 'switchyard_route_revision_reads_total',
    help: "Reads of a workspace's route revision by route watchers: one per poll of a watched workspace.",
  },
  assets: {
    name: 'switchyard_asset_revision_reads_total',
    help: "Reads of a workspace's asset revision, by asset watchers (one per poll of a watched workspace) and AssetService.revision.",
  },
};

/**
 * The route store (or the asset store) with every `revision` call counted in
 * `switchyard_route_revision_reads_total` (`switchyard_asset_revision_reads_total`):
 * what watched workspaces cost the database (each poll of a watched workspace
 * is one), and so what a change feed saves (compare an instance with
 * EVENTS_URL and one without).
 */
export function countRevisionReads<Store extends RevisionSource>(store: Store, registry: Registry, log: ChangeLogName): Store {
  const reads = new CounterFamily(registry, METRICS[log]).cell({});
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

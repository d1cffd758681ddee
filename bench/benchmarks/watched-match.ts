import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { createPrincipal, createSwitchyard, memoryAdapters, SCOPES, SyncedRouteTable } from '@switchyard/core';
import { result, type BenchResult } from '../harness/results.js';
import { alternate, crossCheck, type Match } from './match-route.js';
import { buildRouteSet } from './route-set.js';

/**
 * Matches per second of a watched table: the 1,000 routes of the match
 * benchmark created through the core, followed by a SyncedRouteTable from
 * `routes.watch` (as an embedder or a `watchRouteTable` client holds them),
 * against find-my-way's `find` on the same routes and paths.
 */
export async function watchedMatch(): Promise<BenchResult[]> {
  const { routes, probes } = buildRouteSet();
  const switchyard = createSwitchyard({ ...memoryAdapters(), cdnUrl: 'http://cdn.invalid/files' });
  const caller = createPrincipal('bench', 'bench', SCOPES);
  for (const route of routes) await switchyard.routes.create(caller, { method: route.method, path: route.path, handler: 'h' });
  const table = new SyncedRouteTable();
  const stop = new AbortController();
  const synced = new Promise<void>((resolve) => table.onChange((event) => event.type === 'synced' && resolve()));
  const following = table.follow(switchyard.routes.watch(caller, { signal: stop.signal }));
  await synced;

  const router = FindMyWay();
  for (const route of routes) router.on(route.method as HTTPMethod, route.path, () => undefined, route.path);
  crossCheck(
    'find-my-way',
    (method, path): Match => {
      const found = router.find(method as HTTPMethod, path);
      return found ? { pattern: found.store as string, params: found.params } : undefined;
    },
    probes,
  );
  crossCheck(
    'SyncedRouteTable',
    (method, path): Match => {
      const found = table.match(method, path);
      return found ? { pattern: found.route.path, params: found.params } : undefined;
    },
    probes,
  );

  const opsPerSecond = alternate(
    { ours: (method, path) => table.match(method, path), baseline: (method, path) => router.find(method as HTTPMethod, path) },
    probes,
  );
  stop.abort();
  await following;
  return [
    result('watched-match', opsPerSecond.ours, opsPerSecond.baseline, 'ops/s', 'higher', {
      goal: 'ratio >= 1.5',
      notes: { routes: routes.length, paths: probes.length },
    }),
  ];
}

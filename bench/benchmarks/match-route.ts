import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { RouteTable } from '@switchyard/core';
import { plan } from '../harness/plan.js';
import { result, type BenchResult } from '../harness/results.js';
import { buildRouteSet, type Probe } from './route-set.js';

export type Match = { pattern: string; params: Record<string, string | undefined> } | undefined;
export type MatchFn = (method: string, path: string) => unknown;

/**
 * Benchmark 5, in-process: our RouteTable against find-my-way's `find` with the
 * same 1,000 routes and the same concrete paths (a pass over all of them per
 * iteration, misses included). Both answers are cross-checked once first.
 */
export async function matchRoute(): Promise<BenchResult[]> {
  const { routes, probes } = buildRouteSet();
  const router = FindMyWay();
  for (const route of routes) router.on(route.method as HTTPMethod, route.path, () => undefined, route.path);
  const theirs = (method: string, path: string): Match => {
    const found = router.find(method as HTTPMethod, path);
    return found ? { pattern: found.store as string, params: found.params } : undefined;
  };
  const table = new RouteTable(routes);
  const ours = (method: string, path: string): Match => {
    const found = table.match(method, path);
    return found ? { pattern: found.route.path, params: found.params } : undefined;
  };
  crossCheck('find-my-way', theirs, probes);
  crossCheck('RouteTable', ours, probes);

  const opsPerSecond = alternate(
    { ours: (method, path) => table.match(method, path), baseline: (method, path) => router.find(method as HTTPMethod, path) },
    probes,
  );
  return [
    result('lib-match-route', opsPerSecond.ours, opsPerSecond.baseline, 'ops/s', 'higher', {
      goal: 'ratio >= 1',
      notes: { routes: routes.length, paths: probes.length },
    }),
  ];
}

/** Warms both matchers up, then times them alternately for `plan.rounds` rounds; matches per second of each. */
export function alternate(candidates: Record<'ours' | 'baseline', MatchFn>, probes: readonly Probe[]): Record<'ours' | 'baseline', number> {
  const opsPerSecond = { ours: 0, baseline: 0 };
  for (const side of ['ours', 'baseline'] as const) time(candidates[side], probes, plan.matchMillis / 4);
  for (let round = 0; round < plan.rounds; round++) {
    for (const side of round % 2 ? (['baseline', 'ours'] as const) : (['ours', 'baseline'] as const)) {
      opsPerSecond[side] += time(candidates[side], probes, plan.matchMillis) / plan.rounds;
    }
  }
  return opsPerSecond;
}

/** Matches every probe repeatedly for about `millis`; returns matches per second. */
function time(match: MatchFn, probes: readonly Probe[], millis: number): number {
  let ops = 0;
  let hits = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < millis) {
    for (const probe of probes) if (match(probe.method, probe.path)) hits++;
    ops += probes.length;
    elapsed = performance.now() - started;
  }
  if (hits === 0) throw new Error('no matches: the matcher is broken');
  return (ops / elapsed) * 1000;
}

/** Every probe must find its expected pattern with exactly its params (or nothing, for a miss). */
export function crossCheck(label: string, match: (method: string, path: string) => Match, probes: readonly Probe[]): void {
  for (const probe of probes) {
    const found = match(probe.method, probe.path);
    const ok =
      probe.expected === undefined
        ? found === undefined
        : found?.pattern === probe.expected && JSON.stringify(sorted(found.params)) === JSON.stringify(sorted(probe.params));
    if (!ok)
      throw new Error(
        `${label}: ${probe.method} ${probe.path} gave ${JSON.stringify(found)}, expected ${probe.expected} ${JSON.stringify(probe.params)}`,
      );
  }
}

function sorted(params: Record<string, string | undefined>): [string, string | undefined][] {
  return Object.entries(params).sort(([a], [b]) => a.localeCompare(b));
}

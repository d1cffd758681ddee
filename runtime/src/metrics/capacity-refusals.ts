import type { Registry } from 'prom-client';
import { CounterFamily } from './families.js';

/** Where a request was refused 503 because a bound was reached: the gateway's connections and uploads, the service's transform queue. */
export type CapacityBound = 'connections' | 'uploads' | 'transforms';

const families = new WeakMap<Registry, CounterFamily<'bound'>>();

/**
 * `switchyard_capacity_refusals_total{bound}`: one family per registry, so
 * the gateway and the service of the all-in-one server (one registry) count
 * into the same series, and each process of a split deployment has its own.
 */
export function capacityRefusals(registry: Registry): CounterFamily<'bound'> {
  let family = families.get(registry);
  if (family === undefined) {
    family = new CounterFamily(registry, {
      name: 'switchyard_capacity_refusals_total',
      help: "Requests refused 503 at a capacity bound: the gateway's MAX_CONNECTIONS and MAX_INFLIGHT_UPLOADS, the service's image transform queue (TRANSFORM_CONCURRENCY).",
      labelNames: ['bound'] as const,
    });
    families.set(registry, family);
  }
  return family;
}

/** The cell of one bound, made at zero now so the series exists before the first refusal. */
export function capacityRefusalCell(registry: Registry, bound: CapacityBound) {
  return capacityRefusals(registry).cell({ bound });
}

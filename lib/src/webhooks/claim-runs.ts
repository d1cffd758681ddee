import type { ClaimQuery } from '../ports/webhook-store.js';

/**
 * Chooses, in due order, the deliveries one claim takes: up to `limit` runs,
 * each of up to `run` deliveries of one endpoint, and at most `perEndpoint`
 * runs per endpoint counting those `busy`. Stores share it so that a claim
 * means the same everywhere, and the relay cuts what it got back into the
 * same runs (an endpoint's deliveries, `run` at a time, in order).
 */
export interface ClaimRuns {
  /** Whether a due delivery of `endpointId` fits, counting it in if so. */
  take(endpointId: string): boolean;
}

export function claimRuns(query: Pick<ClaimQuery, 'limit' | 'perEndpoint' | 'busy' | 'run'>): ClaimRuns {
  const run = runLengthOf(query);
  const taken = new Map<string, number>();
  let runs = 0;
  return {
    take(endpointId) {
      const count = taken.get(endpointId) ?? 0;
      const freeRuns = query.perEndpoint - (query.busy.get(endpointId) ?? 0);
      if (count >= freeRuns * run) return false;
      if (count % run === 0) {
        if (runs >= query.limit) return false;
        runs += 1;
      }
      taken.set(endpointId, count + 1);
      return true;
    },
  };
}

export const runLengthOf = (query: Pick<ClaimQuery, 'run'>): number => Math.max(1, Math.floor(query.run ?? 1));

import { watchRouteTable } from '@switchyard/client';
import { result, type BenchResult } from '../harness/results.js';
import { createRouteOver, upsertArrivals } from '../harness/route-changes.js';
import { percentile } from '../harness/stats.js';
import { createWorkspace, startOurs } from '../harness/servers.js';

const CHANGES = 1_000;

/**
 * How long a route created through REST takes to reach a watching client's
 * local table (`watchRouteTable` on the gateway's event stream), over 1,000
 * creates one after another: p50 and p99 from just before the POST to the
 * change event. The baseline is the POST's own round trip, the least any
 * propagation can take; the ratio shows what the watch adds.
 */
export async function routeSyncLatency(): Promise<BenchResult[]> {
  const ws = await createWorkspace('route-sync');
  const server = await startOurs(ws);
  const table = watchRouteTable({ url: server.url, token: ws.token });
  try {
    await table.ready;
    const arrival = upsertArrivals(table);
    const propagation: number[] = [];
    const roundTrip: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const started = performance.now();
      const id = await createRouteOver(server.url, ws.token, `/sync/${i}/:id`);
      roundTrip.push(performance.now() - started);
      propagation.push((await arrival(id)) - started);
    }
    const notes = { changes: CHANGES };
    return [
      result('route-sync-latency-p50', percentile(propagation, 0.5), percentile(roundTrip, 0.5), 'ms', 'lower', { notes }),
      result('route-sync-latency-p99', percentile(propagation, 0.99), percentile(roundTrip, 0.99), 'ms', 'lower', { notes }),
    ];
  } finally {
    table.close();
    await server.stop();
    await ws.cleanup();
  }
}

import { watchRouteTable } from '@switchyard/client';
import { result, type BenchResult } from '../harness/results.js';
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
    const arrived = new Map<string, number>();
    const waiting = new Map<string, () => void>();
    table.onChange((event) => {
      if (event.type !== 'upsert') return;
      arrived.set(event.route.id, performance.now());
      waiting.get(event.route.id)?.();
    });
    const propagation: number[] = [];
    const roundTrip: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const started = performance.now();
      const response = await fetch(`${server.url}/v1/routing`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ method: 'GET', path: `/sync/${i}/:id`, handler: 'h' }),
      });
      const answered = performance.now();
      if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
      const { id } = (await response.json()) as { id: string };
      if (!arrived.has(id)) await new Promise<void>((resolve) => waiting.set(id, resolve));
      waiting.delete(id);
      propagation.push(arrived.get(id)! - started);
      roundTrip.push(answered - started);
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

function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

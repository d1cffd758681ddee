import { alternate, cpuNotes } from '../harness/alternate.js';
import { grpcAssetClient } from '../harness/grpc-load.js';
import { plan } from '../harness/plan.js';
import { readCpuSeconds } from '../harness/proc.js';
import { result, type BenchResult } from '../harness/results.js';
import { createWorkspace, startBaseline, startOurService, startPair } from '../harness/servers.js';

/**
 * Benchmark 4: unary GetAsset calls/s against ours' gRPC service alone (auth,
 * SQLite lookup, mapping) and a bare grpc-js server answering a fixed message.
 */
export async function grpcGetAssetBench(): Promise<BenchResult[]> {
  const ws = await createWorkspace('grpc');
  try {
    const [ours, baseline] = await startPair(startOurService(ws), startBaseline(ws, 'bare-grpc-server.ts'));
    const clients = { ours: grpcAssetClient(ours.grpc, ws.token), baseline: grpcAssetClient(baseline.address, ws.token) };
    try {
      await clients.ours.seed();
      const pids = { ours: ours.pid, baseline: baseline.pid };
      const stats = await alternate(async (side, seconds) => {
        const cpuBefore = readCpuSeconds(pids[side]);
        const load = await clients[side].load(seconds);
        return { ...load, cpuMicrosPerRequest: ((readCpuSeconds(pids[side]) - cpuBefore) * 1e6) / Math.max(1, load.requests) };
      });
      return [
        result('grpc-get-asset', stats.ours.rps, stats.baseline.rps, 'calls/s', 'higher', {
          notes: { p99Ms: { ours: stats.ours.p99, baseline: stats.baseline.p99 }, inFlight: plan.grpcConcurrency, ...cpuNotes(stats) },
        }),
      ];
    } finally {
      clients.ours.close();
      clients.baseline.close();
      await Promise.all([ours.stop(), baseline.stop()]);
    }
  } finally {
    await ws.cleanup();
  }
}

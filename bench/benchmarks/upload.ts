import { execFileSync } from 'node:child_process';
import { median } from '../harness/stats.js';
import type { Side } from '../harness/alternate.js';
import { plan } from '../harness/plan.js';
import { result, type BenchResult } from '../harness/results.js';
import { sampleRssGrowth } from '../harness/proc.js';
import { createWorkspace, startBaseline, startOurs, startPair } from '../harness/servers.js';
import { uploadFile } from '../harness/upload-client.js';

const LIMIT = { MAX_UPLOAD_BYTES: String(1024 * 1024 * 1024) };

/**
 * Benchmark 3: one multipart upload at a time, ours (gateway → gRPC → disk)
 * against busboy → file. Fresh servers per size, warmed up with a small upload so
 * one-time module loading is not counted as growth; RSS growth is the peak of the
 * server process's VmRSS during an upload over its value just before it.
 */
export async function uploadThroughput(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const { mib, runs } of plan.uploads) results.push(...(await measureSize(mib, runs)));
  return results;
}

async function measureSize(mib: number, runs: number): Promise<BenchResult[]> {
  const ws = await createWorkspace(`upload-${mib}`);
  const started = startPair(startOurs(ws, LIMIT), startBaseline(ws, 'busboy-to-file.ts', LIMIT));
  const [ours, baseline] = await started.catch(async (error: unknown) => {
    await ws.cleanup();
    throw error;
  });
  const servers = { ours: { url: ours.url, pid: ours.pid }, baseline: { url: baseline.address, pid: baseline.pid } };
  try {
    const once = async (side: Side, size: number) => {
      // Earlier uploads' dirty pages are flushed first, so their write-back does not slow this one.
      execFileSync('sync');
      const rss = sampleRssGrowth(servers[side].pid);
      const outcome = await uploadFile(servers[side].url, ws.token, size);
      const growth = rss.stop();
      if (outcome.status !== 201) throw new Error(`${side} upload of ${size} MiB: ${outcome.status} ${outcome.body.slice(0, 300)}`);
      return { mbPerSecond: outcome.mbPerSecond, growth };
    };
    for (const side of ['ours', 'baseline'] as const) await once(side, 8);
    const samples: Record<Side, { mbPerSecond: number; growth: number }[]> = { ours: [], baseline: [] };
    for (let run = 0; run < runs; run++) {
      const order: Side[] = run % 2 === 0 ? ['ours', 'baseline'] : ['baseline', 'ours'];
      for (const side of order) samples[side].push(await once(side, mib));
    }
    const speed = (side: Side) => median(samples[side].map((s) => s.mbPerSecond));
    const growth = (side: Side) => Math.max(...samples[side].map((s) => s.growth));
    const name = `upload-throughput-${mib}mib`;
    return [
      result(name, speed('ours'), speed('baseline'), 'MB/s', 'higher', { goal: 'ratio >= 0.6', notes: { runs: samples } }),
      result(`${name}-rss`, growth('ours'), growth('baseline'), 'MiB', 'lower', { goal: 'ours < 64' }),
    ];
  } finally {
    await Promise.all([ours.stop(), baseline.stop()]);
    await ws.cleanup();
  }
}

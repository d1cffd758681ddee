import { execFileSync } from 'node:child_process';
import { cpuNotes, type Side } from '../harness/alternate.js';
import { compareHttp } from '../harness/http-load.js';
import { readCpuSeconds } from '../harness/proc.js';
import { result, type BenchResult } from '../harness/results.js';
import { createWorkspace, seedAsset, startOurs, startPair } from '../harness/servers.js';
import { uploadFile } from '../harness/upload-client.js';

const UPLOAD_MIB = 64;
/** Per-upload process CPU moved by a factor of three between single uploads (JIT, GC and page-cache timing): a median of 9 after two full-size warm-ups per side. */
const UPLOAD_RUNS = 9;
const WARM_UPS = 2;

/**
 * What metrics cost: `npm start` with metrics on (METRICS_PORT=0: every
 * request and call recorded) as "ours" against the same server with
 * METRICS_PORT=off (nothing recorded) as the baseline, for rest-get-asset and
 * a 64 MiB upload. The goal: under 5 % more server CPU per request.
 */
export async function metricsCost(): Promise<BenchResult[]> {
  const ws = await createWorkspace('metrics-cost');
  try {
    const [on, off] = await startPair(startOurs(ws, { METRICS_PORT: '0', DATA_DIR: `${ws.dir}/on` }), startOurs(ws, { METRICS_PORT: 'off', DATA_DIR: `${ws.dir}/off` }));
    try {
      const urls: Record<Side, string> = { ours: on.url, baseline: off.url };
      const pids: Record<Side, number> = { ours: on.pid, baseline: off.pid };
      const assetIds = { ours: await seedAsset(on.url, ws.token), baseline: await seedAsset(off.url, ws.token) };
      const auth = { authorization: `Bearer ${ws.token}` };
      const reads = await compareHttp((side) => ({ url: `${urls[side]}/v1/assets/${assetIds[side]}`, headers: auth }), pids);
      const notes = cpuNotes(reads);
      const cpu = notes['serverCpuMicrosPerRequest'] as Record<Side, number>;

      // Uploads alternate sides; server CPU per upload from /proc.
      const uploadCpu: Record<Side, number[]> = { ours: [], baseline: [] };
      for (let warm = 0; warm < WARM_UPS; warm++) for (const side of ['ours', 'baseline'] as const) await uploadFile(urls[side], ws.token, UPLOAD_MIB);
      for (let run = 0; run < UPLOAD_RUNS; run++) {
        for (const side of run % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const)) {
          execFileSync('sync');
          const before = readCpuSeconds(pids[side]);
          const outcome = await uploadFile(urls[side], ws.token, UPLOAD_MIB);
          if (outcome.status !== 201) throw new Error(`${side} upload: ${outcome.status}`);
          uploadCpu[side].push(readCpuSeconds(pids[side]) - before);
        }
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      return [
        result('metrics-cost-rest-get-asset-cpu', cpu.ours, cpu.baseline, 'µs CPU/request', 'lower', { goal: 'ratio <= 1.05', notes: { ...notes, rps: { on: reads.ours.rps, off: reads.baseline.rps } } }),
        result(`metrics-cost-upload-${UPLOAD_MIB}mib-cpu`, median(uploadCpu.ours), median(uploadCpu.baseline), 's CPU/upload', 'lower', { goal: 'ratio <= 1.05', notes: { runs: uploadCpu } }),
      ];
    } finally {
      await Promise.all([on.stop(), off.stop()]);
    }
  } finally {
    await ws.cleanup();
  }
}

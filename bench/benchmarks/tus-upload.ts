import { execFileSync } from 'node:child_process';
import { median } from '../harness/stats.js';
import type { Side } from '../harness/alternate.js';
import { plan } from '../harness/plan.js';
import { readCpuSeconds, sampleRssGrowth } from '../harness/proc.js';
import { result, type BenchResult } from '../harness/results.js';
import { createWorkspace, startOurs } from '../harness/servers.js';
import { tusUpload } from '../harness/tus-client.js';
import { benchBytes, uploadFile } from '../harness/upload-client.js';

const MIB = 1024 * 1024;
const LIMIT = { MAX_UPLOAD_BYTES: String(1024 * 1024 * 1024) };

interface Sample {
  readonly mbPerSecond: number;
  /** Peak VmRSS growth over the value just before the upload, MiB. */
  readonly growth: number;
  /** Peak VmRSS during the upload, MiB. */
  readonly peak: number;
  /** Server CPU time the upload took, s. */
  readonly cpuSeconds: number;
}

/**
 * Issue 16: a file uploaded over tus (`/v1/uploads`, tus-js-client with
 * `chunkSize` 8 MiB: a POST, then one 8 MiB PATCH after another) against the
 * same bytes as one plain multipart upload (`POST /v1/assets/upload`) to the
 * same all-in-one server: "ours" is tus, the "baseline" is our own multipart
 * path, so the ratio is what resumability costs. The two alternate, the order
 * flipping every run, `sync` before each; each finished asset is checked
 * (same size and sha256 on both paths) and deleted before the next upload.
 */
export async function tusUploadThroughput(): Promise<BenchResult[]> {
  const { mib, chunkMib, runs } = plan.tusUpload;
  const ws = await createWorkspace('tus-upload');
  try {
    const server = await startOurs(ws, LIMIT);
    try {
      return await measure(server, ws.token, mib, chunkMib, runs);
    } finally {
      await server.stop();
    }
  } finally {
    await ws.cleanup();
  }
}

async function measure(
  server: { url: string; pid: number },
  token: string,
  mib: number,
  chunkMib: number,
  runs: number,
): Promise<BenchResult[]> {
  const auth = { authorization: `Bearer ${token}` };
  const asset = async (id: string) => {
    const res = await fetch(`${server.url}/v1/assets/${id}`, { headers: auth });
    if (res.status !== 200) throw new Error(`GET asset ${id}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { size: number; sha256: string; type: string };
  };
  const remove = async (id: string) => {
    const res = await fetch(`${server.url}/v1/assets/${id}`, { method: 'DELETE', headers: auth });
    if (res.status !== 204) throw new Error(`DELETE asset ${id}: ${res.status} ${await res.text()}`);
  };
  const bytes = new Map<number, Buffer>();
  const bytesOf = (size: number) => bytes.get(size) ?? bytes.set(size, benchBytes(size)).get(size)!;
  const once = async (side: Side, size: number) => {
    execFileSync('sync');
    const file = bytesOf(size);
    const rss = sampleRssGrowth(server.pid);
    const cpuBefore = readCpuSeconds(server.pid);
    let id: string;
    let mbPerSecond: number;
    if (side === 'ours') {
      const outcome = await tusUpload(server.url, token, file, chunkMib * MIB);
      if (outcome.patches !== Math.ceil(size / chunkMib))
        throw new Error(`tus upload of ${size} MiB took ${outcome.patches} PATCH requests`);
      ({ assetId: id, mbPerSecond } = outcome);
    } else {
      const outcome = await uploadFile(server.url, token, size);
      if (outcome.status !== 201) throw new Error(`multipart upload of ${size} MiB: ${outcome.status} ${outcome.body.slice(0, 300)}`);
      id = (JSON.parse(outcome.body) as { id: string }).id;
      mbPerSecond = outcome.mbPerSecond;
    }
    const cpuSeconds = readCpuSeconds(server.pid) - cpuBefore;
    const growth = rss.stop();
    const made = await asset(id);
    await remove(id);
    return { sample: { mbPerSecond, growth, peak: rss.peak(), cpuSeconds }, made };
  };

  // Warm-up (module loading, JIT), then a cross-check: both paths make the same asset of the same bytes.
  const warm = { ours: await once('ours', chunkMib * 2), baseline: await once('baseline', chunkMib * 2) };
  if (
    warm.ours.made.size !== warm.baseline.made.size ||
    warm.ours.made.sha256 !== warm.baseline.made.sha256 ||
    warm.ours.made.type !== warm.baseline.made.type
  ) {
    throw new Error(`tus and multipart made different assets of the same bytes: ${JSON.stringify(warm)}`);
  }

  const samples: Record<Side, Sample[]> = { ours: [], baseline: [] };
  for (let run = 0; run < runs; run++) {
    const order: Side[] = run % 2 === 0 ? ['ours', 'baseline'] : ['baseline', 'ours'];
    for (const side of order) {
      const { sample, made } = await once(side, mib);
      if (made.size !== mib * MIB) throw new Error(`${side}: the asset has ${made.size} bytes, not ${mib * MIB}`);
      samples[side].push(sample);
    }
  }
  const speed = (side: Side) => median(samples[side].map((s) => s.mbPerSecond));
  const growth = (side: Side) => Math.max(...samples[side].map((s) => s.growth));
  const peak = (side: Side) => Math.max(...samples[side].map((s) => s.peak));
  const cpu = (side: Side) => median(samples[side].map((s) => s.cpuSeconds));
  const notes = {
    runs: samples,
    // Each tus upload over the multipart upload next to it: drift on the shared machine moves both of a pair.
    pairRatios: samples.ours.map((s, i) => s.mbPerSecond / samples.baseline[i]!.mbPerSecond),
    chunkBytes: chunkMib * MIB,
    client: 'tus-js-client (ours), node:http multipart (baseline)',
    peakRssMiB: { ours: peak('ours'), baseline: peak('baseline') },
    serverCpuSecondsPerUpload: { ours: cpu('ours'), baseline: cpu('baseline') },
  };
  const name = `tus-upload-throughput-${mib}mib`;
  return [
    result(name, speed('ours'), speed('baseline'), 'MB/s', 'higher', { goal: 'ratio >= 0.8', notes }),
    result(`${name}-rss`, growth('ours'), growth('baseline'), 'MiB', 'lower', { notes: { peakRssMiB: notes.peakRssMiB } }),
    result(`${name}-cpu`, cpu('ours'), cpu('baseline'), 's CPU/upload', 'lower'),
  ];
}

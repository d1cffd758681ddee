import { cpuNotes } from '../harness/alternate.js';
import { compareHttp } from '../harness/http-load.js';
import { result, type BenchResult } from '../harness/results.js';
import { createWorkspace, startBaseline, startOurs, startPair } from '../harness/servers.js';

export const SIZES = [
  { name: 'file-serve-16kib', bytes: 16 * 1024 },
  { name: 'file-serve-4mib', bytes: 4 * 1024 * 1024 },
] as const;

/**
 * Public file urls of `npm start` (gateway → FileService → disk, in-process)
 * against node:http + fs.createReadStream with the same headers: requests per
 * second for a small file, megabytes per second for a large one.
 */
export async function fileServe(): Promise<BenchResult[]> {
  const ws = await createWorkspace('file-serve');
  try {
    const [ours, baseline] = await startPair(
      startOurs(ws),
      startBaseline(ws, 'static-files.ts', { FILES: SIZES.map((size) => size.bytes).join(',') }),
    );
    try {
      const results: BenchResult[] = [];
      for (const { name, bytes } of SIZES) {
        const url = { ours: await uploadedUrl(ours.url, ws.token, bytes), baseline: `${baseline.address}/files/${bytes}.bin` };
        const stats = await compareHttp((side) => ({ url: url[side] }), { ours: ours.pid, baseline: baseline.pid });
        if (bytes < 1024 * 1024) {
          results.push(
            result(name, stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', { goal: 'ratio >= 0.5', notes: cpuNotes(stats) }),
          );
        } else {
          const mbps = (rps: number) => (rps * bytes) / 1e6;
          results.push(
            result(name, mbps(stats.ours.rps), mbps(stats.baseline.rps), 'MB/s', 'higher', {
              goal: 'ratio >= 0.8',
              notes: cpuNotes(stats),
            }),
          );
        }
      }
      return results;
    } finally {
      await Promise.all([ours.stop(), baseline.stop()]);
    }
  } finally {
    await ws.cleanup();
  }
}

/** Uploads `bytes` of data through ours' REST API; resolves with the file's public url. */
export async function uploadedUrl(url: string, token: string, bytes: number): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(bytes).fill(7)]), `file-${bytes}.bin`);
  const res = await fetch(`${url}/v1/assets/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as { url?: string };
  if (res.status !== 201 || !body.url) throw new Error(`uploading ${bytes} bytes failed: ${res.status} ${JSON.stringify(body)}`);
  return body.url;
}

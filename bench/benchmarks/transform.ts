import { availableParallelism } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cpuNotes, type Side } from '../harness/alternate.js';
import { compareHttp } from '../harness/http-load.js';
import { photoLikeJpeg } from '../harness/photo.js';
import { samplePeakRss, waitForIdle } from '../harness/proc.js';
import { result, type BenchResult } from '../harness/results.js';
import { createWorkspace, startBaseline, startOurs, startPair, type Workspace } from '../harness/servers.js';

const quick = process.env.BENCH_QUICK === '1';

/**
 * Every miss asks for a variant no request of the run has asked for: a new
 * (source, fit, q) triple. With only `w` given, every fit gives the same
 * output size, and q moves around the default 80, so each request is the same
 * work while naming a new variant; the baseline gets the same fit and q
 * sequence. The sources are copies of one JPEG uploaded as separate assets
 * (each its own blob, so its own variants).
 */
const FITS = ['inside', 'cover', 'contain', 'fill'] as const;
const QUALITIES = Array.from({ length: 20 }, (_, i) => 71 + i);
const VARIANTS_PER_SOURCE = FITS.length * QUALITIES.length;

/**
 * A miss takes 50-250 ms of CPU, so a round sees tens of requests: six
 * shorter rounds a side (the order flipping each time) average out the
 * bursts of other work on a shared machine better than the plan's two.
 * Before each warm-up and round both servers must be idle: requests
 * autocannon abandons at a round's end keep transforming in the server.
 */
export const MISS_ROUNDS = quick ? 2 : 6;
export const MISS_SECONDS = quick ? 1 : 5;

interface MissCase {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly format: 'webp' | 'jpeg';
  /** Uploaded copies of the source: enough distinct variants for the run (VARIANTS_PER_SOURCE each). */
  readonly copies: number;
  readonly goal?: string;
  readonly notes?: Record<string, unknown>;
}

/**
 * transform-miss: a 12-megapixel photo-like JPEG to a 512 px WebP through
 * ours' file url, every request a variant not made before (decode, resize,
 * encode, store, serve), against node:http running the same sharp pipeline
 * on the same bytes read from disk. Also the peak RSS of each server under
 * that load.
 */
export const transformMiss = (): Promise<BenchResult[]> =>
  missBench({ name: 'transform-miss', width: 4000, height: 3000, format: 'webp', copies: quick ? 2 : 20, goal: 'ratio >= 0.8' });

/**
 * transform-div2k-jpeg: the kind of work imgproxy's published benchmark
 * measures (DIV2K-sized JPEGs, ~2040x1356, fit to 512 px, JPEG out), for a
 * comparison with its ~80 req/s on 2 vCPU; not a goal.
 */
export const transformDiv2k = (): Promise<BenchResult[]> =>
  missBench({
    name: 'transform-div2k-jpeg',
    width: 2040,
    height: 1356,
    format: 'jpeg',
    copies: quick ? 2 : 36,
    notes: { anchor: 'imgproxy (published): ~80 req/s, DIV2K JPEGs fit to 512 px, JPEG out, 2 vCPU' },
  });

async function missBench(c: MissCase): Promise<BenchResult[]> {
  const ws = await createWorkspace(c.name);
  try {
    const source = await photoLikeJpeg(c.width, c.height);
    const sourcePath = join(ws.dir, 'source.jpg');
    await writeFile(sourcePath, source);
    const [ours, baseline] = await startPair(startOurs(ws), startBaseline(ws, 'sharp-transform.ts', { SOURCES: `photo=${sourcePath}` }));
    try {
      const urls: string[] = [];
      for (let i = 0; i < c.copies; i++) urls.push(await uploadJpeg(ours.url, ws, source, i));
      const available = c.copies * VARIANTS_PER_SOURCE;
      const asked = { ours: 0, baseline: 0 };
      const base = `w=512&format=${c.format}`;
      const pathOf: Record<Side, (n: number) => string> = {
        ours: (n) => `${new URL(urls[n % c.copies]!).pathname}?${base}&${fitAndQuality(Math.floor(n / c.copies))}`,
        baseline: (n) => `/t/photo?${base}&${fitAndQuality(Math.floor(n / c.copies))}`,
      };
      const rss = { ours: samplePeakRss(ours.pid), baseline: samplePeakRss(baseline.pid) };
      const schedule = { rounds: MISS_ROUNDS, measureSeconds: MISS_SECONDS, beforeEach: () => waitForIdle([ours.pid, baseline.pid]) };
      const stats = await compareHttp(
        (side) => {
          const setupRequest = (request: object) => ({ ...request, path: pathOf[side](asked[side]++) });
          return { url: side === 'ours' ? ours.url : baseline.address, requests: [{ method: 'GET', setupRequest }] };
        },
        { ours: ours.pid, baseline: baseline.pid },
        schedule,
      );
      const peak = { ours: rss.ours.stop(), baseline: rss.baseline.stop() };
      if (asked.ours > available)
        throw new Error(`${c.name}: ${asked.ours} requests but only ${available} distinct variants; upload more copies`);
      const output = await fetch(`${urls[0]}?${base}`).then(async (res) => (await res.arrayBuffer()).byteLength);
      const notes = {
        ...cpuNotes(stats),
        cores: availableParallelism(),
        sourceBytes: source.length,
        outputBytes: output,
        distinctVariantsAsked: asked.ours,
        ...c.notes,
      };
      return [
        result(c.name, stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', { ...(c.goal ? { goal: c.goal } : {}), notes }),
        result(`${c.name}-rss`, peak.ours, peak.baseline, 'MiB', 'lower', {
          notes: { what: 'peak VmRSS of the server process during the miss load (warm-up and rounds)' },
        }),
      ];
    } finally {
      await Promise.all([ours.stop(), baseline.stop()]);
    }
  } finally {
    await ws.cleanup();
  }
}

/** The k-th (fit, q) pair of a source: the first 80 are distinct. */
function fitAndQuality(k: number): string {
  return `fit=${FITS[k % FITS.length]}&q=${QUALITIES[Math.floor(k / FITS.length) % QUALITIES.length]}`;
}

/**
 * transform-hit: the 512 px WebP of the 12-megapixel source again and again
 * (made once before the load, so every request reads the stored variant)
 * against file-serve's baseline (node:http + fs.createReadStream) serving a
 * file of the variant's size.
 */
export async function transformHit(): Promise<BenchResult[]> {
  const ws = await createWorkspace('transform-hit');
  try {
    const source = await photoLikeJpeg(4000, 3000);
    const ours = await startOurs(ws);
    try {
      const url = `${await uploadJpeg(ours.url, ws, source, 0)}?w=512&format=webp`;
      const made = await fetch(url);
      const size = (await made.arrayBuffer()).byteLength;
      if (made.status !== 200) throw new Error(`transform-hit: making the variant answered ${made.status}`);
      const baseline = await startBaseline(ws, 'static-files.ts', { FILES: String(size) });
      try {
        const target = { ours: url, baseline: `${baseline.address}/files/${size}.bin` };
        const stats = await compareHttp((side) => ({ url: target[side] }), { ours: ours.pid, baseline: baseline.pid });
        return [
          result('transform-hit', stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', {
            goal: 'ratio >= 0.5',
            notes: { ...cpuNotes(stats), variantBytes: size },
          }),
        ];
      } finally {
        await baseline.stop();
      }
    } finally {
      await ours.stop();
    }
  } finally {
    await ws.cleanup();
  }
}

/** Uploads a JPEG through ours' REST API as its own asset; resolves with its file url. */
export async function uploadJpeg(url: string, ws: Workspace, bytes: Buffer, i: number): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), `photo-${i}.jpg`);
  const res = await fetch(`${url}/v1/assets/upload`, { method: 'POST', headers: { authorization: `Bearer ${ws.token}` }, body: form });
  const body = (await res.json()) as { url?: string };
  if (res.status !== 201 || !body.url) throw new Error(`uploading a JPEG failed: ${res.status} ${JSON.stringify(body)}`);
  return body.url;
}

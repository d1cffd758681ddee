import { availableParallelism } from 'node:os';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { cpuNotes, type Side } from '../harness/alternate.js';
import { compareHttp } from '../harness/http-load.js';
import { packageVersion, type PeerNotes } from '../harness/peers.js';
import { photoLikeJpeg } from '../harness/photo.js';
import { samplePeakRss, waitForIdle } from '../harness/proc.js';
import { result, type BenchResult } from '../harness/results.js';
import { createWorkspace, startBaseline, startOurs, startPair, type Workspace } from '../harness/servers.js';
import { MISS_ROUNDS, MISS_SECONDS, uploadJpeg } from './transform.js';

const quick = process.env.BENCH_QUICK === '1';
/** transform-miss's source count: each copy is its own asset (ours) or file (ipx). */
const COPIES = quick ? 2 : 20;

/**
 * The (fit, q) pairs of the miss load: transform-miss's qualities (71-90)
 * with the fits that, given only a width, make the same 512x384 image.
 * transform-miss's fourth fit, `fill`, keeps the source's height with only a
 * width (512x3000, 4x the CPU: 187 against 48 ms alone) and ipx's `w_`
 * ignores fit, so with it ours would do more work than ipx on a quarter of
 * the requests.
 */
const FITS = ['inside', 'cover', 'contain'] as const;
const QUALITIES = Array.from({ length: 20 }, (_, i) => 71 + i);
const VARIANTS_PER_SOURCE = FITS.length * QUALITIES.length;
const fitAndQuality = (k: number) => ({ fit: FITS[k % FITS.length]!, q: QUALITIES[Math.floor(k / FITS.length) % QUALITIES.length]! });

/**
 * BENCH_SHARP_CACHE=off: libvips' operation cache removed on both sides (ipx
 * in its process, ours through a preloaded module), for the side experiment
 * that shows whether sharp's default cache (the same on both) favours one.
 */
const cacheOff = process.env.BENCH_SHARP_CACHE === 'off';
const SHARP_CACHE_OFF = new URL('../harness/sharp-cache-off.mjs', import.meta.url);

function ipxNotes(): PeerNotes {
  return {
    peer: `ipx ${packageVersion('ipx')} (createIPXNodeServer, h3 ${packageVersion('h3', 'ipx')}) with its own sharp ${packageVersion('sharp', 'ipx')}; ours runs sharp ${packageVersion('sharp')}`,
    settings: `README's programmatic API: createIPX({ storage: ipxFSStorage({ dir }) }) on node:http; nothing else documented for production; sharp's libvips cache ${cacheOff ? 'off on both sides (BENCH_SHARP_CACHE=off)' : 'at its default on both sides (50 MB, 20 files, 100 operations)'}`,
    skips: [
      'no result cache: every request transforms again (ours stores each variant once, fsync included, and serves it from then on)',
      'no EXIF auto-rotation (ours always applies it)',
      'no bound on transforms at once (libuv: 4; ours: TRANSFORM_CONCURRENCY = cores) and no queue limit',
      'no database lookup, no metrics, no pixel limit of its own (sharp default 268 MP; ours 50 MP)',
    ],
  };
}

async function startSides(ws: Workspace, ipxDir: string) {
  const oursEnv: Record<string, string> = cacheOff
    ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${SHARP_CACHE_OFF.href}`.trim() }
    : {};
  return startPair(
    startOurs(ws, oursEnv),
    startBaseline(ws, 'ipx-server.ts', { IPX_DIR: ipxDir, ...(cacheOff ? { SHARP_CACHE: 'off' } : {}) }),
  );
}

/** Both answers are WebP images 512 px wide; their sizes go into the notes (two libvips versions encode a little differently). */
async function checkWebp(url: string): Promise<number> {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  const meta = await sharp(bytes).metadata();
  if (res.status !== 200 || meta.format !== 'webp' || meta.width !== 512)
    throw new Error(`${url}: ${res.status}, ${meta.format} ${meta.width}x${meta.height}`);
  return bytes.length;
}

async function writeCopies(ws: Workspace, source: Buffer, copies: number): Promise<string> {
  const dir = join(ws.dir, 'ipx');
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < copies; i++) await writeFile(join(dir, `photo-${i}.jpg`), source);
  return dir;
}

/**
 * peer-transform-miss: transform-miss's load (a 12 MP photo-like JPEG to a
 * 512 px WebP, request n asks source n mod 20 with the n-th (fit, q) pair, six
 * alternating rounds of 5 s, both servers idle before each) against ipx on
 * the same bytes as 20 files, the same fit and q sequence in ipx's URL form
 * (`/w_512,f_webp,fit_<fit>,q_<q>/photo-<i>.jpg`; with only a width, these
 * fits change nothing on either side: see FITS).
 */
export async function peerTransformMiss(): Promise<BenchResult[]> {
  const ws = await createWorkspace('peer-transform-miss');
  try {
    const source = await photoLikeJpeg(4000, 3000);
    const ipxDir = await writeCopies(ws, source, COPIES);
    const [ours, ipx] = await startSides(ws, ipxDir);
    try {
      const urls: string[] = [];
      for (let i = 0; i < COPIES; i++) urls.push(await uploadJpeg(ours.url, ws, source, i));
      const asked = { ours: 0, baseline: 0 };
      const pathOf: Record<Side, (n: number) => string> = {
        ours: (n) => {
          const { fit, q } = fitAndQuality(Math.floor(n / COPIES));
          return `${new URL(urls[n % COPIES]!).pathname}?w=512&format=webp&fit=${fit}&q=${q}`;
        },
        baseline: (n) => {
          const { fit, q } = fitAndQuality(Math.floor(n / COPIES));
          return `/w_512,f_webp,fit_${fit},q_${q}/photo-${n % COPIES}.jpg`;
        },
      };
      const rss = { ours: samplePeakRss(ours.pid), baseline: samplePeakRss(ipx.pid) };
      const schedule = { rounds: MISS_ROUNDS, measureSeconds: MISS_SECONDS, beforeEach: () => waitForIdle([ours.pid, ipx.pid]) };
      const stats = await compareHttp(
        (side) => {
          const setupRequest = (request: object) => ({ ...request, path: pathOf[side](asked[side]++) });
          return { url: side === 'ours' ? ours.url : ipx.address, requests: [{ method: 'GET', setupRequest }] };
        },
        { ours: ours.pid, baseline: ipx.pid },
        schedule,
      );
      const peak = { ours: rss.ours.stop(), baseline: rss.baseline.stop() };
      if (asked.ours > COPIES * VARIANTS_PER_SOURCE)
        throw new Error(`peer-transform-miss: ${asked.ours} requests but only ${COPIES * VARIANTS_PER_SOURCE} distinct variants`);
      // After the load: made before it, this variant could be one the load asks for.
      const outputBytes = {
        ours: await checkWebp(`${urls[0]}?w=512&format=webp`),
        baseline: await checkWebp(`${ipx.address}/w_512,f_webp/photo-0.jpg`),
      };
      const notes = {
        ...cpuNotes(stats),
        ...ipxNotes(),
        cores: availableParallelism(),
        sourceBytes: source.length,
        outputBytes,
        peakRssMiB: peak,
        distinctVariantsAsked: asked.ours,
      };
      return [result('peer-transform-miss', stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', { goal: 'ratio >= 1.0', notes })];
    } finally {
      await Promise.all([ours.stop(), ipx.stop()]);
    }
  } finally {
    await ws.cleanup();
  }
}

/**
 * peer-transform-hit: the same 512 px WebP again and again. Ours made it once
 * before the load and serves the stored variant; ipx keeps no results, so
 * every request transforms the 12 MP JPEG again: that is the comparison users
 * make, and the skip is noted beside it. The miss schedule (six rounds of
 * 5 s, idle servers before each), as ipx's requests cost a transform each.
 */
export async function peerTransformHit(): Promise<BenchResult[]> {
  const ws = await createWorkspace('peer-transform-hit');
  try {
    const source = await photoLikeJpeg(4000, 3000);
    const ipxDir = await writeCopies(ws, source, 1);
    const [ours, ipx] = await startSides(ws, ipxDir);
    try {
      const target = {
        ours: `${await uploadJpeg(ours.url, ws, source, 0)}?w=512&format=webp`,
        baseline: `${ipx.address}/w_512,f_webp/photo-0.jpg`,
      };
      const outputBytes = { ours: await checkWebp(target.ours), baseline: await checkWebp(target.baseline) };
      const schedule = { rounds: MISS_ROUNDS, measureSeconds: MISS_SECONDS, beforeEach: () => waitForIdle([ours.pid, ipx.pid]) };
      const stats = await compareHttp((side) => ({ url: target[side] }), { ours: ours.pid, baseline: ipx.pid }, schedule);
      const notes = { ...cpuNotes(stats), ...ipxNotes(), cores: availableParallelism(), outputBytes };
      return [result('peer-transform-hit', stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', { goal: 'ratio >= 1.0', notes })];
    } finally {
      await Promise.all([ours.stop(), ipx.stop()]);
    }
  } finally {
    await ws.cleanup();
  }
}

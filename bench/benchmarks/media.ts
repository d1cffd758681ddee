// Issue 32's figures: poster-frame-miss (new posters through ours' file urls
// against ffmpeg run directly on the same file) and upload-throughput-video
// (upload-throughput's load with a real 64 MiB video, so its media facts are
// read, against the same busboy baseline and goal).
import { execFileSync } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { text } from 'node:stream/consumers';
import { cpuNotes, type Side } from '../harness/alternate.js';
import { compareHttp } from '../harness/http-load.js';
import { samplePeakRss, sampleRssGrowth, waitForIdle } from '../harness/proc.js';
import { plan } from '../harness/plan.js';
import { result, type BenchResult } from '../harness/results.js';
import { median } from '../harness/stats.js';
import { createWorkspace, startBaseline, startOurs, startPair } from '../harness/servers.js';
import { MISS_ROUNDS, MISS_SECONDS } from './transform.js';

const FFMPEG = process.env['FFMPEG_PATH'] || 'ffmpeg';
const quick = process.env['BENCH_QUICK'] === '1';

/**
 * Waits (up to a minute) until none of `pids` has an ffmpeg child left. Only
 * ffmpeg counts: a baseline run through tsx keeps esbuild's service as a child
 * for its whole life (when tsx has no cache to read from).
 */
async function untilNoFfmpegChildren(pids: readonly number[]): Promise<void> {
  const name = basename(FFMPEG);
  for (let waited = 0; waited < 60_000; waited += 100) {
    const children = pids.flatMap((pid) => {
      try {
        return execFileSync('pgrep', ['-P', String(pid), '-x', name], { encoding: 'utf8' })
          .trim()
          .split('\n')
          .filter(Boolean);
      } catch {
        return [];
      }
    });
    if (children.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A 1280 × 720 H.264 video of `seconds` (a keyframe every 2 s, the index at the end, as cameras write it). */
function makeVideo(path: string, seconds: number): void {
  execFileSync(FFMPEG, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=1280x720:rate=30:duration=${seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-g',
    '60',
    '-pix_fmt',
    'yuv420p',
    path,
  ]);
}

/** About 64 MiB of H.264 that does not compress (noise at a fixed bitrate), index at the end. */
function makeLargeVideo(path: string, mib: number): void {
  const seconds = 20;
  const bitrate = Math.round((mib * 1024 * 1024 * 8) / seconds / 1e6);
  const noise = 'nullsrc=size=640x360:rate=30,geq=lum=random(1)*255:cb=128:cr=128';
  execFileSync(FFMPEG, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    noise,
    '-t',
    String(seconds),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-b:v',
    `${bitrate}M`,
    '-maxrate',
    `${bitrate}M`,
    '-bufsize',
    `${bitrate}M`,
    path,
  ]);
}

async function uploadVideo(
  url: string,
  token: string,
  bytes: Buffer,
  name: string,
): Promise<{ status: number; body: string; mbPerSecond: number }> {
  const boundary = `----bench${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const started = process.hrtime.bigint();
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${url}/v1/assets/upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + bytes.length + tail.length,
      },
    });
    // A reply that breaks off rejects the call instead of leaving it pending.
    req.once('response', (res) => void text(res).then((body) => resolve({ status: res.statusCode ?? 0, body }), reject));
    req.once('error', reject);
    req.write(head);
    // In 1 MiB writes, as a client streaming a file does.
    for (let at = 0; at < bytes.length; at += 1024 * 1024) req.write(bytes.subarray(at, at + 1024 * 1024));
    req.end(tail);
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { ...answer, mbPerSecond: bytes.length / 1e6 / seconds };
}

/**
 * upload-throughput-video-64mib: one multipart upload of a 64 MiB MP4 (index
 * at the end) at a time, ours (the facts read from the stored file's ranges
 * before the answer, which must carry them) against busboy → file; median of
 * 5, alternating; the goal of upload-throughput (ratio ≥ 0.6).
 */
export async function uploadThroughputVideo(): Promise<BenchResult[]> {
  const ws = await createWorkspace('upload-video');
  try {
    const path = join(ws.dir, 'large.mp4');
    makeLargeVideo(path, quick ? 16 : 64);
    const bytes = await readFile(path);
    const limit = { MAX_UPLOAD_BYTES: String(1024 * 1024 * 1024) };
    const [ours, baseline] = await startPair(startOurs(ws, limit), startBaseline(ws, 'busboy-to-file.ts', limit));
    try {
      const servers = { ours: { url: ours.url, pid: ours.pid }, baseline: { url: baseline.address, pid: baseline.pid } };
      const once = async (side: Side) => {
        execFileSync('sync');
        const rss = sampleRssGrowth(servers[side].pid);
        const outcome = await uploadVideo(servers[side].url, ws.token, bytes, 'large.mp4');
        const growth = rss.stop();
        if (outcome.status !== 201) throw new Error(`${side}: ${outcome.status} ${outcome.body.slice(0, 300)}`);
        if (side === 'ours' && !/"durationMs":\d+/.test(outcome.body))
          throw new Error(`ours answered without the video's facts: ${outcome.body.slice(0, 300)}`);
        return { mbPerSecond: outcome.mbPerSecond, growth };
      };
      for (const side of ['ours', 'baseline'] as const) await once(side);
      const runs = quick ? 1 : 5;
      const samples: Record<Side, { mbPerSecond: number; growth: number }[]> = { ours: [], baseline: [] };
      for (let run = 0; run < runs; run++)
        for (const side of run % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const))
          samples[side].push(await once(side));
      const speed = (side: Side) => median(samples[side].map((s) => s.mbPerSecond));
      const name = `upload-throughput-video-${quick ? 16 : 64}mib`;
      return [
        result(name, speed('ours'), speed('baseline'), 'MB/s', 'higher', {
          goal: 'ratio >= 0.6',
          notes: { videoBytes: bytes.length, runs: samples },
        }),
        result(
          `${name}-rss`,
          Math.max(...samples.ours.map((s) => s.growth)),
          Math.max(...samples.baseline.map((s) => s.growth)),
          'MiB',
          'lower',
          { goal: 'ours < 64' },
        ),
      ];
    } finally {
      await Promise.all([ours.stop(), baseline.stop()]);
    }
  } finally {
    await ws.cleanup();
  }
}

/**
 * poster-frame-miss: `GET <video url>?frame=<ms>` of a 10 s 720p H.264 video,
 * every request a frame not asked for before (ffmpeg in its own bounded
 * process, sharp's JPEG, stored as a variant, served), against node:http
 * running ffmpeg directly on the same file per request (bench/baselines/ffmpeg-frame.ts).
 */
export async function posterFrameMiss(): Promise<BenchResult[]> {
  const ws = await createWorkspace('poster-frame-miss');
  try {
    const path = join(ws.dir, 'video.mp4');
    makeVideo(path, 10);
    const env = { FFMPEG_PATH: FFMPEG };
    const [ours, baseline] = await startPair(startOurs(ws, env), startBaseline(ws, 'ffmpeg-frame.ts', { ...env, VIDEO: path }));
    try {
      const uploaded = await uploadVideo(ours.url, ws.token, await readFile(path), 'video.mp4');
      const { url } = JSON.parse(uploaded.body) as { url: string };
      // Distinct times 1 ms apart, spread over the video (its last frame's 33 ms left out: ffmpeg finds no frame that late): each a new variant.
      const asked = { ours: 0, baseline: 0 };
      const ms = (n: number) => (n * 997) % 9_900;
      const pathOf: Record<Side, (n: number) => string> = {
        ours: (n) => `${new URL(url).pathname}?frame=${ms(n)}`,
        baseline: (n) => `/frame?ms=${ms(n)}`,
      };
      const rss = { ours: samplePeakRss(ours.pid), baseline: samplePeakRss(baseline.pid) };
      // Requests a round abandons go on in ffmpeg processes, which the servers' own CPU does not show: wait for those to end too.
      const beforeEach = async () => {
        await untilNoFfmpegChildren([ours.pid, baseline.pid]);
        await waitForIdle([ours.pid, baseline.pid]);
      };
      const schedule = { rounds: MISS_ROUNDS, measureSeconds: MISS_SECONDS, beforeEach };
      const stats = await compareHttp(
        (side) => {
          const setupRequest = (req: object) => ({ ...req, path: pathOf[side](asked[side]++) });
          return { url: side === 'ours' ? ours.url : baseline.address, requests: [{ method: 'GET', setupRequest }] };
        },
        { ours: ours.pid, baseline: baseline.pid },
        schedule,
      );
      const peak = { ours: rss.ours.stop(), baseline: rss.baseline.stop() };
      if (asked.ours > 9_900) throw new Error(`poster-frame-miss: ${asked.ours} requests but only 9900 distinct frames`);
      const notes = {
        ...cpuNotes(stats),
        cores: availableParallelism(),
        videoBytes: (await stat(path)).size,
        distinctFramesAsked: asked.ours,
        connections: plan.connections,
      };
      return [
        result('poster-frame-miss', stats.ours.rps, stats.baseline.rps, 'req/s', 'higher', { notes }),
        result('poster-frame-miss-rss', peak.ours, peak.baseline, 'MiB', 'lower', {
          notes: { what: 'peak VmRSS of the server process (not its ffmpeg children) under the miss load' },
        }),
      ];
    } finally {
      await Promise.all([ours.stop(), baseline.stop()]);
    }
  } finally {
    await ws.cleanup();
  }
}

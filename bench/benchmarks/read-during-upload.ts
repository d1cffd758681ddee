import { request, Agent } from 'node:http';
import { result, type BenchResult } from '../harness/results.js';
import { createWorkspace, startOurs } from '../harness/servers.js';
import { median, percentile } from '../harness/stats.js';
import { uploadFile } from '../harness/upload-client.js';

const quick = process.env.BENCH_QUICK === '1';
const UPLOAD_MIB = quick ? 64 : 1024;
const ROUNDS = quick ? 1 : 3;
/** GETs kept in flight, each loop sending its next when the last is answered. */
const LOOPS = 4;
const IDLE_MS = quick ? 1000 : 4000;

/** Milliseconds each GET took, from `LOOPS` loops, until `until` resolves. */
async function readLatencies(url: string, token: string, until: Promise<unknown>): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: LOOPS });
  const latencies: number[] = [];
  let done = false;
  void until.finally(() => (done = true));
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const started = process.hrtime.bigint();
      const req = request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`GET ${url}: ${res.statusCode}`));
          latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
          resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });
  await Promise.all(
    Array.from({ length: LOOPS }, async () => {
      while (!done) await one();
    }),
  );
  agent.destroy();
  return latencies;
}

/**
 * read-p99-during-upload: the p99 of `GET /v1/assets/{id}` (4 in flight) on
 * `npm start` while one 1 GiB multipart upload runs, against the same GETs on
 * the same server idle just before; 3 rounds, the median of each.
 */
export async function readDuringUpload(): Promise<BenchResult[]> {
  const ws = await createWorkspace('read-during-upload');
  try {
    const ours = await startOurs(ws, { MAX_UPLOAD_BYTES: String(2 * 1024 * 1024 * 1024) });
    try {
      const small = await uploadFile(ours.url, ws.token, 1);
      const { id } = JSON.parse(small.body) as { id: string };
      const url = `${ours.url}/v1/assets/${id}`;
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      // Warm-up of both paths (and the hashing worker).
      await readLatencies(url, ws.token, sleep(1000));
      await uploadFile(ours.url, ws.token, 16);
      const idle: number[] = [];
      const during: number[] = [];
      const uploads: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        idle.push(percentile(await readLatencies(url, ws.token, sleep(IDLE_MS)), 0.99));
        const upload = uploadFile(ours.url, ws.token, UPLOAD_MIB);
        during.push(percentile(await readLatencies(url, ws.token, upload), 0.99));
        const outcome = await upload;
        if (outcome.status !== 201 && outcome.status !== 200) throw new Error(`upload: ${outcome.status} ${outcome.body}`);
        uploads.push(outcome.mbPerSecond);
        const { id: big } = JSON.parse(outcome.body) as { id: string };
        await fetch(`${ours.url}/v1/assets/${big}`, { method: 'DELETE', headers: { authorization: `Bearer ${ws.token}` } });
      }
      return [
        result('read-p99-during-upload', median(during), median(idle), 'ms p99', 'lower', {
          goal: 'ratio <= 2',
          notes: { idleP99Ms: idle, duringP99Ms: during, uploadMbPerSecond: uploads, uploadMiB: UPLOAD_MIB, getsInFlight: LOOPS },
        }),
      ];
    } finally {
      await ours.stop();
    }
  } finally {
    await ws.cleanup();
  }
}

// `npx tsx bench/tools/in-process-calls.ts <file|get> [calls] [rounds]`: CPU per
// call of the service over its in-process channel alone (ReadFile of a 16 KiB
// file, or GetAsset), ten calls in flight, no HTTP: the part of a REST request
// that HTTP load tests measure only within ±5 % on this machine. Run it in two
// trees (each built with `npx tsc -b`; without --conditions=switchyard-source it
// runs the built packages) to compare a change to the service path. The
// JavaScript heap allocated per call (V8's sampling heap profiler, objects
// collected meanwhile included) is printed too: steadier than CPU time here.
// Uses startService's in-process transport and Connect's client; the gateway's
// own client skips Connect's server-stream wrapper, so ReadFile costs a little
// more here than behind the gateway (compare trees, not absolute figures).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createClient, createContextValues } from '@connectrpc/connect';
import { AssetService, FileService } from '@switchyard/proto';
import { CALLER_LIFETIME, EndableLifetime } from '@switchyard/runtime';
import { createServiceLogger, loadServiceConfig, startService } from '@switchyard/service';
import { benchToken } from '../harness/tokens.js';
import { median } from '../harness/stats.js';

const [load = 'file', callsArg, roundsArg] = process.argv.slice(2);
if (load !== 'file' && load !== 'get') throw new Error('usage: in-process-calls <file|get> [calls] [rounds]');
const calls = Number(callsArg ?? 20_000);
const rounds = Number(roundsArg ?? 5);
/** The deadline the gateway gives a unary call (UNARY_TIMEOUT_MS in gateway/src/http/context.ts). */
const UNARY_TIMEOUT_MS = 15_000;

const dir = await mkdtemp(join(tmpdir(), 'switchyard-in-process-'));
const secret = 'in-process-calls-'.padEnd(40, 'x');
const config = loadServiceConfig({
  DATA_DIR: dir,
  AUTH_SECRET: secret,
  RATE_LIMIT_PER_SECOND: '0',
  GRPC_PORT: '0',
  LOG_LEVEL: 'warn',
  CDN_URL: 'http://127.0.0.1:1/files',
});
const service = await startService(config, { logger: createServiceLogger(config.logLevel) });
try {
  const headers = { authorization: `Bearer ${await benchToken(secret)}` };
  const assets = createClient(AssetService, service.inProcess);
  const files = createClient(FileService, service.inProcess);
  async function* upload() {
    yield { payload: { case: 'metadata' as const, value: { label: 'in-process-calls' } } };
    yield { payload: { case: 'chunk' as const, value: new Uint8Array(16 * 1024).fill(7) } };
  }
  const asset = await assets.uploadAsset(upload(), { headers });
  const path = new URL(asset.url).pathname.split('/').slice(-2).join('/');

  // As the gateway calls: a request id, a caller's signal; a turn of the event loop between calls, as requests arrive.
  let n = 0;
  const call = async (): Promise<void> => {
    // As the gateway calls: its request's lifetime in the context values and the unary deadline, no AbortSignal (in
    // Node 20 one AbortController per call made everything its loop allocated outlive young-generation GCs).
    const options = {
      headers: { ...headers, 'x-request-id': `in-process-${++n}` },
      contextValues: createContextValues().set(CALLER_LIFETIME, new EndableLifetime()),
      timeoutMs: load === 'get' ? UNARY_TIMEOUT_MS : 0,
    };
    if (load === 'get') {
      await assets.getAsset({ id: asset.id }, options);
      return;
    }
    let bytes = 0;
    for await (const message of files.readFile({ path }, { ...options, timeoutMs: 0 }))
      if (message.payload.case === 'chunk') bytes += message.payload.value.length;
    if (bytes !== 16 * 1024) throw new Error(`ReadFile gave ${bytes} bytes`);
  };
  const run = async (count: number): Promise<void> => {
    let started = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (started++ < count) {
          await call();
          await nextTurn();
        }
      }),
    );
  };
  await run(3_000); // warm-up
  const perCall: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const before = process.cpuUsage();
    await run(calls);
    const used = process.cpuUsage(before);
    perCall.push((used.user + used.system) / calls);
  }
  console.log(`${load}: CPU µs per call ${perCall.map((value) => value.toFixed(1)).join(' ')} (median ${median(perCall).toFixed(1)})`);
  console.log(`${load}: heap allocated per call ${((await allocatedBytes(() => run(calls))) / calls / 1024).toFixed(1)} KiB`);
} finally {
  await service.close();
  await rm(dir, { recursive: true, force: true });
}

interface SamplingNode {
  selfSize: number;
  children: SamplingNode[];
}

/** Bytes the JavaScript heap allocated while `work` ran, sampled every 1 KiB on average. */
async function allocatedBytes(work: () => Promise<void>): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as never);
    await work();
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } };
    const total = (node: SamplingNode): number => node.children.reduce((sum, child) => sum + total(child), node.selfSize);
    return total(profile.head);
  } finally {
    session.disconnect();
  }
}

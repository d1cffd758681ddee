// `npm run bench [-- name ...]`: every benchmark (or the named ones), each beside
// its baseline in the same run. A name that is no benchmark's but begins
// several (`peer`, `transform`) runs that group: `npm run bench -- peer` runs
// the peers. Prints one BENCH line per figure and writes
// bench/results/latest.json. Ratios are always ours/baseline; whether higher or
// lower is better is in each result's `better` (see bench/README.md).
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { createRoute, getAsset, getAssetKey, getAssetSplit, listAssets } from './benchmarks/rest.js';
import { uploadThroughput } from './benchmarks/upload.js';
import { changeLogCost } from './benchmarks/change-log-cost.js';
import { tusUploadThroughput } from './benchmarks/tus-upload.js';
import { grpcGetAssetBench } from './benchmarks/grpc.js';
import { matchRoute } from './benchmarks/match-route.js';
import { fileServe } from './benchmarks/file-serve.js';
import { metricsCost } from './benchmarks/metrics-cost.js';
import { watchedMatch } from './benchmarks/watched-match.js';
import { routeSyncLatency } from './benchmarks/route-sync.js';
import { routeSyncCrossInstance, routeSyncCrossInstanceNats, routeSyncCrossInstancePolling } from './benchmarks/route-sync-cross.js';
import { assetWatchLatency } from './benchmarks/asset-watch-cross.js';
import { routeApply5000 } from './benchmarks/route-apply.js';
import { transformDiv2k, transformHit, transformMiss } from './benchmarks/transform.js';
import { peerTusUpload } from './benchmarks/peer-tus-upload.js';
import { readDuringUpload } from './benchmarks/read-during-upload.js';
import { peerTransformHit, peerTransformMiss } from './benchmarks/peer-transform.js';
import { peerFileServe } from './benchmarks/peer-file-serve.js';
import { nginxFileServe } from './benchmarks/peer-nginx.js';
import { consoleBench } from './benchmarks/console.js';
import { posterFrameMiss, uploadThroughputVideo } from './benchmarks/media.js';
import { dispatchBench } from './benchmarks/dispatch.js';
import { webhookBench } from './benchmarks/webhooks.js';
import { plan } from './harness/plan.js';
import { formatLine, formatPeerNote, writeResults, type BenchResult } from './harness/results.js';

const BENCHMARKS: Record<string, () => Promise<BenchResult[]>> = {
  'rest-get-asset': getAsset(false),
  'rest-get-asset-key': getAssetKey,
  'rest-create-route': createRoute,
  'rest-list-assets': listAssets,
  'rest-get-asset-split': getAssetSplit,
  'file-serve': fileServe,
  'upload-throughput': uploadThroughput,
  'upload-change-log-cost': changeLogCost,
  'tus-upload-throughput': tusUploadThroughput,
  'read-p99-during-upload': readDuringUpload,
  'grpc-get-asset': grpcGetAssetBench,
  'lib-match-route': matchRoute,
  'mysql-get-asset': getAsset(true),
  'metrics-cost': metricsCost,
  'watched-match': watchedMatch,
  'route-sync-latency': routeSyncLatency,
  'route-sync-cross-instance': routeSyncCrossInstance,
  'route-sync-cross-instance-nats': routeSyncCrossInstanceNats,
  'route-sync-cross-instance-polling': routeSyncCrossInstancePolling,
  'asset-watch-latency': assetWatchLatency,
  'route-apply-5000': routeApply5000,
  'transform-miss': transformMiss,
  'transform-hit': transformHit,
  'transform-div2k-jpeg': transformDiv2k,
  'upload-throughput-video': uploadThroughputVideo,
  'poster-frame-miss': posterFrameMiss,
  console: consoleBench,
  'dispatch-fastify': dispatchBench('fastify'),
  'dispatch-fetch': dispatchBench('fetch'),
  // Reports webhook-latency-p99 too, from the same servers.
  'webhook-delivery': webhookBench,
  // The peers users would install instead (issue 31): bench/README.md, "Peers".
  'peer-tus-upload': peerTusUpload,
  'peer-transform-miss': peerTransformMiss,
  'peer-transform-hit': peerTransformHit,
  'peer-file-serve': peerFileServe,
  'peer-nginx-file-serve': nginxFileServe,
};

/** A benchmark's own name selects it; a name that is none but prefixes some (`peer` → `peer-…`) selects all of those. */
function selects(wantedName: string, name: string): boolean {
  return wantedName in BENCHMARKS ? wantedName === name : name.startsWith(`${wantedName}-`);
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !Object.keys(BENCHMARKS).some((name) => selects(w, name)));
if (unknown.length) {
  console.error(
    `unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')} (or a prefix of several, e.g. peer)`,
  );
  process.exit(2);
}

const results: BenchResult[] = [];
const failures: string[] = [];
for (const [name, run] of Object.entries(BENCHMARKS)) {
  if (wanted.length && !wanted.some((w) => selects(w, name))) continue;
  try {
    for (const r of await run()) {
      results.push(r);
      console.log(formatLine(r));
      const note = formatPeerNote(r);
      if (note) console.log(note);
    }
  } catch (error) {
    failures.push(name);
    console.error(`BENCH ${name} FAILED: ${error instanceof Error ? error.stack : String(error)}`);
  }
}

const resultsFile = new URL('./results/latest.json', import.meta.url).pathname;
await writeResults(resultsFile, results, {
  date: new Date().toISOString(),
  commit: gitCommit(),
  node: process.version,
  cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
  plan,
  failures,
});
console.log(`wrote ${resultsFile}`);
process.exit(failures.length ? 1 : 0);

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

// One kind of upload, for a profile (bench/tools/README.md): starts `npm start` (all-in-one), makes
// `count` uploads of `mib` MiB of that kind, printing MB/s and server CPU of each (and by thread), and stops it, so that
// under BENCH_CPU_PROFILE_DIR=<dir> its --cpu-prof profile is written there.
//   BENCH_CPU_PROFILE_DIR=<dir> npx tsx bench/tools/profile-uploads.ts <tus-single|tus-8mib|multipart> [mib] [count]
import { createWorkspace, startOurs } from '../harness/servers.js';
import { readCpuSeconds } from '../harness/proc.js';
import { sampleThreads } from './thread-cpu.js';
import { tusUpload } from '../harness/tus-client.js';
import { benchBytes, uploadFile } from '../harness/upload-client.js';

const [kind, mibArg = '256', countArg = '4'] = process.argv.slice(2);
if (!kind || !['tus-single', 'tus-8mib', 'multipart'].includes(kind)) {
  console.error('usage: profile-uploads.ts <tus-single|tus-8mib|multipart> [mib] [count]');
  process.exit(2);
}
const mib = Number(mibArg);
const ws = await createWorkspace('profile-uploads');
const ours = await startOurs(ws, { MAX_UPLOAD_BYTES: String(1024 * 1024 * 1024) });
try {
  const bytes = benchBytes(mib);
  for (let i = 0; i < Number(countArg); i++) {
    const cpu = readCpuSeconds(ours.pid);
    const threads = sampleThreads(ours.pid);
    const started = process.hrtime.bigint();
    if (kind === 'multipart') await uploadFile(ours.url, ws.token, mib);
    else await tusUpload(ours.url, ws.token, bytes, kind === 'tus-single' ? Number.POSITIVE_INFINITY : 8 * 1024 * 1024);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const byThread = Object.entries(threads.stop())
      .filter(([, s]) => s >= 0.01)
      .map(([name, s]) => `${name} ${s.toFixed(2)}`)
      .join(', ');
    console.log(
      `${kind} ${mib} MiB: ${((mib * 1.048576) / seconds).toFixed(0)} MB/s, server CPU ${(readCpuSeconds(ours.pid) - cpu).toFixed(2)} s (${byThread})`,
    );
  }
} finally {
  await ours.stop();
  await ws.cleanup();
}

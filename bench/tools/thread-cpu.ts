// Where a server's CPU goes by thread, under a load: `sampleThreads(pid)` reads
// /proc/<pid>/task/*/stat before and after and groups the CPU seconds by
// thread name (node's main thread, libuv's pool, V8's helpers, libvips'
// workers). Used for the peer comparison of image transformations
// (bench/README.md, Peers), where a V8 profile sees only the main thread.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100;

function threads(pid: number): Map<string, { name: string; seconds: number }> {
  const out = new Map<string, { name: string; seconds: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { name, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** Starts sampling; `stop()` gives CPU seconds per thread name (threads of one name summed), the main thread as `main`. */
export function sampleThreads(pid: number): { stop(): Record<string, number> } {
  const before = threads(pid);
  return {
    stop() {
      const after = threads(pid);
      const byName: Record<string, number> = {};
      for (const [tid, { name, seconds }] of after) {
        const key = tid === String(pid) ? 'main' : name.replace(/\d+$/, '#');
        byName[key] = (byName[key] ?? 0) + seconds - (before.get(tid)?.seconds ?? 0);
      }
      return Object.fromEntries(
        Object.entries(byName)
          .filter(([, s]) => s > 0)
          .sort((a, b) => b[1] - a[1]),
      );
    },
  };
}

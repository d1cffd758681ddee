import { readFileSync } from 'node:fs';

const MIB = 1024 * 1024;

/** Resident set size of a process in bytes, from /proc/<pid>/status (Linux). */
export function readRss(pid: number): number {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  if (!match?.[1]) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/**
 * Samples a process's RSS until stopped; `stop` reports the peak growth over
 * the first sample, in MiB, and `peak` (after `stop`) the peak VmRSS itself.
 */
export function sampleRssGrowth(pid: number, everyMs = 20): { stop(): number; peak(): number } {
  const start = readRss(pid);
  let peak = start;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, readRss(pid));
    } catch {
      // The process ended; the caller will notice through its own request failing.
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, readRss(pid));
      return (peak - start) / MIB;
    },
    peak: () => peak / MIB,
  };
}

/** Samples a process's RSS until stopped; reports the peak, in MiB (the whole process, not its growth). */
export function samplePeakRss(pid: number, everyMs = 20): { stop(): number } {
  const sampler = sampleRssGrowth(pid, everyMs);
  return {
    stop() {
      sampler.stop();
      return sampler.peak();
    },
  };
}

const TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux this runs on.

/** CPU time (user + system) a process has used so far, in seconds, from /proc/<pid>/stat. */
export function readCpuSeconds(pid: number): number {
  const { user, system } = readCpuTimes(pid);
  return user + system;
}

/** A process's CPU seconds so far, in user space and in the kernel on its behalf (/proc/<pid>/stat). */
export function readCpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields overall.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
}

/**
 * Waits until none of `pids` uses more than `threshold` of a core over a
 * 250 ms window (at most `timeoutMs`): work a load left behind (requests the
 * load generator abandoned at its deadline keep running in the server) then
 * does not run into the next measurement.
 */
export async function waitForIdle(pids: readonly number[], threshold = 0.1, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const before = pids.map(readCpuSeconds);
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (pids.every((pid, i) => (readCpuSeconds(pid) - before[i]!) / 0.25 <= threshold)) return;
  }
}

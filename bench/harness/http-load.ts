import autocannon, { type Options } from 'autocannon';
import { alternate, type LoadStats, type Schedule, type Side } from './alternate.js';
import { plan } from './plan.js';
import { readCpuSeconds } from './proc.js';

/** Builds the autocannon options for one target; called once per target so request counters live across rounds. */
export type LoadFactory = (side: Side) => Omit<Options, 'duration' | 'connections'>;

/** The server processes of one side: one, or several (a gateway and its service) whose CPU adds up. */
export type Pids = number | readonly number[];

export interface CompareOptions extends Schedule {
  /** Runs before each warm-up and round (e.g. waiting for work the last one left behind to finish). */
  readonly beforeEach?: (side: Side) => Promise<void>;
}

/** Loads ours and the baseline (server processes `pids`) over HTTP from this process with autocannon, alternately. */
export async function compareHttp(factory: LoadFactory, pids: Record<Side, Pids>, options: CompareOptions = {}): Promise<Record<Side, LoadStats>> {
  const targets = { ours: factory('ours'), baseline: factory('baseline') };
  return alternate(async (side, seconds) => {
    await options.beforeEach?.(side);
    return load(targets[side], seconds, pids[side]);
  }, options);
}

/** Any non-2xx answer or socket error fails the benchmark: a fast error is not a result. */
async function load(options: Options, seconds: number, pids: Pids): Promise<LoadStats> {
  const cpu = () => (typeof pids === 'number' ? [pids] : pids).reduce((sum, pid) => sum + readCpuSeconds(pid), 0);
  const cpuBefore = cpu();
  const r = await autocannon({ ...options, duration: seconds, connections: plan.connections });
  const cpuMicrosPerRequest = ((cpu() - cpuBefore) * 1e6) / Math.max(1, r['2xx']);
  if (r.errors || r.timeouts || r.non2xx) {
    throw new Error(`load on ${options.url} failed: errors=${r.errors} timeouts=${r.timeouts} status=${JSON.stringify(r.statusCodeStats)}`);
  }
  return { rps: r['2xx'] / r.duration, p99: r.latency.p99, requests: r['2xx'], cpuMicrosPerRequest };
}

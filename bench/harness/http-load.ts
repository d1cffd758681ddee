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
  /** The one status every answer must have, when it is not a 2xx (e.g. 304 for conditional requests); those answers are then the throughput. */
  readonly expectStatus?: number;
}

/** Loads ours and the baseline (server processes `pids`) over HTTP from this process with autocannon, alternately. */
export async function compareHttp(
  factory: LoadFactory,
  pids: Record<Side, Pids>,
  options: CompareOptions = {},
): Promise<Record<Side, LoadStats>> {
  const targets = { ours: factory('ours'), baseline: factory('baseline') };
  return alternate(async (side, seconds) => {
    await options.beforeEach?.(side);
    return load(targets[side], seconds, pids[side], options.expectStatus);
  }, options);
}

/**
 * Any non-2xx answer (or any other than `expectStatus`, when given) or socket
 * error fails the benchmark: a fast error is not a result.
 */
async function load(options: Options, seconds: number, pids: Pids, expectStatus?: number): Promise<LoadStats> {
  const cpu = () => (typeof pids === 'number' ? [pids] : pids).reduce((sum, pid) => sum + readCpuSeconds(pid), 0);
  const cpuBefore = cpu();
  const r = await autocannon({ ...options, duration: seconds, connections: plan.connections });
  const counts = Object.entries(r.statusCodeStats ?? {});
  const ok = expectStatus === undefined ? r['2xx'] : (r.statusCodeStats?.[String(expectStatus)]?.count ?? 0);
  const wrong =
    expectStatus === undefined
      ? r.non2xx
      : counts.reduce((sum, [status, { count }]) => sum + (status === String(expectStatus) ? 0 : count), 0);
  const cpuMicrosPerRequest = ((cpu() - cpuBefore) * 1e6) / Math.max(1, ok);
  if (r.errors || r.timeouts || wrong || ok === 0) {
    throw new Error(`load on ${options.url} failed: errors=${r.errors} timeouts=${r.timeouts} status=${JSON.stringify(r.statusCodeStats)}`);
  }
  return { rps: ok / r.duration, p99: r.latency.p99, requests: ok, cpuMicrosPerRequest };
}

import { plan } from './plan.js';

export type Side = 'ours' | 'baseline';

export interface LoadStats {
  /** Successful requests (or calls) per second. */
  readonly rps: number;
  /** 99th-percentile latency in ms (mean over the measured rounds). */
  readonly p99: number;
  readonly requests: number;
  /** Server CPU time per request in µs, when the server's pid is known: steadier than req/s on a busy machine. */
  readonly cpuMicrosPerRequest?: number | undefined;
  /** The measured rounds these figures combine (means; a caller wanting medians takes them from here). */
  readonly rounds?: readonly LoadStats[] | undefined;
}

/** Rounds and their length, when a benchmark needs other than the plan's (e.g. more, shorter rounds for a slow request). */
export interface Schedule {
  readonly rounds?: number;
  readonly measureSeconds?: number;
}

/**
 * Runs a load against ours and the baseline alternately: a warm-up of each,
 * then rounds in which the order flips, so drift on a shared machine hits both.
 */
export async function alternate(
  measure: (side: Side, seconds: number) => Promise<LoadStats>,
  schedule: Schedule = {},
): Promise<Record<Side, LoadStats>> {
  for (const side of ['ours', 'baseline'] as const) await measure(side, plan.warmupSeconds);
  const rounds: Record<Side, LoadStats[]> = { ours: [], baseline: [] };
  for (let round = 0; round < (schedule.rounds ?? plan.rounds); round++) {
    const order: Side[] = round % 2 === 0 ? ['ours', 'baseline'] : ['baseline', 'ours'];
    for (const side of order) rounds[side].push(await measure(side, schedule.measureSeconds ?? plan.measureSeconds));
  }
  return { ours: combine(rounds.ours), baseline: combine(rounds.baseline) };
}

function combine(rounds: readonly LoadStats[]): LoadStats {
  const mean = (pick: (s: LoadStats) => number) => rounds.reduce((sum, s) => sum + pick(s), 0) / rounds.length;
  const cpu = rounds.every((s) => s.cpuMicrosPerRequest !== undefined) ? mean((s) => s.cpuMicrosPerRequest!) : undefined;
  return {
    rps: mean((s) => s.rps),
    p99: mean((s) => s.p99),
    requests: rounds.reduce((sum, s) => sum + s.requests, 0),
    cpuMicrosPerRequest: cpu,
    rounds,
  };
}

/** Server CPU per request beside the throughput: the figure that explains it, and the steadier one on a busy machine. */
export function cpuNotes(stats: Record<Side, LoadStats>): Record<string, unknown> {
  const micros = (side: Side) => Math.round(stats[side].cpuMicrosPerRequest ?? Number.NaN);
  return {
    serverCpuMicrosPerRequest: { ours: micros('ours'), baseline: micros('baseline') },
    requests: { ours: stats.ours.requests, baseline: stats.baseline.requests },
  };
}

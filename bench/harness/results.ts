import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * One measured figure of ours beside its baseline. `ratio` is always
 * ours/baseline; `better` says which direction is good, so a ratio above 1 is a
 * win for throughput but a loss for latency or memory.
 */
export interface BenchResult {
  readonly name: string;
  readonly ours: number;
  readonly baseline: number;
  readonly ratio: number;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  /** The goal for this figure, when it sets one (e.g. "ratio >= 0.5"). */
  readonly goal?: string | undefined;
  readonly notes?: Readonly<Record<string, unknown>> | undefined;
}

export function result(
  name: string,
  ours: number,
  baseline: number,
  unit: string,
  better: 'higher' | 'lower',
  extra: { goal?: string; notes?: Record<string, unknown> } = {},
): BenchResult {
  return { name, ours, baseline, ratio: baseline === 0 ? Number.NaN : ours / baseline, unit, better, ...extra };
}

export function formatLine(r: BenchResult): string {
  return `BENCH ${r.name} ours=${round(r.ours)} baseline=${round(r.baseline)} ratio=${r.ratio.toFixed(3)} unit=${r.unit}`;
}

/**
 * For a figure against a peer (notes with `peer`): the server CPU of both
 * sides on the line below the BENCH line, indented so BENCH parsers skip it.
 */
export function formatPeerNote(r: BenchResult): string | undefined {
  const notes = r.notes as { peer?: string; serverCpuMicrosPerRequest?: CpuPair; serverCpuSecondsPerUpload?: CpuPair } | undefined;
  if (!notes?.peer) return undefined;
  const cpu = notes.serverCpuMicrosPerRequest
    ? `server CPU µs/request ours=${round(notes.serverCpuMicrosPerRequest.ours)} peer=${round(notes.serverCpuMicrosPerRequest.baseline)}`
    : notes.serverCpuSecondsPerUpload
      ? `server CPU s/upload ours=${round(notes.serverCpuSecondsPerUpload.ours)} peer=${round(notes.serverCpuSecondsPerUpload.baseline)}`
      : 'server CPU not measured';
  return `  ${cpu} (peer: ${notes.peer})`;
}

interface CpuPair {
  readonly ours: number;
  readonly baseline: number;
}

/** Three significant decimals are plenty for figures that vary by a few percent run to run. */
function round(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

export async function writeResults(file: string, results: readonly BenchResult[], meta: Record<string, unknown>): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ ...meta, results }, null, 2)}\n`);
}

import type { BenchResult } from './results.js';

const COMPARE = {
  '<': (a: number, b: number) => a < b,
  '<=': (a: number, b: number) => a <= b,
  '>': (a: number, b: number) => a > b,
  '>=': (a: number, b: number) => a >= b,
} as const;

/**
 * A figure's goal, read from its first clause (`ratio >= 0.8`, `ours < 64`,
 * `ours <= 80 KiB (ratio <= 1)`: the number in the figure's own unit): the
 * value it judges (ours, or the ratio) and whether that value meets it.
 * `undefined` when there is no goal or it is not in that form.
 */
export function goalOf(r: BenchResult): { readonly subject: 'ours' | 'ratio'; readonly judged: number; readonly met: boolean } | undefined {
  const clause = /^(ours|ratio) (<=|>=|<|>) (\d+(?:\.\d+)?)/.exec(r.goal ?? '');
  if (clause === null) return undefined;
  const [, subject, op, bound] = clause as unknown as [string, 'ours' | 'ratio', keyof typeof COMPARE, string];
  const judged = subject === 'ours' ? r.ours : r.ratio;
  return { subject, judged, met: COMPARE[op](judged, Number(bound)) };
}

/** Whether a figure meets its goal; `undefined` when it has none that `goalOf` can read. */
export function goalMet(r: BenchResult): boolean | undefined {
  return goalOf(r)?.met;
}

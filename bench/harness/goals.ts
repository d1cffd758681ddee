import type { BenchResult } from './results.js';

const COMPARE = { '<': (a: number, b: number) => a < b, '<=': (a: number, b: number) => a <= b, '>': (a: number, b: number) => a > b, '>=': (a: number, b: number) => a >= b } as const;

/**
 * Whether a figure meets its goal, read from the goal's first clause
 * (`ratio >= 0.8`, `ours < 64`, `ours <= 80 KiB (ratio <= 1)`: the number in
 * the figure's own unit). `undefined` when there is no goal or it is not in
 * that form.
 */
export function goalMet(r: BenchResult): boolean | undefined {
  const goal = goalOf(r);
  return goal && COMPARE[goal.op](goal.judged, goal.bound);
}

/** The goal's first clause and the value it judges (ours, or the ratio), or undefined. */
export function goalOf(r: BenchResult): { readonly subject: 'ours' | 'ratio'; readonly op: keyof typeof COMPARE; readonly bound: number; readonly judged: number } | undefined {
  const clause = /^(ours|ratio) (<=|>=|<|>) (\d+(?:\.\d+)?)/.exec(r.goal ?? '');
  if (clause === null) return undefined;
  const [, subject, op, bound] = clause as unknown as [string, 'ours' | 'ratio', keyof typeof COMPARE, string];
  return { subject, op, bound: Number(bound), judged: subject === 'ours' ? r.ours : r.ratio };
}

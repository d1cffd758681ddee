/** The middle value (the mean of the two middle ones for an even count); an empty list or a non-number is a broken measurement. */
export function median(values: readonly number[]): number {
  if (values.length === 0 || values.some((value) => !Number.isFinite(value)))
    throw new Error(`median of ${JSON.stringify(values)}: no measurement, or a broken one`);
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The value at quantile `q` (0..1) of the sorted list, nearest rank below. */
export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

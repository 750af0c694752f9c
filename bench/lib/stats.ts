/** The `p`th percentile (0-100) of `values` by nearest rank; NaN when there are none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** `p50 12 / p99 80 ms`, or `n/a` when there are no values. */
export function describeSpread(values: number[]): string {
  if (values.length === 0) return 'n/a';
  return `p50 ${percentile(values, 50).toFixed(0)} / p99 ${percentile(values, 99).toFixed(0)} ms`;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

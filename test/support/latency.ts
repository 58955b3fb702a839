// Latency figures for the reliability suites that compare one tenant's requests before and during
// another tenant's heavy work.

/** The p-th percentile (nearest rank) of `values`; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

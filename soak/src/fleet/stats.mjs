/** The `p`-th percentile (0-100) of `values`, nearest rank; undefined when there are none. */
export function percentile(values, p) {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** `p50 X ms, p99 Y ms (n)`. */
export function summary(values) {
  if (values.length === 0) return 'none';
  return `p50 ${Math.round(percentile(values, 50))} ms, p99 ${Math.round(percentile(values, 99))} ms, max ${Math.round(Math.max(...values))} ms (${values.length})`;
}

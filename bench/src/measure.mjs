// Shared measuring: cases run interleaved (A, B, C, then B, C, A, ...) for several rounds in
// one process, so every case sees the same machine noise. Absolute times on shared machines
// are noise; the figures we report are ratios taken round by round, then summarised as
// median with min and max.

/** @param {number[]} xs */
export function stats(xs) {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1], n: s.length };
}

/**
 * Runs each case once per round, in an order rotated every round, after `warmup` discarded
 * rounds. A case is `async () => number | void`: it does one batch of work; when it returns a
 * number that number is the sample (for work timed elsewhere, e.g. in a child process),
 * otherwise the sample is the wall time of the call divided by `opsPerSample`.
 *
 * @param {{ cases: Record<string, () => Promise<number|void>|number|void>, rounds: number, warmup?: number, opsPerSample?: number, between?: () => Promise<void>|void }} opts
 * @returns {Promise<{ samples: Record<string, number[]> }>} per-op samples (ms unless the case returns its own unit)
 */
export async function interleave({ cases, rounds, warmup = 1, opsPerSample = 1, between }) {
  const names = Object.keys(cases);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < warmup + rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const name of order) {
      const t0 = performance.now();
      const returned = await cases[name]();
      const elapsed = performance.now() - t0;
      const sample = typeof returned === 'number' ? returned : elapsed / opsPerSample;
      if (r >= warmup) samples[name].push(sample);
      if (between) await between();
    }
  }
  return { samples };
}

/**
 * Ratio of `name` to `base` computed round by round (sample i of one against sample i of the
 * other, both taken in the same round), summarised.
 */
export function ratio(samples, name, base) {
  const a = samples[name];
  const b = samples[base];
  const rs = a.map((x, i) => x / b[i]);
  return stats(rs);
}

/** Summaries for every case: per-op median/min/max, and the round-by-round ratio to `base`. */
export function summarize(samples, base) {
  const out = {};
  for (const name of Object.keys(samples)) {
    out[name] = { time: stats(samples[name]), ...(base ? { ratioToFloor: ratio(samples, name, base) } : {}) };
  }
  return out;
}

/** Calls `fn` `n` times, awaiting each: one sample's worth of sequential work. */
export async function repeat(n, fn) {
  for (let i = 0; i < n; i++) await fn(i);
}

/** Same, for synchronous work (no await per call, which would add a microtask each). */
export function repeatSync(n, fn) {
  for (let i = 0; i < n; i++) fn(i);
}

export const fmt = {
  /** ms -> short human text in µs / ms / s */
  time(ms) {
    if (!Number.isFinite(ms)) return 'n/a';
    if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.01 ? 2 : 1)} µs`;
    if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
    return `${(ms / 1000).toFixed(2)} s`;
  },
  ratio(r) {
    if (!r || !Number.isFinite(r.median)) return 'n/a';
    return `${r.median.toFixed(2)}× (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;
  },
  timeRange(s) {
    if (!s || !Number.isFinite(s.median)) return 'n/a';
    return `${fmt.time(s.median)} (${fmt.time(s.min)}–${fmt.time(s.max)})`;
  },
  bytes(b) {
    if (!Number.isFinite(b)) return 'n/a';
    if (b < 1024) return `${b} B`;
    if (b < 1024 * 1024) return `${(b / 1024).toFixed(1)} KB`;
    return `${(b / 2 ** 20).toFixed(1)} MB`;
  },
};

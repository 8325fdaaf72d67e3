// Row 5. Batch throughput under the account's limits: N image generations through the client
// against the emulator (Pro: 5 in flight, 240/min; small timeScale), with the client-side gate
// on vs a naive Promise.all with retries. Both run side by side, at the same time, on two Pro
// accounts of one emulator (in its own process). Each side's wall time is compared with its
// theoretical bound: an ideal client that submits the instant a slot and the minute window
// allow, with no network or polling latency, replaying that side's own render times.
import { setMaxListeners } from 'node:events';
import { Gate, MediaGenClient, RateLimitError } from '@mediagen/core';
import { emulatorMissing, gateMissing, startEmulatorChild } from './emulator-probe.mjs';
import { fmt } from './measure.mjs';

const PRO = { perMinute: 240, maxConcurrent: 5 };
const TARGET = 0.9;
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });

/** Makespan of the ideal client: jobs in submission order, each submitted as soon as a slot is free and the sliding minute allows. */
export function idealMakespan(durations, { perMinute, maxConcurrent }) {
  const free = new Array(maxConcurrent).fill(0);
  const submits = [];
  for (const d of durations) {
    let slot = 0;
    for (let i = 1; i < free.length; i++) if (free[i] < free[slot]) slot = i;
    let t = free[slot];
    if (submits.length >= perMinute) t = Math.max(t, submits[submits.length - perMinute] + 60_000);
    submits.push(t);
    free[slot] = t + d;
  }
  return Math.max(...free);
}

function config(timeScale) {
  const account = (id) => ({ id, tier: 'pro', balance: 15_000, keys: [{ key: `svc_live_${id}` }], models: ['image-fast'] });
  return { timeScale, accounts: [account('bench_gate'), account('bench_naive')] };
}

const params = (i) => ({ model: 'image-fast', prompt: `a lighthouse at dusk, study ${i}`, seed: i });

/** One side: runs `submitAll`, then reads the render times of what came back. */
async function side(name, n, submitAll) {
  let r429 = 0;
  const onRetry = (info) => {
    if (info.error?.status === 429) r429++;
  };
  const t0 = performance.now();
  const settled = await submitAll(onRetry, () => r429++);
  const wallMs = performance.now() - t0;
  const results = settled.filter((g) => g && typeof g === 'object' && g.status);
  const completed = results.filter((g) => g.status === 'completed').length;
  // Submission order approximated by created_at (the server's clock, ms). Jobs a side never
  // finished (the naive side is stopped at a deadline) count with the mean render time.
  const ordered = [...results].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  const durations = ordered.map((g) => g.duration_ms);
  const mean = durations.length ? durations.reduce((a, b) => a + b, 0) / durations.length : 0;
  while (durations.length < n) durations.push(mean);
  const boundMs = idealMakespan(durations, PRO);
  return { name, n, completed, finished: results.length, wallMs, boundMs, ratio: boundMs / wallMs, r429, meanRenderMs: mean };
}

export async function run({ quick }) {
  const n = quick ? 40 : 300;
  const timeScale = 0.01;
  const intervalMs = Math.max(10, 2_000 * timeScale); // the spec's 2 s image interval, scaled
  const missingEmu = await emulatorMissing();
  const what = `Batch: ${n} image generations, Pro limits, timeScale ${timeScale}`;
  if (missingEmu) {
    return {
      rows: [
        {
          id: 'batch',
          what,
          ours: `not measured: ${missingEmu}`,
          peers: {},
          target: `≥ ${TARGET} of bound, 0 429s with the gate`,
          status: 'not measured',
        },
      ],
      raw: { missing: missingEmu },
    };
  }
  const missingGate = await gateMissing();
  const emu = await startEmulatorChild(config(timeScale));
  try {
    // The naive side can take many times the bound (its resends count against the minute
    // window too): it is stopped at a deadline and reported as "did not finish".
    const deadlineMs = 2 * idealMakespan(new Array(n).fill(100 * 1000 * timeScale), PRO) + 10_000;
    const stop = new AbortController();
    setMaxListeners(4 * n, stop.signal); // one listener per pending call and per sleep
    const naive = side('naive', n, async (onRetry, count429) => {
      const client = new MediaGenClient({ apiKey: 'svc_live_bench_naive', baseUrl: emu.url, onRetry, maxRetries: 4 });
      const timer = setTimeout(() => stop.abort(), deadlineMs);
      try {
        return await Promise.all(
          Array.from({ length: n }, async (_, i) => {
            while (!stop.signal.aborted) {
              try {
                return await client.generations.run(params(i), { intervalMs, signal: stop.signal });
              } catch (e) {
                if (stop.signal.aborted) return null;
                if (!(e instanceof RateLimitError)) throw e;
                count429();
                await sleep(e.retryAfterMs ?? 1_000, stop.signal);
              }
            }
            return null;
          }),
        );
      } finally {
        clearTimeout(timer);
      }
    });
    const gated = missingGate
      ? null
      : side('gate', n, async (onRetry, count429) => {
          const client = new MediaGenClient({ apiKey: 'svc_live_bench_gate', baseUrl: emu.url, onRetry, gate: new Gate() });
          return Promise.all(
            Array.from({ length: n }, async (_, i) => {
              try {
                return await client.generations.run(params(i), { intervalMs });
              } catch (e) {
                if (e instanceof RateLimitError) count429();
                throw e;
              }
            }),
          );
        });
    const [nv, gt] = await Promise.all([naive, gated]);
    const cell = (s) =>
      s.finished < s.n
        ? `did not finish: stopped at ${fmt.time(s.wallMs)} with ${s.completed}/${s.n} completed, bound ${fmt.time(s.boundMs)}, ${s.r429} × 429`
        : `wall ${fmt.time(s.wallMs)}, bound ${fmt.time(s.boundMs)}, ${s.r429} × 429, ${s.completed}/${s.n} completed`;
    const nvRatio = `${nv.finished < nv.n ? '< ' : ''}${nv.ratio.toFixed(2)}`;
    const row = {
      id: 'batch',
      what,
      ours: gt ? `gate on: ${cell(gt)}` : `not measured: ${missingGate}`,
      peers: {},
      floor: `naive Promise.all + retries: ${cell(nv)}`,
      ratio: gt ? `gate ${gt.ratio.toFixed(2)} of bound; naive ${nvRatio}` : `naive ${nvRatio} of bound`,
      target: `≥ ${TARGET} of bound, 0 429s with the gate`,
      status: gt ? (gt.ratio >= TARGET && gt.r429 === 0 ? 'pass' : 'miss') : 'not measured',
      note: `both sides at once on two Pro accounts (5 in flight, 240/min each) of one emulator in its own process; bound = an ideal client replaying each side's own server-side durations (duration_ms) under the limits, no latency; polling every ${intervalMs} ms (2 s scaled); naive = Promise.all of generations.run, on 429 wait Retry-After and resend, stopped at ${fmt.time(deadlineMs)} (2× the bound at the mean render time + 10 s) if not done`,
    };
    return { rows: [row], raw: { n, timeScale, intervalMs, naiveDeadlineMs: deadlineMs, naive: nv, gate: gt ?? { missing: missingGate } } };
  } finally {
    await emu.stop();
  }
}

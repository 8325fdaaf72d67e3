// Batch on the ledger (issue 34, item 5): N lines run with `runBatch` from `@mediagen/core/ledger`
// (what `mediagen batch` runs) on a SQLite ledger file, through the client's gate, against the
// emulator in its own process on Pro limits (5 in flight, 240/min), timeScale 0.01. Every item is
// written before it is sent, followed to its end, and handed over. The bound is the one of the
// 300-submit row (batch-throughput.mjs): an ideal client replaying this run's own server-side
// render times (duration_ms, in submission order) under the limits, with no latency.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gate, MediaGenClient } from '@mediagen/core';
import { idealMakespan } from './batch-throughput.mjs';
import { emulatorMissing, startEmulatorChild } from './emulator-probe.mjs';
import { fmt } from './measure.mjs';

const PRO = { perMinute: 240, maxConcurrent: 5 };
const TARGET = 0.9;

export async function run({ quick }) {
  const n = quick ? 40 : 1_000;
  const timeScale = 0.01;
  const intervalMs = Math.max(10, 2_000 * timeScale); // the spec's 2 s image interval, scaled
  const what = `Batch on the ledger: a ${n.toLocaleString('en-US')}-line batch (runBatch, SQLite), Pro limits, timeScale ${timeScale}`;
  const target = `≥ ${TARGET} of bound, 0 429s, each line billed once`;
  const missing = await emulatorMissing();
  let ledgerApi;
  let sqlite;
  try {
    ledgerApi = await import('@mediagen/core/ledger');
    sqlite = await import('@mediagen/sqlite');
  } catch {
    ledgerApi = undefined;
  }
  if (missing || !ledgerApi?.runBatch) {
    const why = missing ?? 'runBatch is not in this build of @mediagen/core/ledger';
    return {
      rows: [{ id: 'batch-ledger', what, ours: `not measured: ${why}`, peers: {}, target, status: 'not measured' }],
      raw: { missing: why },
    };
  }
  const key = 'svc_live_bench_batch';
  const emu = await startEmulatorChild({
    timeScale,
    accounts: [{ id: 'bench_batch', tier: 'pro', balance: 15_000, keys: [{ key }], models: ['image-fast'] }],
  });
  const directory = mkdtempSync(join(tmpdir(), 'mediagen-bench-batch-'));
  const store = new sqlite.SqliteGenerationStore({ filename: join(directory, 'ledger.db') });
  try {
    let r429 = 0;
    const client = new MediaGenClient({
      apiKey: key,
      baseUrl: emu.url,
      gate: new Gate(),
      onRetry: (info) => {
        if (info.error?.status === 429) r429++;
      },
    });
    const ledger = ledgerApi.createGenerationLedger({ client, store, onError: () => {} });
    const items = Array.from({ length: n }, (_, i) => ({ model: 'image-fast', prompt: `a product shot, item ${i}`, seed: i }));
    const t0 = performance.now();
    const result = await ledgerApi.runBatch({ ledger, client, owner: 'bench', batchId: `bench-${Date.now()}`, items, intervalMs });
    const wallMs = performance.now() - t0;
    const generations = result.items.map((i) => i.generation).filter(Boolean);
    const ordered = [...generations].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
    const boundMs = idealMakespan(
      ordered.map((g) => g.duration_ms ?? 0),
      PRO,
    );
    const account = await (await fetch(`${emu.url}/__emulator/accounts/bench_batch`)).json();
    const reserves = account.ledger.filter((l) => l.type === 'reserve').map((l) => l.generation_id);
    const billedTwice = reserves.length - new Set(reserves).size;
    const ratio = boundMs / wallMs;
    const ok = ratio >= TARGET && r429 === 0 && billedTwice === 0 && reserves.length === n && result.completed === n;
    const row = {
      id: 'batch-ledger',
      what,
      ours: `wall ${fmt.time(wallMs)}, bound ${fmt.time(boundMs)}, ${r429} × 429, ${result.completed}/${n} completed, ${reserves.length} billed (${billedTwice} twice)`,
      peers: {},
      ratio: `${ratio.toFixed(2)} of bound`,
      target,
      status: ok ? 'pass' : 'miss',
      note: `runBatch with its default concurrency (the account's max_concurrent, 5), each item submitted through the ledger (written to SQLite first) and the gate, then polled every ${intervalMs} ms (2 s scaled); bound as in the 300-submit row: an ideal client replaying this run's own duration_ms in submission order under 5 in flight and 240/min, no latency; bills counted from the emulator's account ledger`,
    };
    return {
      rows: [row],
      raw: { n, timeScale, intervalMs, wallMs, boundMs, ratio, r429, billed: reserves.length, billedTwice, completed: result.completed },
    };
  } finally {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
    await emu.stop();
  }
}

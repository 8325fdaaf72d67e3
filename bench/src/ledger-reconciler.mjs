// Row: the ledger's reconciler following 10,000 unfinished image generations (issue 21): the
// poll rate it holds against the contract's ceiling (one read per generation per 2 s, so at most
// 5,000 reads/s), the shortest gap the service saw between two reads of one generation (must
// never be under 2 s), heap held, and CPU per 1,000 generations followed. The service is a
// stand-in in its own process that keeps every generation `processing`; the store is in memory
// (what is measured is the reconciler, not a database).
import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, MemoryGenerationStore } from '@mediagen/core/ledger';
import { here, startChild } from './child.mjs';
import { fmt } from './measure.mjs';

const FOLLOWED = 10_000;
const INTERVAL_MS = 2_000; // the contract's image interval
const CEILING = FOLLOWED / (INTERVAL_MS / 1_000);

export async function run({ quick }) {
  const seconds = quick ? 8 : 30;
  const server = await startChild(here('./child/pending-server.mjs'));
  const heapBefore = process.memoryUsage().heapUsed;
  const store = new MemoryGenerationStore();
  const client = new MediaGenClient({
    apiKey: 'svc_live_bench_reconciler',
    baseUrl: `http://127.0.0.1:${server.info.port}`,
    maxRetries: 0,
  });
  const ledger = createGenerationLedger({ client, store, batchSize: 200, onError: () => {} });
  try {
    const at = Date.now();
    for (let i = 0; i < FOLLOWED; i++) {
      await store.insert({
        key: `bench-${i}`,
        owner: `user-${i % 100}`,
        params: { model: 'image-fast', prompt: `follow ${i}` },
        status: 'processing',
        generation_id: `00000000-0000-4000-8000-${i.toString().padStart(12, '0')}`,
        generation: null,
        error: null,
        unavailable: false,
        notified: false,
        outputs: null,
        created_at: at + i,
        updated_at: at,
        next_check_at: at,
        version: 0,
        lease_holder: null,
        lease_until: 0,
      });
    }
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    ledger.start();
    // The first interval is the catch-up (everything due at once): the rate is measured after it.
    await new Promise((r) => setTimeout(r, INTERVAL_MS));
    const warm = await server.ask({ cmd: 'stats' });
    const tw = performance.now();
    await new Promise((r) => setTimeout(r, (seconds - INTERVAL_MS / 1_000) * 1_000));
    const end = await server.ask({ cmd: 'stats' });
    const elapsedS = (performance.now() - t0) / 1_000;
    const cpu = process.cpuUsage(cpu0);
    await ledger.stop();
    const rate = (end.reads - warm.reads) / ((performance.now() - tw) / 1_000);
    const heap = process.memoryUsage().heapUsed - heapBefore;
    const cpuMsPerS = (cpu.user + cpu.system) / 1_000 / elapsedS;
    const cpuPer1000 = cpuMsPerS / (FOLLOWED / 1_000);
    // No generation read twice measures no gap: that is not a pass (the shortest gap is unknown).
    const measured = end.gaps > 0 && typeof end.minGapMs === 'number';
    const gapOk = measured && end.minGapMs >= INTERVAL_MS - 1;
    const gapText = measured
      ? `shortest gap per generation ${fmt.time(end.minGapMs)} over ${end.gaps.toLocaleString('en')} gaps`
      : 'shortest gap per generation: measured nothing (no generation was read twice)';
    return {
      rows: [
        {
          id: 'ledger-reconciler',
          what: `Reconciler following ${FOLLOWED.toLocaleString('en')} unfinished image generations, ${seconds} s`,
          ours: `${Math.round(rate).toLocaleString('en')} reads/s held; ${gapText}; heap ${fmt.bytes(heap)}; CPU ${cpuPer1000.toFixed(1)} ms/s per 1,000 followed`,
          floor: `ceiling ${CEILING.toLocaleString('en')} reads/s (one per generation per 2 s)`,
          ratio: `${((rate / CEILING) * 100).toFixed(0)}% of the ceiling`,
          target: 'never above the contract interval per generation (gap ≥ 2 s)',
          status: gapOk ? 'pass' : 'miss',
          note: `stand-in service in a second process keeps every generation processing; store in memory; batchSize 200, next pass at once after a full batch; ${end.followed.toLocaleString('en')} distinct generations read; CPU = this process (reconciler + client + store), user+system`,
        },
      ],
      raw: { seconds, warm, end, rate, heap, cpu, cpuMsPerS, cpuPer1000 },
    };
  } finally {
    await ledger.stop();
    await server.stop();
  }
}

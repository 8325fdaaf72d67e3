import { binaryOf, installBinaries, versionOf } from './binaries.js';
import { CELLS, checksOf } from './cells.js';
import { freePort, startHarness } from './harness.js';
import { runNextCell } from './run-next.js';
import { runProcessCell } from './run-process.js';
import { runWorkerdCell } from './run-workerd.js';

const RUNNERS = { process: runProcessCell, workerd: runWorkerdCell, next: runNextCell };

/**
 * Runs every cell, `concurrency` at a time (each cell is a process of its own plus an emulator
 * in this one). Resolves to one entry per cell, in CELLS order:
 * `{ id, runtime, version, hmac, checks: [{ check, ok, error? }] }` (`hmac`: the backend core's
 * webhook verification took there), or `{ id, runtime, unavailable }`.
 * Durations go to `timings` only: results.json and the README hold nothing that varies by run.
 * @param {{ concurrency?: number, cells?: Array<Record<string, any>>, log?: (line: string) => void }} [options]
 */
export async function runMatrix({ concurrency = 2, cells = CELLS, log = () => {} } = {}) {
  await installBinaries();
  const out = new Array(cells.length);
  const timings = {};
  // The slow cells (a `next build`) start first, so the quick ones fill the other slot meanwhile.
  const queue = cells
    .map((cell, index) => ({ cell, index }))
    .sort((a, b) => Number(b.cell.kind === 'next') - Number(a.cell.kind === 'next'));
  let next = 0;
  async function worker() {
    while (next < queue.length) {
      const { cell, index } = queue[next++];
      const started = performance.now();
      out[index] = await runCell(cell);
      timings[cell.id] = Math.round(performance.now() - started);
      log(`${cell.id}: ${summary(out[index])} in ${(timings[cell.id] / 1000).toFixed(1)} s`);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, cells.length) }, worker));
  return { cells: out, timings };
}

async function runCell(cell) {
  if (cell.pending) return { id: cell.id, runtime: cell.runtime, unavailable: cell.pending };
  const binary = binaryOf(cell);
  if ('unavailable' in binary) return { id: cell.id, runtime: cell.runtime, unavailable: binary.unavailable };
  const version = await versionOf(cell, binary.path);
  // The receiver the runtime will serve is named before it starts, so the emulator delivers to it.
  const receiverPort = await freePort();
  const receiverUrl = `http://127.0.0.1:${receiverPort}${cell.route ?? '/webhooks'}`;
  const harness = await startHarness({ webhookUrls: [receiverUrl] });
  harness.env.receiverPort = receiverPort;
  harness.receiverUrl = receiverUrl;
  try {
    // A runner that throws (a bundle that does not build, a server that never starts) fails every check.
    const run = await RUNNERS[cell.kind](cell, binary.path, harness).catch((error) => ({
      results: [],
      exit: 'runner',
      stderr: String(error?.message ?? error),
    }));
    const byName = new Map(run.results.map((r) => [r.check, r]));
    const checks = checksOf(cell).map((check) => {
      const r = byName.get(check);
      if (r?.ok) return { check, ok: true };
      // A check that never reported: the process died or never started; its stderr says why.
      const error = r?.error ?? `no result (exit ${run.exit}): ${lastLines(run.stderr)}`;
      return { check, ok: false, error };
    });
    const hmac = byName.get('verify-webhook')?.detail?.hmac ?? null;
    return { id: cell.id, runtime: cell.runtime, version, hmac, checks };
  } finally {
    await harness.close();
  }
}

function lastLines(text) {
  return text.trim().split('\n').slice(-6).join(' | ').slice(0, 800) || 'nothing on stderr';
}

function summary(cell) {
  if (cell.unavailable) return `unavailable (${cell.unavailable})`;
  const failed = cell.checks.filter((c) => !c.ok);
  return failed.length === 0 ? 'all passed' : `FAILED ${failed.map((c) => `${c.check}: ${c.error}`).join('; ')}`;
}

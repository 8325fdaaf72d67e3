// Crash part, batches (issue 34): `mediagen batch` (the built CLI, a real process) killed with
// SIGKILL mid-run, then run again with `--resume`, `runs` times. Each run kills at another point:
// after k of the batch's submits were billed (k = 1 … N-1, read from the emulator's account
// ledger), and one run in three while a submit is billed with its 202 held (the answer lost with
// the process). Checked from the emulator's ledger and the run's results.jsonl: 0 billed twice
// (no generation reserved twice, and exactly N reservations for N lines: a line resubmitted under
// a new key would show as an extra one), 0 lost (every line completed, its generation reserved),
// each line's output downloaded (one file per line). Alone: node soak/src/batch-crash.mjs [--quick].
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '@mediagen/emulator';
import { DIE_WITH_PARENT } from './crash.mjs';

export const BATCH_FULL_RUNS = 20;
export const BATCH_QUICK_RUNS = 3;
const LINES = 12;
const API_KEY = 'svc_live_soak_batch';
const ACCOUNT = 'acct_batch';
const BIN = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));
/** A run (or its resume) that has not ended by then has hung: killed, and counted as lost. */
const RUN_LIMIT_MS = 60_000;
const running = new Set();
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

export async function batchCrashPart({ runs, log = () => {} }) {
  const directory = mkdtempSync(join(tmpdir(), 'mediagen-soak-batch-'));
  // Pro limits (5 in flight, 240/min): the batch runs through the gate as a user's would.
  const emulator = await startEmulator({
    port: 0,
    config: { timeScale: 0.01, accounts: [{ id: ACCOUNT, tier: 'pro', balance: 1_000_000, keys: [{ key: API_KEY }] }] },
  });
  const control = (method, path, body) =>
    fetch(`${emulator.url}/__emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((r) => r.json());
  const reserves = async () =>
    (await control('GET', `/accounts/${ACCOUNT}`)).ledger.filter((l) => l.type === 'reserve').map((l) => l.generation_id);
  const counts = { runs: 0, billedTwice: 0, lost: 0, notKilled: 0, extraBills: 0, missingFiles: 0 };
  const failures = [];
  try {
    for (let i = 0; i < runs; i++) {
      const dir = join(directory, `run-${i}`);
      const file = join(directory, `jobs-${i}.jsonl`);
      const out = join(dir, 'out');
      writeFileSync(
        file,
        Array.from({ length: LINES }, (_, n) => `${JSON.stringify({ model: 'image-fast', prompt: `soak batch ${i} line ${n}` })}\n`).join(
          '',
        ),
      );
      const before = (await reserves()).length;
      const heldAnswer = i % 3 === 2;
      const killAfter = 1 + (i % (LINES - 1));
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, MEDIAGEN_API_KEY: API_KEY, MEDIAGEN_BASE_URL: emulator.url };
      const first = cli([file, '--out', out, '--yes'], env);
      if (heldAnswer) {
        // After the price (an estimate is a POST /generate too): the next submit is billed, its 202 held.
        await first.line(/request\(s\) to submit/);
        await control('POST', '/faults', { endpoint: 'generate', when: 'after', hold: true });
        await control('GET', '/faults/held?min=1');
      } else {
        while ((await reserves()).length - before < killAfter && first.alive()) await new Promise((r) => setTimeout(r, 5));
      }
      first.proc.kill('SIGKILL');
      const killed = await first.done;
      if (heldAnswer) {
        await control('POST', '/faults/release', {}); // to a dead socket
        await control('DELETE', '/faults');
      }
      counts.runs++;
      if (killed.signal !== 'SIGKILL') {
        counts.notKilled++;
        failures.push(`batch run ${i + 1}: the batch ended before it was killed (exit ${killed.code})`);
      }
      const resumed = await cli([file, '--out', out, '--resume', '--yes'], env).done;
      if (resumed.code !== 0)
        failures.push(`batch run ${i + 1}: --resume exited ${resumed.code ?? resumed.signal}: ${resumed.stderr.slice(-300)}`);
      const billed = (await reserves()).slice(before);
      let lines = [];
      try {
        lines = readFileSync(join(out, 'results.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
      } catch {
        lines = [];
      }
      const twice = billed.length - new Set(billed).size;
      const ids = new Set(billed);
      const lost = LINES - lines.filter((l) => l.status === 'completed' && ids.has(l.generation_id)).length;
      const extra = Math.max(0, new Set(billed).size - LINES);
      const files = readdirSync(out).filter((name) => name !== '.mediagen-batch' && name !== 'results.jsonl').length;
      if (twice) (counts.billedTwice += twice), failures.push(`batch run ${i + 1}: ${twice} generation(s) billed twice`);
      if (lost) (counts.lost += lost), failures.push(`batch run ${i + 1}: ${lost} line(s) lost`);
      if (extra) (counts.extraBills += extra), failures.push(`batch run ${i + 1}: ${extra} generation(s) billed beyond the ${LINES} lines`);
      if (files !== LINES)
        (counts.missingFiles += Math.abs(LINES - files)), failures.push(`batch run ${i + 1}: ${files} output folders for ${LINES} lines`);
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await emulator.close();
    rmSync(directory, { recursive: true, force: true });
  }
  log(
    `crash batch: ${counts.runs} runs of ${LINES} lines killed mid-run and resumed: billed twice ${counts.billedTwice}, lost ${counts.lost}, billed beyond the lines ${counts.extraBills}, outputs missing ${counts.missingFiles}`,
  );
  return { counts, failures, lines: LINES };
}

export function batchCrashReport({ counts, lines }) {
  return [
    `part 4b, a CLI batch killed with SIGKILL mid-run then --resume (${counts.runs} runs of ${lines} lines):`,
    `  billed twice ${counts.billedTwice}, lost ${counts.lost}, billed beyond its lines ${counts.extraBills}, outputs missing ${counts.missingFiles}, not killed ${counts.notKilled}`,
  ];
}

function cli(args, env) {
  const proc = spawn(process.execPath, ['--import', DIE_WITH_PARENT, BIN, 'batch', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  let stderr = '';
  let ended = false;
  const waiters = [];
  proc.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
    for (const w of [...waiters]) if (w.pattern.test(stderr)) waiters.splice(waiters.indexOf(w), 1) && w.resolve();
  });
  proc.stdout.resume();
  const timer = setTimeout(() => proc.kill('SIGKILL'), RUN_LIMIT_MS);
  const done = new Promise((resolve) =>
    proc.on('close', (code, signal) => {
      ended = true;
      clearTimeout(timer);
      running.delete(proc);
      for (const w of waiters) w.resolve();
      resolve({ code, signal, stderr });
    }),
  );
  return {
    proc,
    done,
    alive: () => !ended,
    line: (pattern) => (pattern.test(stderr) || ended ? Promise.resolve() : new Promise((resolve) => waiters.push({ pattern, resolve }))),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = process.argv.includes('--quick') ? BATCH_QUICK_RUNS : BATCH_FULL_RUNS;
  const result = await batchCrashPart({ runs, log: (m) => process.stderr.write(`${m}\n`) });
  console.log(batchCrashReport(result).join('\n'));
  console.log(
    result.failures.length === 0 ? 'batch crashes: all invariants hold' : `INVARIANTS FAILED:\n  ${result.failures.join('\n  ')}`,
  );
  process.exit(result.failures.length === 0 ? 0 : 1);
}

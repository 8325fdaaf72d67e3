// Part 4 of the soak (issues 21 and 29): an app on the generation ledger killed with SIGKILL at each
// point of the submit path, then restarted, `runs` times per point, on SQLite (one instance
// restarted) and on PostgreSQL (one instance up all along that carries on, and one restarted after
// the kill), on the real clock. Each run is the ledger
// packages' own crash child (packages/{sqlite,postgres}/test/support/crash-child.mjs), the same
// code their per-point tests run once. Checked from the emulator's ledger and the store:
// 0 generations billed twice, 0 lost (every intent terminal and handed over in the store: the
// restarted instances exit only then), each terminal state handed to the app's handler once. Per
// point it measures time-to-visible (the restarted instance's first list shows the intent; from its
// start) and time-to-final (the intent terminal and handed over; from the kill).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '@mediagen/emulator';
import pg from 'pg';

export const CRASH_POINTS = ['after-insert', 'in-flight', 'after-202', 'in-handler'];
/** Runs per point and store: the 100, and a few for CI's `--quick`. */
export const FULL_RUNS = 100;
export const QUICK_RUNS = 3;
const API_KEY = 'svc_live_soak_crash';
const ACCOUNT = 'acct_crash';
/** A restarted instance that has not settled its intent by then has lost it. */
const RESTART_LIMIT_MS = 60_000;
const childOf = (store) => fileURLToPath(new URL(`../../packages/${store}/test/support/crash-child.mjs`, import.meta.url));
/** Loaded into every child the soak starts, first (`node --import`): it dies with the soak (see the module). */
export const DIE_WITH_PARENT = new URL('./die-with-parent.mjs', import.meta.url).href;
/** Children still running: killed when this process exits, whatever the reason it exits. */
const running = new Set();
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

/**
 * Runs `runs` crashes per point on each store (the two stores side by side, each on its own
 * emulator: a run counts the reservations it caused). Resolves with counts per store and point,
 * and the invariants that failed.
 */
export async function crashPart({ runs, databaseUrl, log = () => {}, progress = () => {} }) {
  const directory = mkdtempSync(join(tmpdir(), 'mediagen-soak-crash-'));
  const failures = [];
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const schema = `mg_soak_crash_${process.pid}_${Date.now().toString(36)}`;
  await pool.query(`CREATE SCHEMA ${schema}`);
  const stores = {
    sqlite: { instances: 1, env: (n) => ({ DB_FILE: join(directory, `run-${n}.db`) }) },
    postgres: { instances: 2, env: (n) => ({ DATABASE_URL: databaseUrl, TABLE: `${schema}.generations_${n.replaceAll('-', '_')}` }) },
  };
  const results = {};
  try {
    await Promise.all(
      Object.entries(stores).map(async ([name, store]) => {
        const emulator = await startEmulator({
          port: 0,
          config: { timeScale: 0.001, accounts: [{ id: ACCOUNT, tier: 'ultimate', balance: 1_000_000, keys: [{ key: API_KEY }] }] },
        });
        const counts = (results[name] = {});
        try {
          for (const point of CRASH_POINTS) {
            const c = (counts[point] = {
              runs: 0,
              billedTwice: 0,
              lost: 0,
              handedTwice: 0,
              notReached: 0,
              notVisible: 0,
              visibleMs: [],
              finalMs: [],
            });
            for (let i = 0; i < runs; i++) {
              progress(`${name} ${point} ${i + 1}/${runs}`);
              const outcome = await oneRun({ emulator, store, name, point, n: `${point}-${i}`, directory });
              c.runs++;
              if (!outcome.reached) c.notReached++;
              if (outcome.billed > 1) c.billedTwice++;
              if (!outcome.settled || outcome.billed === 0) c.lost++;
              if (!outcome.handedOnce) c.handedTwice++;
              if (outcome.visibleMs === undefined) c.notVisible++;
              else c.visibleMs.push(outcome.visibleMs);
              if (outcome.finalMs !== undefined) c.finalMs.push(outcome.finalMs);
              for (const problem of outcome.problems) failures.push(`crash ${name} ${point} run ${i + 1}: ${problem}`);
            }
            log(
              `crash ${name} ${point}: ${c.runs} runs, billed twice ${c.billedTwice}, lost ${c.lost}, handed over other than once ${c.handedTwice}, not listed at restart ${c.notVisible}; ${timesOf(c)}`,
            );
          }
        } finally {
          await emulator.close();
        }
      }),
    );
  } finally {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {});
    await pool.end();
    rmSync(directory, { recursive: true, force: true });
  }
  return { results, failures };
}

async function oneRun({ emulator, store, name, point, n, directory }) {
  const control = (method, path, body) =>
    fetch(`${emulator.url}/__emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((r) => r.json());
  const reserves = async () =>
    (await control('GET', `/accounts/${ACCOUNT}`)).ledger.filter((l) => l.type === 'reserve').map((l) => l.generation_id);
  const HANDLED_FILE = join(directory, `${name}-${n}.handled`);
  const KEY = `soak-crash-${name}-${n}`;
  const env = { ...store.env(n), HANDLED_FILE, KEY, BASE_URL: emulator.url, API_KEY };
  const problems = [];
  const before = new Set(await reserves());
  // Held answers: the service bills, then sits on the 202 until the child is killed.
  if (point === 'in-flight') await control('POST', '/faults', { endpoint: 'generate', when: 'after', hold: true });
  // On PostgreSQL one instance is up while the first runs and carries on after its death (inside
  // the handler the first must get there first: then it starts after the kill).
  let finalAt;
  const settledLine = (line) => {
    if (line === 'settled') finalAt ??= Date.now();
  };
  const carrying =
    store.instances > 1 && point !== 'in-handler'
      ? child(childOf(name), { ...env, CRASH_AT: 'none', INSTANCE: 'b' }, RESTART_LIMIT_MS, settledLine)
      : undefined;
  const crashed = await child(childOf(name), { ...env, CRASH_AT: point, INSTANCE: 'a' }, RESTART_LIMIT_MS, (line, kill) => {
    if (line !== 'submitting' || point !== 'in-flight') return;
    void control('GET', '/faults/held?min=1').then(kill);
  });
  const killedAt = Date.now();
  const reached = crashed.signal === 'SIGKILL';
  if (!reached) problems.push(`the first instance was not killed at ${point} (exit ${crashed.code})`);
  if (point === 'in-flight') {
    await control('POST', '/faults/release', {}); // to a dead socket: nobody hears it
    await control('DELETE', '/faults');
  }
  const startedAt = Date.now();
  let visibleMs;
  const restartedLine = (line) => {
    if (line.startsWith('visible ')) visibleMs ??= Date.now() - startedAt;
    settledLine(line);
  };
  const restarted = await Promise.all([
    child(childOf(name), { ...env, CRASH_AT: 'none', INSTANCE: 'c' }, RESTART_LIMIT_MS, restartedLine),
    ...(store.instances > 1
      ? [carrying ?? child(childOf(name), { ...env, CRASH_AT: 'none', INSTANCE: 'b' }, RESTART_LIMIT_MS, settledLine)]
      : []),
  ]);
  if (visibleMs === undefined) problems.push('the restarted instance did not list the intent at once');
  const settled = restarted.every((r) => r.code === 0);
  if (!settled) problems.push(`a restarted instance did not settle the intent (${restarted.map((r) => r.code ?? r.signal).join(', ')})`);
  const billed = (await reserves()).filter((id) => !before.has(id));
  if (billed.length !== 1) problems.push(`billed ${billed.length} times`);
  const lines = existsSync(HANDLED_FILE) ? readFileSync(HANDLED_FILE, 'utf8').split('\n').filter(Boolean) : [];
  const handedOnce = lines.length === 1 && lines[0] === `${billed[0]} completed`;
  if (!handedOnce) problems.push(`handed to the handler ${lines.length} times (${lines.join('; ')})`);
  const finalMs = finalAt === undefined ? undefined : finalAt - killedAt;
  return { reached, settled, billed: billed.length, handedOnce, problems, visibleMs, finalMs };
}

/**
 * Runs one crash child to its end (a kill, an exit, or `limitMs`); `onLine` sees each stdout line.
 * The child dies with this process: killed on its exit, and by the child's own watchdog (the IPC
 * channel closing) should this process be killed outright.
 */
function child(script, env, limitMs, onLine = () => {}) {
  const proc = spawn(process.execPath, ['--import', DIE_WITH_PARENT, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  running.add(proc);
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk) => {
    for (const line of chunk.split('\n').filter(Boolean)) onLine(line, () => proc.kill('SIGKILL'));
  });
  const limit = setTimeout(() => proc.kill('SIGKILL'), limitMs);
  return new Promise((resolve) =>
    proc.once('exit', (code, signal) => {
      running.delete(proc);
      clearTimeout(limit);
      resolve({ code, signal });
    }),
  );
}

/** `visible median/max ms, final median/max ms` of a point's runs. */
function timesOf(c) {
  const stat = (values) => {
    if (values.length === 0) return 'none measured';
    const sorted = [...values].sort((a, b) => a - b);
    return `median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted[sorted.length - 1]} ms`;
  };
  return `time-to-visible ${stat(c.visibleMs)}; time-to-final ${stat(c.finalMs)}`;
}

/** The report's lines for this part. */
export function crashReport({ results }, runs) {
  const lines = [`4. SIGKILL at each point of the submit path, then restarted: ${runs} runs per point`];
  for (const [name, points] of Object.entries(results)) {
    const total = Object.values(points).reduce(
      (t, c) => ({
        runs: t.runs + c.runs,
        billedTwice: t.billedTwice + c.billedTwice,
        lost: t.lost + c.lost,
        handedTwice: t.handedTwice + c.handedTwice,
      }),
      { runs: 0, billedTwice: 0, lost: 0, handedTwice: 0 },
    );
    const instances = name === 'postgres' ? 'PostgreSQL, one instance carrying on and one restarted' : 'SQLite, one instance restarted';
    lines.push(
      `   ${instances}: ${total.runs} runs (${Object.keys(points).join(', ')}): billed twice ${total.billedTwice}, lost ${total.lost}, terminal state handed over other than once ${total.handedTwice}`,
    );
    for (const [point, c] of Object.entries(points)) lines.push(`     ${point}: ${timesOf(c)}`);
  }
  return lines;
}

// `node soak/src/crash.mjs [--quick] [--runs=<n>]`: this part alone (run.mjs runs it after parts 1-3).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runsArg = process.argv.find((a) => a.startsWith('--runs='));
  const runs = runsArg ? Number(runsArg.slice('--runs='.length)) : process.argv.includes('--quick') ? QUICK_RUNS : FULL_RUNS;
  const started = Date.now();
  const part = await crashPart({
    runs,
    databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    log: (msg) => process.stderr.write(`soak crash ${((Date.now() - started) / 1000).toFixed(1)}s: ${msg}\n`),
  });
  console.log(crashReport(part, runs).join('\n'));
  console.log(part.failures.length === 0 ? 'all invariants hold' : `INVARIANTS FAILED:\n  ${part.failures.join('\n  ')}`);
  process.exit(part.failures.length === 0 ? 0 : 1);
}

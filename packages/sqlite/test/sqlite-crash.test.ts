import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteGenerationStore } from '../src/index';

/**
 * An app on the ledger (SQLite), killed with SIGKILL at each point of the submit path, then
 * restarted: the intent listed at once, taken up as soon as the dead run's lease lapsed, billed
 * once, finished, handed to the app's handler once (issues 21 and 29; the soak repeats it and
 * measures the times on the real clock).
 */
const API_KEY = 'svc_live_crash';
/**
 * The restart's clock, ahead of the real one: past the ledger's default lease (6 s, renewed only
 * by a live holder), so the dead run's intent is taken up on the first pass; far short of the
 * minute a first check used to wait, which would never come on this clock (the test would time out).
 */
const PAST_ONE_LEASE_MS = 7_000;
const directory = mkdtempSync(join(tmpdir(), 'mediagen-crash-'));
let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_crash', tier: 'ultimate', balance: 10_000, keys: [{ key: API_KEY }] }] },
  });
});
afterAll(async () => {
  await emulator.close();
  rmSync(directory, { recursive: true, force: true });
});

const control = (method: string, path: string, body?: unknown) =>
  fetch(`${emulator.url}/__emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((r) => r.json() as Promise<any>);

async function reserves(): Promise<string[]> {
  const account = await control('GET', '/accounts/acct_crash');
  return account.ledger.filter((l: { type: string }) => l.type === 'reserve').map((l: { generation_id: string }) => l.generation_id);
}

/** Runs the child to its end (a kill or an exit); `onLine` sees each stdout line. */
function child(env: Record<string, string>, onLine: (line: string, kill: () => void) => void = () => {}) {
  const proc = spawn(process.execPath, [new URL('./support/crash-child.mjs', import.meta.url).pathname], {
    env: { ...process.env, BASE_URL: emulator.url, API_KEY, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean)) onLine(line, () => proc.kill('SIGKILL'));
  });
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
}

describe('SIGKILL at each point of the submit path, then a restart', () => {
  it.each(['after-insert', 'in-flight', 'after-202', 'in-handler'])('%s: billed once, finished, handed over once', async (point) => {
    const DB_FILE = join(directory, `${point}.db`);
    const HANDLED_FILE = join(directory, `${point}.handled`);
    const KEY = `crash-${point}`;
    const before = await reserves();
    // In flight: the service bills the submit, then holds its answer until released.
    if (point === 'in-flight') await control('POST', '/faults', { endpoint: 'generate', when: 'after', hold: true });
    const env = { DB_FILE, HANDLED_FILE, KEY };
    const crashed = await child({ ...env, CRASH_AT: point }, (line, kill) => {
      if (line !== 'submitting' || point !== 'in-flight') return;
      // Killed once the service has billed the submit and holds its answer back.
      void control('GET', '/faults/held?min=1').then(kill);
    });
    expect(crashed.signal).toBe('SIGKILL');
    await control('POST', '/faults/release', {}); // to a dead socket: nobody hears it
    await control('DELETE', '/faults');
    const seen: string[] = [];
    const restarted = await child({ ...env, CRASH_AT: 'none', SKEW_MS: String(PAST_ONE_LEASE_MS) }, (line) => void seen.push(line));
    expect(restarted.code).toBe(0);
    // Listed at once, before the restart resent anything; an intent the dead run never saw answered reads `submitting`.
    expect(seen[0]).toMatch(point === 'in-handler' ? /^visible completed$/ : /^visible (submitting|pending|processing|completed)$/);
    if (point === 'after-insert' || point === 'in-flight') expect(seen[0]).toBe('visible submitting');

    const billed = (await reserves()).filter((id) => !before.includes(id));
    expect(billed).toHaveLength(1);
    const store = new SqliteGenerationStore({ filename: DB_FILE });
    const record = await store.get(KEY);
    await store.close();
    expect(record).toMatchObject({ generation_id: billed[0], status: 'completed', notified: true });
    expect(existsSync(HANDLED_FILE) ? readFileSync(HANDLED_FILE, 'utf8') : '').toBe(`${billed[0]} completed\n`);
  });
});

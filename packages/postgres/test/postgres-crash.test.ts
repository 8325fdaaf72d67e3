import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresGenerationStore } from '../src/index';
import { DATABASE_URL, testSchema } from './support/postgres';

/**
 * An app on the ledger (PostgreSQL), one instance killed with SIGKILL at each point of the
 * submit path, then two instances following the table at once: billed once, finished, handed to
 * the app's handler once (issue 21's crash proof, one run per point here; the soak repeats it).
 */
const API_KEY = 'svc_live_crash';
/** Instance c's clock, ahead of the real one: past the ledger's default lease (6 s), far short of the old one-minute wait. */
const PAST_ONE_LEASE_MS = 7_000;
const directory = mkdtempSync(join(tmpdir(), 'mediagen-crash-'));
let emulator: RunningEmulator;
const db = await testSchema('crash');
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_crash', tier: 'ultimate', balance: 10_000, keys: [{ key: API_KEY }] }] },
  });
});
afterAll(async () => {
  await emulator.close();
  await db.drop();
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

describe('SIGKILL at each point of the submit path, then two instances', () => {
  it.each(['after-insert', 'in-flight', 'after-202', 'id-write-lost', 'in-handler'])(
    '%s: billed once, finished, handed over once',
    async (point) => {
      const TABLE = db.table();
      const HANDLED_FILE = join(directory, `${point}.handled`);
      const KEY = `crash-${point}`;
      const before = await reserves();
      // In flight: the service bills the submit, then holds its answer until released.
      if (point === 'in-flight') await control('POST', '/faults', { endpoint: 'generate', when: 'after', hold: true });
      const env = { DATABASE_URL, TABLE, HANDLED_FILE, KEY };
      // Instance b is up on the real clock while a runs and carries on after a dies: it takes the
      // intent up once a's lease lapses (a live a renews it), whichever comes first with c. (Inside
      // the handler, a must get there first: b starts after that kill.)
      const carryingOn = point === 'in-handler' ? undefined : child({ ...env, CRASH_AT: 'none', INSTANCE: 'b' });
      const crashed = await child({ ...env, CRASH_AT: point, INSTANCE: 'a' }, (line, kill) => {
        if (line !== 'submitting' || point !== 'in-flight') return;
        // Killed once the service has billed the submit and holds its answer back.
        void control('GET', '/faults/held?min=1').then(kill);
      });
      expect(crashed.signal).toBe('SIGKILL');
      await control('POST', '/faults/release', {}); // to a dead socket: nobody hears it
      await control('DELETE', '/faults');
      const store = new PostgresGenerationStore({ pool: db.pool, table: TABLE });
      if (point === 'id-write-lost') {
        // Billed, and the table holds only the intent: nothing here knows the generation's id.
        expect((await reserves()).length).toBe(before.length + 1);
        expect(await store.get(KEY)).toMatchObject({ status: 'submitting', generation_id: null, version: 0 });
      }
      // Instance c, started after the kill on a clock just past one lease: the intent is listed at once.
      const seen: string[] = [];
      const [b, c] = await Promise.all([
        carryingOn ?? child({ ...env, CRASH_AT: 'none', INSTANCE: 'b' }),
        child({ ...env, CRASH_AT: 'none', INSTANCE: 'c', SKEW_MS: String(PAST_ONE_LEASE_MS) }, (line) => void seen.push(line)),
      ]);
      expect([b.code, c.code]).toEqual([0, 0]);
      if (point !== 'in-handler') expect(seen[0]).toMatch(/^visible (submitting|pending|processing|completed)$/);
      if (point === 'after-insert' || point === 'in-flight' || point === 'id-write-lost') expect(seen[0]).toBe('visible submitting');

      const billed = (await reserves()).filter((id) => !before.includes(id));
      expect(billed).toHaveLength(1);
      const record = await store.get(KEY);
      expect(record).toMatchObject({ generation_id: billed[0], status: 'completed', notified: true });
      expect(existsSync(HANDLED_FILE) ? readFileSync(HANDLED_FILE, 'utf8') : '').toBe(`${billed[0]} completed\n`);
    },
  );
});

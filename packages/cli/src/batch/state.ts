import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors';

/**
 * What a batch keeps in its `--out` directory, so `--resume` after Ctrl-C or a kill bills
 * nothing twice and downloads nothing twice:
 * - `.mediagen-batch/batch.json`: the batch id (every item's idempotency key derives from it) and
 *   the jobs file's digest;
 * - `.mediagen-batch/ledger.db`: the generation ledger in SQLite (`@mediagen/sqlite`): each item
 *   written before it is sent, its generation id once known, its downloaded outputs once stored;
 * - `.mediagen-batch/lock`: the pid of the run using the directory.
 */
export interface BatchState {
  version: 1;
  batch_id: string;
  /** SHA-256 of the jobs file the batch started with. */
  jobs_digest: string;
  items: number;
  created_at: string;
}

export const stateDir = (out: string) => join(out, '.mediagen-batch');
export const ledgerFile = (out: string) => join(stateDir(out), 'ledger.db');
const stateFile = (out: string) => join(stateDir(out), 'batch.json');
const lockFile = (out: string) => join(stateDir(out), 'lock');

export async function readState(out: string): Promise<BatchState | undefined> {
  let text: string;
  try {
    text = await readFile(stateFile(out), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let state: Partial<BatchState> | undefined;
  try {
    state = JSON.parse(text) as Partial<BatchState>;
  } catch {
    state = undefined;
  }
  if (state?.version !== 1 || typeof state.batch_id !== 'string' || typeof state.jobs_digest !== 'string') {
    throw new UsageError(`${stateFile(out)} is not a batch state this version reads.`, 'Choose another --out for a new batch.');
  }
  return state as BatchState;
}

/** A new batch's state, written (atomically) before anything is priced or sent. */
export async function createState(out: string, digest: string, items: number): Promise<BatchState> {
  const state: BatchState = { version: 1, batch_id: randomUUID(), jobs_digest: digest, items, created_at: new Date().toISOString() };
  await mkdir(stateDir(out), { recursive: true });
  const temporary = `${stateFile(out)}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { flag: 'wx' });
  await rename(temporary, stateFile(out));
  return state;
}

/**
 * Takes the directory for this process: one run at a time per `--out` (two would follow the
 * same items and download their outputs twice). A lock left by a run that was killed (its pid
 * gone) is taken over. Resolves with the release.
 */
export async function lockOut(out: string): Promise<() => Promise<void>> {
  await mkdir(stateDir(out), { recursive: true });
  const path = lockFile(out);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      const release = () => rm(path, { force: true });
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
      throw new UsageError(`Another mediagen batch (pid ${holder}) is running in ${out}.`, 'Wait for it to end, or stop it first.');
    }
    // Its holder is gone: the lock is stale.
    await rm(path, { force: true });
  }
  throw new UsageError(`Could not take ${path}.`, 'Check that no other mediagen batch uses this --out.');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Written whole under a temporary name, then renamed: a kill never leaves half a results file. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, text, { flag: 'wx' });
  await rename(temporary, path);
}

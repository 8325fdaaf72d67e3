import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Gate } from '@mediagen/core';
import { type BatchResult, batchItemKey, createGenerationLedger, type LedgerGeneration, runBatch } from '@mediagen/core/ledger';
import { SqliteGenerationStore } from '@mediagen/sqlite';
import { confirmSpend } from '../batch/confirm';
import { readJobs } from '../batch/jobs-file';
import { batchOutputSink } from '../batch/output-sink';
import { priceBatch } from '../batch/price';
import { createBatchDisplay, expectedRender } from '../batch/progress';
import { createState, ledgerFile, lockOut, readState, writeAtomically } from '../batch/state';
import { clientFrom, type GlobalOptions } from '../context';
import { UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { shellQuote, thousands } from '../format';
import { onInterrupt } from '../interrupt';
import type { Io } from '../io';

export interface BatchOptions extends GlobalOptions {
  out?: string;
  yes?: boolean;
  resume?: boolean;
}

/** The ledger's owner for a CLI batch: one user, the person at the terminal. */
const OWNER = 'cli';
/** Passes that hand over completed items whose outputs a killed run had not stored yet. */
const HANDOVER_PASSES = 40;

/**
 * `mediagen batch jobs.jsonl --out dir`: reads and checks every line, prices them all (exact
 * estimates), asks before spending, runs them on the generation ledger through the client's
 * gate with aggregate progress, downloads each output once, and writes `results.jsonl` in the
 * lines' order. `--resume` after Ctrl-C or a kill follows what was recorded and submits only the
 * rest (the state is in `<out>/.mediagen-batch/`, see `batch/state.ts`).
 */
export async function batchCommand(file: string, options: BatchOptions, io: Io): Promise<number> {
  if (!options.out) throw new UsageError('--out <dir> is required: the outputs, results.jsonl and the state for --resume go there.');
  const out = resolve(options.out);
  const resume = `mediagen batch ${shellQuote(file)} --out ${shellQuote(options.out)} --resume`;
  const existing = await readState(out);
  if (existing && !options.resume) {
    throw new UsageError(
      `${options.out} already holds a batch (${existing.batch_id}).`,
      `Resume it with: ${resume} (or choose another --out)`,
    );
  }
  if (!existing && options.resume) throw new UsageError(`${options.out} holds no batch to resume.`, 'Start it without --resume.');

  const client = clientFrom(options, io, process.env, { gate: new Gate() });
  const list = await client.models.cachedList();
  const models = Array.isArray(list.models) ? list.models.filter((m) => typeof m?.slug === 'string') : [];
  const { jobs, digest } = await readJobs(file, models);
  if (existing && existing.jobs_digest !== digest) {
    throw new UsageError(
      `${file} is not the file this batch started with: changed lines would be submitted as new requests.`,
      `Resume with the original file, or start the new one with another --out.`,
    );
  }

  const release = await lockOut(out);
  const state = existing ?? (await createState(out, digest, jobs.length));
  const store = new SqliteGenerationStore({ filename: ledgerFile(out) });
  const errors: string[] = [];
  const ledger = createGenerationLedger({
    client,
    store,
    // One run per directory (the lock): a killed run's leases are this run's to take at once.
    instanceId: `batch:${state.batch_id}`,
    persistOutputs: batchOutputSink(out),
    onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
  });
  try {
    return await run();
  } finally {
    await store.close().catch(() => {});
    await release();
  }

  async function run(): Promise<number> {
    const items = jobs.map((j) => j.params);
    // Items the earlier run wrote: followed by the run below, never priced or billed again.
    const recorded = new Set<number>();
    for (const [i, params] of items.entries()) if (await store.get(batchItemKey(state.batch_id, i, params))) recorded.add(i);
    const toSend = items.filter((_, i) => !recorded.has(i));

    // The price first, from the service's own estimates (nothing charged).
    if (toSend.length > 0) {
      const price = await priceBatch(client, toSend);
      const credits = await client.credits.get().catch(() => undefined);
      const enhance = price.enhanceCredits ? ` + ${thousands(price.enhanceCredits)} for enhance` : '';
      const already = recorded.size ? ` (${recorded.size} recorded by the earlier run: followed, not billed again)` : '';
      io.err(
        `${toSend.length} request(s) to submit${already}: ${thousands(price.credits)} credits${enhance} at most (exact estimates)${credits ? ` · balance ${thousands(credits.balance)}` : ''}`,
      );
      if (!options.yes && !(await confirmSpend(io, `Spend up to ${thousands(price.credits + price.enhanceCredits)} credits?`))) {
        io.err('Nothing submitted.');
        return EXIT.ok;
      }
    } else {
      io.err(`All ${items.length} request(s) were submitted by the earlier run: following them, nothing is billed again.`);
    }

    const display = createBatchDisplay(io, items.length, { expected: await expectedRender(toSend, models) });
    const result = await onInterrupt((signal) =>
      runBatch({
        ledger,
        client,
        owner: OWNER,
        batchId: state.batch_id,
        items,
        signal,
        onProgress: (p) => display.update(p),
        onItem: (item) => {
          if (item.status === 'failed')
            display.note(`line ${jobs[item.index]?.line}: failed ${item.error?.code ?? ''} ${item.error?.message ?? ''}`.trim());
        },
      }).finally(() => display.stop()),
    );
    if (!result.interrupted) await handOverAll(result);
    const views = await Promise.all(result.items.map((i) => ledger.get(OWNER, i.idempotency_key)));
    const path = resolve(out, 'results.jsonl');
    await writeAtomically(
      path,
      result.items.map((item, i) => `${JSON.stringify(resultLine(item, jobs[i]?.line ?? 0, views[i]))}\n`).join(''),
    );

    for (const message of new Set(errors)) io.err(`note: ${message}`);
    const summary = `${result.completed} completed · ${result.failed} failed · ${result.unfinished} unfinished · ${thousands(result.credits_used)} credits charged`;
    if (options.json) io.json({ ...omitItems(result), results: path });
    else io.out(`${summary}\nresults: ${path}`);
    if (result.interrupted) {
      const sent = result.items.filter((i) => i.status === 'unfinished' && i.generation).length;
      io.err(
        `Interrupted: ${sent} submitted request(s) keep rendering and are billed (the contract has no cancel); ${result.unfinished - sent} not sent.`,
      );
      io.err(`Resume with (nothing billed or downloaded twice): ${resume}`);
      return EXIT.interrupted;
    }
    if (result.unfinished > 0) {
      io.err(`Some requests are unfinished. Resume with: ${resume}`);
      return EXIT.service;
    }
    return result.failed > 0 ? EXIT.failed : EXIT.ok;
  }

  /** Completed items whose outputs are not stored yet (a killed run's, or a download that failed): the ledger's passes store them. */
  async function handOverAll(result: BatchResult): Promise<void> {
    for (let pass = 0; pass < HANDOVER_PASSES; pass++) {
      const waiting = [];
      for (const item of result.items) {
        const record = await store.get(item.idempotency_key);
        if (record && (record.status === 'completed' || record.status === 'failed') && !record.notified) waiting.push(record);
      }
      if (waiting.length === 0) return;
      await ledger.reconcile();
      await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** pass)));
    }
  }
}

function resultLine(item: BatchResult['items'][number], line: number, view: LedgerGeneration | undefined) {
  const g = view ?? item.generation;
  const files = (g?.output_urls ?? []).filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
  return {
    index: item.index,
    line,
    status: item.status,
    idempotency_key: item.idempotency_key,
    generation_id: g?.generation_id ?? null,
    model: g?.model ?? null,
    credits_used: item.status === 'unfinished' ? null : (g?.credits_used ?? 0),
    files,
    error: item.error,
  };
}

function omitItems({ items: _items, ...rest }: BatchResult) {
  return rest;
}

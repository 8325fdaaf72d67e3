import { GenerationFailedError, isMediaGenError, type MediaGenClient, type ModelKind } from '@mediagen/core';
import type { RenderShape } from '@mediagen/core/ledger';
import { downloadOutputs } from '../download';
import { OutputWriteError } from '../errors';
import { EXIT } from '../exit-codes';
import { failureCharge, mayRetry, seconds, shellQuote, text } from '../format';
import { onInterrupt } from '../interrupt';
import type { Io } from '../io';
import { createProgress } from '../progress';
import { loadRenderHistory } from '../render-history';

export interface FollowOptions {
  /** Where the outputs go. Default: the current directory. */
  out?: string;
  /** `--no-download` sets this false. */
  download?: boolean;
  json?: boolean;
}

export interface FollowContext {
  /** The most outputs to download: what the submit asked for (`results-asked.ts`). */
  results: number;
  /** Extra fields for `--json` (the idempotency key of the submit). */
  extra?: Record<string, unknown>;
  /** When the elapsed time counts from: the submit, for `generate --wait`. Default: now. */
  startedAt?: number;
  /** The params that change render time (`generate`); `wait` knows only the model, from the first read. */
  shape?: RenderShape;
  /** Where render times are remembered. Default: the user's cache folder. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Waits for a generation with a live progress line, then downloads its outputs (at most
 * `results`; links listed beyond are not fetched, and a line says so). Ctrl-C stops
 * waiting, never the generation (the contract has no cancel), and prints how to resume.
 * Resolves with the exit code; a failed generation throws `GenerationFailedError`.
 */
export async function follow(
  client: MediaGenClient,
  io: Io,
  id: string,
  kind: ModelKind | undefined,
  options: FollowOptions,
  { results, extra = {}, startedAt = Date.now(), shape, env }: FollowContext,
): Promise<number> {
  const history = await loadRenderHistory(env);
  const shapeOf = (g: { model?: string } | undefined): RenderShape | undefined => shape ?? (g?.model ? { model: g.model } : undefined);
  const resume = `mediagen wait ${shellQuote(id)}${options.out ? ` --out ${shellQuote(options.out)}` : ''}`;
  return onInterrupt(async (signal) => {
    const progress = createProgress(io, kind, {
      startedAt,
      estimate(g, elapsedMs) {
        const of = shapeOf(g);
        // `wait` joins a render already under way: its age counts from the service's created_at.
        const created = shape ? Number.NaN : Date.parse(g?.created_at ?? '');
        return of && history.estimate(of, kind, Number.isFinite(created) ? Date.now() - created : elapsedMs);
      },
    });
    let generation: Awaited<ReturnType<MediaGenClient['generations']['wait']>>;
    try {
      generation = await client.generations.wait(id, { signal, onUpdate: (g) => progress.update(g) });
    } catch (error) {
      progress.stop();
      if (signal.aborted) {
        io.err(`Stopped waiting. Generation ${id} was not cancelled: it keeps rendering.`);
        io.err(`Resume with: ${resume}`);
        return EXIT.interrupted;
      }
      io.err(`Resume with: ${resume}`);
      throw error;
    }
    progress.stop();
    const rendered = shapeOf(generation);
    if (generation.status === 'completed' && rendered && typeof generation.duration_ms === 'number') {
      await history.record(rendered, generation.duration_ms);
    }
    if (generation.status === 'failed') {
      if (options.json) io.json({ ...generation, ...extra });
      else io.err(`failed after ${seconds(generation.duration_ms)} · ${failureCharge(generation)} · request ${generation.request_id}`);
      // The same key would return this same failed generation: a retry is a new submit.
      if (mayRetry(generation)) io.err('To try again, submit without --idempotency-key: the same key returns this failed generation.');
      throw new GenerationFailedError(generation);
    }
    let files: string[] = [];
    if (options.download !== false) {
      const dir = options.out ?? '.';
      try {
        const downloaded = await downloadOutputs(client, generation, dir, { limit: results, signal });
        files = downloaded.files;
        if (downloaded.skipped > 0)
          io.err(`The service listed ${downloaded.skipped} more output link(s) than the ${results} asked for: not downloaded.`);
      } catch (error) {
        if (signal.aborted) {
          io.err(`Stopped downloading. Download again with: ${resume}`);
          return EXIT.interrupted;
        }
        // A service or link error stays typed as is; a file system error is about --out.
        if (isMediaGenError(error)) throw error;
        throw new OutputWriteError(dir, error, `mediagen wait ${shellQuote(id)}`);
      }
    }
    if (options.json) {
      io.json({ ...generation, ...extra, files });
      return EXIT.ok;
    }
    for (const file of files) io.out(file);
    io.out(
      `completed ${generation.generation_id} in ${seconds(generation.duration_ms)} · ${text(generation.credits_used)} credits charged · request ${generation.request_id}`,
    );
    return EXIT.ok;
  });
}

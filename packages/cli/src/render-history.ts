import { mkdir, open, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtaEstimator, type GenerationEta, type RenderShape } from '@mediagen/core/ledger';

/** Renders remembered across runs (the newest): enough for every model's recent history. */
const KEPT = 500;
/** The file is read only up to this many bytes: a file from outside cannot make the CLI hold more. */
const MAX_BYTES = 256 * 1024;

interface Entry {
  shape: { model: string; duration?: number | string; resolution?: string; number_results?: number };
  ms: number;
}

/**
 * The render times this machine's CLI has seen (`<cache>/mediagen/render-times.json`), so its
 * progress line estimates the time left from them (core's `EtaEstimator`, the ledger's rule),
 * and from the contract's typical range until it has seen enough. A missing, unreadable or
 * foreign file is an empty history, never an error: an estimate is a nicety.
 */
export async function loadRenderHistory(env: NodeJS.ProcessEnv = process.env) {
  const cache = env.XDG_CACHE_HOME?.trim() || (env.HOME ? join(env.HOME, '.cache') : tmpdir());
  const file = join(cache, 'mediagen', 'render-times.json');
  let entries = parse(await readBounded(file));
  const estimator = new EtaEstimator();
  for (const e of entries) estimator.record(e.shape, e.ms);
  return {
    estimate(shape: RenderShape, kind: string | undefined, elapsedMs: number): GenerationEta | undefined {
      return estimator.estimate(shape, { kind, elapsedMs, now: Date.now() });
    },
    /** A completed render: kept for the next runs (written whole to a temp file, then renamed). */
    async record(shape: RenderShape, ms: number): Promise<void> {
      const entry = entryOf({ shape, ms });
      if (!entry) return;
      estimator.record(entry.shape, entry.ms);
      entries = [...entries, entry].slice(-KEPT);
      try {
        await mkdir(join(cache, 'mediagen'), { recursive: true, mode: 0o700 });
        const temp = `${file}.${process.pid}.tmp`;
        await writeFile(temp, JSON.stringify(entries), { mode: 0o600 });
        await rename(temp, file);
      } catch {
        // A read-only home: the estimate just learns nothing across runs.
      }
    },
  };
}

export type RenderHistory = Awaited<ReturnType<typeof loadRenderHistory>>;

async function readBounded(file: string): Promise<string> {
  try {
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(MAX_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, MAX_BYTES, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return '';
  }
}

function parse(text: string): Entry[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return value.slice(-KEPT).flatMap((e) => entryOf(e) ?? []);
}

/** Only the fields that change render time, of the types the contract gives them. */
function entryOf(value: unknown): Entry | undefined {
  const { shape, ms } = (value ?? {}) as { shape?: Record<string, unknown>; ms?: unknown };
  if (!shape || typeof shape.model !== 'string' || shape.model.length > 200) return undefined;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return undefined;
  const kept: Entry['shape'] = { model: shape.model };
  if (typeof shape.duration === 'number' || typeof shape.duration === 'string') kept.duration = shape.duration;
  if (typeof shape.resolution === 'string') kept.resolution = shape.resolution.slice(0, 32);
  if (typeof shape.number_results === 'number') kept.number_results = shape.number_results;
  return { shape: kept, ms };
}

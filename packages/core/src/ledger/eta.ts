import { TYPICAL_RENDER_SECONDS } from '../wire/timing';

/**
 * How long a generation still has to go, as this app's own past renders suggest. The contract
 * gives no progress field: this is a forecast, never a promise of the service, and says so.
 * Snake_case, as it travels beside the wire's fields (a stream event's data, a status read).
 */
export interface GenerationEta {
  /** Always true: a forecast from past renders (or the contract's typical range), not the service's word. */
  estimate: true;
  /** Half of comparable renders had finished within this many more milliseconds. */
  remaining_p50_ms: number;
  /** Nine in ten comparable renders had finished within this many more milliseconds. */
  remaining_p90_ms: number;
  /** When it was made (ISO 8601): the remaining times count down from here. */
  as_of: string;
  /**
   * `history`: this app's own renders of the model with the same render params; `typical`: the
   * contract's typical render time for the kind (spec: Limits), while too few renders were seen.
   */
  basis: 'history' | 'typical';
  /** Past renders it rests on (0 for `typical`). */
  samples: number;
  /** Running longer than every comparable render seen: nothing sensible to say of what is left (both times 0). */
  overdue: boolean;
}

/** The params that change how long a render takes (the rest, a prompt or a seed, do not). */
export interface RenderShape {
  model: string;
  duration?: unknown;
  resolution?: unknown;
  number_results?: unknown;
}

export interface EtaEstimatorOptions {
  /** Renders kept per model and render params (the newest). Default 64. */
  samplesPerShape?: number;
  /** Distinct model and render-param combinations kept (the least recently used goes). Default 256. */
  maxShapes?: number;
  /** Renders of a combination needed before its own history is used instead of the typical range. Default 5. */
  minSamples?: number;
}

const P50 = 0.5;
const P90 = 0.9;

/** One key per model and render params: `video-standard|d=5|r=720p|n=`. */
export function renderKey(shape: RenderShape): string {
  const part = (v: unknown) => (typeof v === 'number' || typeof v === 'string' ? String(v).toLowerCase().slice(0, 32) : '');
  return `${String(shape.model).slice(0, 200)}|d=${part(shape.duration)}|r=${part(shape.resolution)}|n=${part(shape.number_results)}`;
}

/**
 * Render times seen, per model and render params, and the estimate they give a running render.
 * Bounded: at most `maxShapes × samplesPerShape` numbers, whatever it is fed. The estimate is the
 * remaining time among past renders that ran at least as long as this one has so far (the
 * conditional quantiles), so it narrows as the render goes on and never says p50 > p90.
 */
export class EtaEstimator {
  readonly #perShape: number;
  readonly #maxShapes: number;
  readonly #minSamples: number;
  /** Newest last; a Map keeps insertion order, so the first key is the least recently fed. */
  readonly #samples = new Map<string, number[]>();

  constructor(options: EtaEstimatorOptions = {}) {
    this.#perShape = Math.max(1, Math.trunc(options.samplesPerShape ?? 64));
    this.#maxShapes = Math.max(1, Math.trunc(options.maxShapes ?? 256));
    this.#minSamples = Math.max(1, Math.trunc(options.minSamples ?? 5));
  }

  /** Numbers held now (for the memory bound). */
  get size(): number {
    let n = 0;
    for (const list of this.#samples.values()) n += list.length;
    return n;
  }

  /** A finished render of `shape` that took `durationMs` (creation to completion). Nonsense is ignored. */
  record(shape: RenderShape, durationMs: number): void {
    if (!Number.isFinite(durationMs) || durationMs < 0 || typeof shape?.model !== 'string') return;
    const key = renderKey(shape);
    const list = this.#samples.get(key) ?? [];
    this.#samples.delete(key);
    list.push(durationMs);
    if (list.length > this.#perShape) list.splice(0, list.length - this.#perShape);
    this.#samples.set(key, list);
    if (this.#samples.size > this.#maxShapes) this.#samples.delete(this.#samples.keys().next().value as string);
  }

  /** Forgets everything (before a rebuild from the store). */
  clear(): void {
    this.#samples.clear();
  }

  /**
   * The estimate for a render of `shape` of model `kind` running for `elapsedMs`; undefined when
   * neither history nor the contract says anything (audio and text have no typical range).
   */
  estimate(shape: RenderShape, input: { kind?: string | undefined; elapsedMs: number; now: number }): GenerationEta | undefined {
    const elapsed = Math.max(0, Number.isFinite(input.elapsedMs) ? input.elapsedMs : 0);
    const as_of = new Date(Number.isFinite(input.now) ? input.now : 0).toISOString();
    const seen = typeof shape?.model === 'string' ? this.#samples.get(renderKey(shape)) : undefined;
    if (seen && seen.length >= this.#minSamples) {
      const longer = seen.filter((d) => d > elapsed).sort((a, b) => a - b);
      const base = { estimate: true as const, as_of, basis: 'history' as const, samples: seen.length };
      if (longer.length === 0) return { ...base, remaining_p50_ms: 0, remaining_p90_ms: 0, overdue: true };
      return {
        ...base,
        remaining_p50_ms: Math.round(quantile(longer, P50) - elapsed),
        remaining_p90_ms: Math.round(quantile(longer, P90) - elapsed),
        overdue: false,
      };
    }
    const range = input.kind === undefined ? undefined : TYPICAL_RENDER_SECONDS[input.kind];
    if (!range) return undefined;
    // The typical range read as uniform: of the renders still running at `elapsed`, the
    // remaining ones are spread evenly up to its top.
    const [lo, hi] = [range[0] * 1000, range[1] * 1000];
    const base = { estimate: true as const, as_of, basis: 'typical' as const, samples: 0 };
    if (elapsed >= hi) return { ...base, remaining_p50_ms: 0, remaining_p90_ms: 0, overdue: true };
    const from = Math.max(lo, elapsed);
    return {
      ...base,
      remaining_p50_ms: Math.round(from + P50 * (hi - from) - elapsed),
      remaining_p90_ms: Math.round(from + P90 * (hi - from) - elapsed),
      overdue: false,
    };
  }
}

/** The q-quantile of sorted `values` (at least one), interpolated between neighbours. */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const lower = sorted[below] as number;
  const upper = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return lower + (upper - lower) * (at - below);
}

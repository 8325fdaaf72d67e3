import type { GenerateParams } from '../types';
import { EtaEstimator, type EtaEstimatorOptions, type GenerationEta } from './eta';
import { type GenerationRecord, isTerminalStatus } from './record';
import type { GenerationStore } from './store';
import { type LedgerGeneration, viewOf } from './view';

export type { EtaEstimatorOptions, GenerationEta };

/** Running generations whose params and start this instance remembers (the newest), for estimates from a bare status read. */
const LIVE_MAX = 10_000;
/** How many kinds of model are remembered: an account's list is tens of models. */
const KINDS_MAX = 1_000;

/**
 * Where the ledger's estimates come from. The history is a bounded sample of render times kept
 * in memory, per model and render params, rather than a table of its own: the store already
 * holds every completed generation with its params and the service's `duration_ms`, so a new
 * store method that reads the newest of them (`recentCompleted`) rebuilds it when the ledger
 * starts and every `refreshMs` (learning what other instances recorded), and each completion
 * this instance records is added as it happens. Nothing more is written per generation.
 */
export function renderTimes(store: GenerationStore, now: () => number, options: EtaEstimatorOptions & { refreshMs?: number } = {}) {
  const estimator = new EtaEstimator(options);
  const refreshMs = options.refreshMs ?? 5 * 60_000;
  const capacity = Math.max(1, Math.trunc(options.samplesPerShape ?? 64)) * Math.max(1, Math.trunc(options.maxShapes ?? 256));
  /** By generation id: the params and the ledger's time of the intent, for a running generation. */
  const live = new Map<string, { params: GenerateParams; startedAt: number }>();
  const kinds = new Map<string, string>();
  /** Completions already in the sample, so a record seen twice (a refresh, then its own write) counts once. */
  let counted = new Set<string>();
  let refreshedAt = Number.NEGATIVE_INFINITY;
  let refreshing: Promise<void> | undefined;

  function learn(record: GenerationRecord): void {
    const g = record.generation;
    if (record.status !== 'completed' || !g || !record.generation_id || counted.has(record.generation_id)) return;
    const ms = typeof g.duration_ms === 'number' ? g.duration_ms : Date.parse(g.completed_at ?? '') - Date.parse(g.created_at ?? '');
    if (!Number.isFinite(ms) || ms < 0) return;
    counted.add(record.generation_id);
    if (counted.size > capacity * 2) counted = new Set([...counted].slice(-capacity));
    estimator.record(record.params, ms);
  }

  const times = {
    /** A record the ledger wrote or read: remembered while it runs, learnt from once completed. */
    saw(record: GenerationRecord): void {
      const id = record.generation_id;
      if (!id) return;
      if (isTerminalStatus(record.status)) {
        live.delete(id);
        learn(record);
        return;
      }
      if (live.has(id)) return;
      live.set(id, { params: record.params, startedAt: record.created_at });
      if (live.size > LIVE_MAX) live.delete(live.keys().next().value as string);
    },

    kindOf(model: string, kind: string | undefined): void {
      if (kind === undefined || kinds.get(model) === kind) return;
      if (kinds.size >= KINDS_MAX) kinds.clear();
      kinds.set(model, kind);
    },

    eta(generation: { generation_id: string | null; status: string; model: string; created_at?: string }): GenerationEta | undefined {
      if (generation.status !== 'pending' && generation.status !== 'processing') return undefined;
      const known = generation.generation_id ? live.get(generation.generation_id) : undefined;
      const startedAt = known?.startedAt ?? Date.parse(generation.created_at ?? '');
      const at = now();
      return estimator.estimate(known?.params ?? { model: generation.model }, {
        kind: kinds.get(generation.model),
        elapsedMs: Number.isFinite(startedAt) ? at - startedAt : 0,
        now: at,
      });
    },

    /** The record as readers see it, with its estimate while it runs. */
    view(record: GenerationRecord): LedgerGeneration {
      times.saw(record);
      const view = viewOf(record);
      const eta = times.eta({ ...view, status: record.status === 'submitting' ? 'pending' : record.status });
      if (eta) view.eta = eta;
      return view;
    },

    /** Rebuilds the sample from the store's newest completions, at most every `refreshMs`. */
    refresh(): Promise<void> {
      if (!store.recentCompleted || now() - refreshedAt < refreshMs) return refreshing ?? Promise.resolve();
      refreshedAt = now();
      refreshing = (async () => {
        const recent = (await store.recentCompleted?.(capacity)) ?? [];
        estimator.clear();
        counted = new Set();
        // Oldest first, so each shape keeps its newest renders.
        for (let i = recent.length - 1; i >= 0; i--) learn(recent[i] as GenerationRecord);
      })().finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },

    /** For tests: numbers held. */
    get size(): number {
      return estimator.size;
    },
  };
  return times;
}

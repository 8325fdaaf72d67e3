import { type WithResponse, withMeta } from '../http/response-meta';
import type { RequestOptions, Transport } from '../http/transport';
import type { Model, ModelList } from '../types';
import type { EndpointRequest } from '../wire/paths';
import { expectModelList } from './shape';

const DEFAULT_TTL_MS = 300_000; // 5 minutes

/** `GET /api/v1/models`, plus the per-client cache that validation and polling read. */
export class Models {
  readonly #transport: Transport;
  readonly #ttlMs: number;
  #cached: { list: ModelList; bySlug: Map<string, Model>; at: number } | undefined;
  #pending: Promise<ModelList> | undefined;

  readonly #onList: ((list: ModelList) => void) | undefined;

  /** `onList` sees every list fetched (the gate reads `rate_limit` from it). */
  constructor(transport: Transport, ttlMs = DEFAULT_TTL_MS, onList?: (list: ModelList) => void) {
    this.#transport = transport;
    this.#ttlMs = ttlMs;
    this.#onList = onList;
  }

  /** The cached list as it stands (stale or not); never sends a request. */
  get cached(): ModelList | undefined {
    return this.#cached?.list;
  }

  /** Always asks the service, and refreshes the cache. The list is the account's own allowlist. */
  async list(options?: RequestOptions): Promise<ModelList & WithResponse> {
    const { data, meta } = await this.#transport.request<ModelList>({
      ...options,
      ...({ method: 'GET', path: '/api/v1/models' } satisfies EndpointRequest<'models'>),
      expect: expectModelList,
    });
    this.#store(data);
    return withMeta(data, meta);
  }

  /** The cached list, fetched once and again after the TTL; concurrent callers share one request. */
  async cachedList(options?: RequestOptions): Promise<ModelList> {
    const cached = this.#cached;
    if (cached && Date.now() - cached.at < this.#ttlMs) return cached.list;
    this.#pending ??= this.list(options).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** A model from the cache, fetching the list when it is missing or stale. */
  async find(slug: string, options?: RequestOptions): Promise<Model | undefined> {
    await this.cachedList(options);
    return this.#cached?.bySlug.get(slug);
  }

  /** A model from the cache only; never sends a request. */
  peek(slug: string): Model | undefined {
    return this.#cached?.bySlug.get(slug);
  }

  /** Drops the cache, so the next `find` asks the service again. */
  invalidate(): void {
    this.#cached = undefined;
  }

  /** `list` passed `expectModelList`: its `models` is an array of entries with a slug. */
  #store(list: ModelList): void {
    this.#cached = { list, bySlug: new Map(list.models.map((m) => [m.slug, m])), at: Date.now() };
    this.#onList?.(list);
  }
}

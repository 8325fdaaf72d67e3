import { type WithResponse, withMeta } from '../http/response-meta';
import type { RequestOptions, Transport } from '../http/transport';
import type { CreditsSummary } from '../types';
import type { EndpointRequest } from '../wire/paths';
import { expectCredits } from './shape';

/** `GET /api/v1/credits`: a lightweight read of the wallet. */
export class Credits {
  readonly #transport: Transport;
  readonly #onRead: ((summary: CreditsSummary) => void) | undefined;
  /** `onRead` sees every summary read (the gate reads `rate_limit` from it). */
  constructor(transport: Transport, onRead?: (summary: CreditsSummary) => void) {
    this.#transport = transport;
    this.#onRead = onRead;
  }

  async get(options?: RequestOptions): Promise<CreditsSummary & WithResponse> {
    const { data, meta } = await this.#transport.request<CreditsSummary>({
      ...options,
      ...({ method: 'GET', path: '/api/v1/credits' } satisfies EndpointRequest<'credits'>),
      expect: expectCredits,
    });
    this.#onRead?.(data);
    return withMeta(data, meta);
  }
}

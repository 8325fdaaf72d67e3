import type { RequestOptions, Transport } from '../http/transport';
import { withMeta, type ResponseMeta } from '../http/response-meta';
import type { CreditsSummary } from '../types';

/** `GET /api/v1/credits`: a lightweight read of the wallet. */
export class Credits {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  async get(options?: RequestOptions): Promise<CreditsSummary & ResponseMeta> {
    const { data, meta } = await this.#transport.request<CreditsSummary>({ method: 'GET', path: '/api/v1/credits', ...options });
    return withMeta(data, meta);
  }
}

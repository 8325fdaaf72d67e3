import { APIError } from '../errors';
import type { GateWait } from '../gate/store';
import type { GenerateParams, SubmitResponse } from '../types';
import type { WebhookEvent } from '../webhooks/verify';
import { errorCodeInfo } from '../wire/error-codes';
import type { LedgerCancel } from './cancel';
import type { GenerationEta } from './eta';
import type { GenerationLedger } from './ledger';
import type { LedgerGeneration } from './view';

/** Whose generations they are when the app names no user (`identify` absent): one shared owner. */
export const SHARED_OWNER = '*';

/**
 * The ledger as the one server handler's `source` (`createMediaGenHandler({ source })`, the
 * `GenerationSource` of `@mediagen/core/server`), written structurally. The handler calls
 * `submit` instead of `client.generations.create`, so the intent is recorded before the call
 * (`record` adopts generations submitted elsewhere), and hands every verified webhook event to
 * `onEvent` (`ledger.applyEvent`): `source: ledgerSource(ledger)` is the whole wiring.
 */
export interface LedgerGenerationSource {
  record(entry: { owner: string | undefined; submitted: SubmitResponse; params: GenerateParams }): Promise<unknown>;
  get(id: string, owner: string | undefined): Promise<LedgerGeneration | undefined>;
  list(
    owner: string | undefined,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<{ generations: LedgerGeneration[]; next_cursor: string | null }>;
  submit(
    params: GenerateParams,
    input: {
      owner: string | undefined;
      idempotencyKey?: string | undefined;
      signal?: AbortSignal | undefined;
      onQueue?: ((wait: GateWait) => void) | undefined;
    },
  ): Promise<SubmitResponse>;
  onEvent(event: WebhookEvent): Promise<unknown>;
  cancel(id: string, owner: string | undefined): Promise<LedgerCancel | undefined>;
  eta(generation: { generation_id: string | null; status: string; model: string; created_at?: string }): GenerationEta | undefined;
}

export function ledgerSource(ledger: GenerationLedger): LedgerGenerationSource {
  const ownerOf = (owner: string | undefined) => owner ?? SHARED_OWNER;
  return {
    record: ({ owner, submitted, params }) => ledger.adopt(ownerOf(owner), submitted, params),
    get: (id, owner) => ledger.get(ownerOf(owner), id),
    onEvent: (event) => ledger.applyEvent(event),
    eta: (generation) => ledger.eta(generation),
    cancel: (id, owner) => ledger.cancel(ownerOf(owner), id),
    // Every intent from the moment it is written: one not yet answered reads `submitting: true`
    // with a null generation_id (its idempotency_key names it), and keeps its place in the list.
    // A refused one is left out: it never became a generation (its submit answered the refusal).
    async list(owner, page) {
      const result = await ledger.list(ownerOf(owner), { limit: page.limit, cursor: page.cursor ?? null });
      return { ...result, generations: result.generations.filter((g) => g.generation_id !== null || g.submitting) };
    },
    async submit(params, { owner, idempotencyKey, signal, onQueue }) {
      const g = await ledger.submit(ownerOf(owner), params, { idempotencyKey, signal, onQueue });
      if (g.generation_id === null) {
        // The key of an intent the service refused for good: the same refusal again, never a 202 without a generation.
        const code = g.error?.code ?? 'REFUSED';
        const status = errorCodeInfo(code)?.status ?? 400;
        const message = g.error?.message ?? '';
        throw new APIError(message, { status, code, retryable: false, body: { error: code, message } });
      }
      // The 202's fields as recorded; a replay after the generation moved on no longer has
      // `pricing_source` (the status read does not carry it): it is left out, not made up.
      const answer: Record<string, unknown> = {
        generation_id: g.generation_id,
        status: 'pending',
        model: g.model,
        credits_estimate: typeof g.credits_estimate === 'number' ? g.credits_estimate : g.credits_used,
        created_at: g.created_at,
        request_id: g.request_id,
      };
      if (typeof g.pricing_source === 'string') answer.pricing_source = g.pricing_source;
      return answer as SubmitResponse;
    },
  };
}

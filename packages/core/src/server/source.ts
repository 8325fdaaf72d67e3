import type { GateWait } from '../gate/store';
import type { LedgerCancel } from '../ledger/cancel';
import type { GenerationEta } from '../ledger/eta';
import type { GenerateParams, Generation, SubmitResponse } from '../types';
import type { WebhookEvent } from '../webhooks/verify';

/** One submit the handler made, as it hands it to the app's source of generations. */
export interface SubmittedGeneration {
  /** The user who submitted it (`identify`), undefined when the app names no user. */
  owner: string | undefined;
  submitted: SubmitResponse;
  params: GenerateParams;
}

/** A page of what the app knows, newest first. */
export interface GenerationPage {
  /**
   * Each at least `{ generation_id }`; the source decides what else it keeps. A null id is an
   * intent whose submit is not answered yet (the ledger's `submitting: true`, named by its
   * `idempotency_key`): listed from the moment it is written, so a paid submit never vanishes.
   */
  generations: readonly { generation_id: string | null; [key: string]: unknown }[];
  /** Pass back as `cursor` for the next page; null or absent on the last one. */
  next_cursor?: string | null;
}

/**
 * Where the handler records and finds an app's generations, per owner (the generation ledger
 * implements it; so can an app's own table). The handler never reads another owner's entries:
 * every call names the owner asking.
 */
export interface GenerationSource {
  /** Records a submit, once per generation (an idempotent replay is not recorded again). */
  record(entry: SubmittedGeneration): unknown;
  /** The entry for `id` if `owner` may see it, else undefined (the handler then answers 404). */
  get(id: string, owner: string | undefined): unknown;
  /** `owner`'s generations, newest first. */
  list(owner: string | undefined, page: { limit: number; cursor?: string | undefined }): GenerationPage | Promise<GenerationPage>;
  /**
   * Submits in the handler's place, intent first: records the owner, params and key, sends them
   * with that key, records the generation id, and answers the 202 body. When present the handler
   * calls it instead of `client.generations.create` (and not `record`), so a crash anywhere on the
   * way leaves an intent the source resends with its own key, never a billed generation nobody
   * knows. `idempotencyKey` is the owner-scoped key the service sees; absent, the source makes one.
   */
  submit?(
    params: GenerateParams,
    input: {
      owner: string | undefined;
      idempotencyKey?: string | undefined;
      signal?: AbortSignal | undefined;
      /** Told where the submit stands while it waits for a slot in the client's gate (pass it to `create`). */
      onQueue?: ((wait: GateWait) => void) | undefined;
    },
  ): Promise<SubmitResponse>;
  /**
   * Stops `owner`'s generation or intent (`id`: its generation id or idempotency key) as far as
   * the contract allows (the ledger's `cancel`): `stopped` when it was never sent (nothing
   * charged), `abandoned` when the service has it (it goes on and is billed), `finished` when it
   * had ended. Undefined for an id `owner` may not see. Without it, the cancel route answers 404.
   */
  cancel?(id: string, owner: string | undefined): Promise<LedgerCancel | undefined>;
  /** An estimate of the time a running generation has left (the ledger's `eta`), sent as `eta` on reads and stream events. */
  eta?(generation: Generation): GenerationEta | undefined;
  /** Each verified webhook event, before the app's `webhook.onEvent` (the ledger applies it). A throw answers 5xx: the service redelivers. */
  onEvent?(event: WebhookEvent): unknown;
}

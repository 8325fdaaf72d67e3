import { InvalidArgumentError } from '@ai-sdk/provider';

/**
 * The idempotency keys this model object's calls are using right now. A caller's own key names
 * one generation; when `generateImage` splits `n` over several calls (above the model's
 * `number_results` max), each call would send that key with the same body and get the first
 * call's generation back. That is refused instead of returning duplicate images.
 */
export class KeysInFlight {
  readonly #keys = new Set<string>();

  claim(key: string): () => void {
    if (this.#keys.has(key)) {
      throw new InvalidArgumentError({
        argument: 'idempotencyKey',
        message:
          'This idempotency key is already used by another call of this model in flight. generateImage splits n above the ' +
          "model's number_results max into several calls; a caller's key names one generation: keep n within the max, or omit the key.",
      });
    }
    this.#keys.add(key);
    return () => this.#keys.delete(key);
  }
}

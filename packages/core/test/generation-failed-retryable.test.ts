/**
 * A failed generation's `retryable` is the service's word, and only `true` is a yes: anything
 * else a payload may carry (`"false"`, `1`, `null`, an object) reads as "not retryable", with
 * the hint that says a resubmit bills again, never "may succeed if resubmitted".
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GenerationFailedError } from '../src/index';
import type { Generation } from '../src/types';

const failed = (retryable: unknown) =>
  ({
    generation_id: 'g',
    status: 'failed',
    error: { code: 'model_unavailable', message: 'down', retryable },
    credits_used: 0,
  }) as unknown as Generation;

describe('GenerationFailedError: retryable only when the service says true', () => {
  it('true is retryable, with its hint', () => {
    const error = new GenerationFailedError(failed(true));
    expect([error.retryable, error.next]).toEqual([true, 'May succeed if resubmitted.']);
  });

  it('any other value is not, and never says a resubmit may succeed', () => {
    fc.assert(
      fc.property(
        fc.anything().filter((value) => value !== true),
        (value) => {
          const error = new GenerationFailedError(failed(value));
          expect(error.retryable).toBe(false);
          expect(error.next).toBe('Resubmitting as is fails (and bills) again.');
        },
      ),
    );
    expect(new GenerationFailedError(failed('false')).retryable).toBe(false);
  });
});

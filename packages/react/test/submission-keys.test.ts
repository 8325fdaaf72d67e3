import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSubmissionKeys, paramsFingerprint } from '../src/index';

describe('one idempotency key per submission', () => {
  it('keeps the key for the same params (a double click, a retry), in any key order; new for other params', () => {
    let n = 0;
    const keys = createSubmissionKeys(() => `k${++n}`);
    const a = keys.keyFor({ model: 'image-fast', prompt: 'cat', seed: 1 });
    expect(keys.keyFor({ seed: 1, prompt: 'cat', model: 'image-fast' })).toBe(a);
    const b = keys.keyFor({ model: 'image-fast', prompt: 'dog' });
    expect(b).not.toBe(a);
    // Back to the first params after a change is a new submission.
    expect(keys.keyFor({ model: 'image-fast', prompt: 'cat', seed: 1 })).not.toBe(a);
  });

  it('gives a new key once the submission is settled (accepted, or refused for good)', () => {
    let n = 0;
    const keys = createSubmissionKeys(() => `k${++n}`);
    const first = keys.keyFor({ model: 'm', prompt: 'p' });
    keys.settle('not-this-one');
    expect(keys.keyFor({ model: 'm', prompt: 'p' })).toBe(first);
    keys.settle(first);
    expect(keys.keyFor({ model: 'm', prompt: 'p' })).not.toBe(first);
  });

  it('fingerprints equal objects equally, whatever the key order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(paramsFingerprint(reversed)).toBe(paramsFingerprint(object));
      }),
    );
  });
});

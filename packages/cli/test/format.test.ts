import type { Generation } from '@mediagen/core';
import { describe, expect, it } from 'vitest';
import { failureCharge } from '../src/format';

const failed = (credits_used: number | null, code = 'model_unavailable') =>
  ({ generation_id: 'g1', status: 'failed', credits_used, error: { code, message: 'x', retryable: false } }) as unknown as Generation;

describe('failureCharge: what a failed generation cost, never "refunded" while credits were kept', () => {
  it('a refunded failure, a forfeited flag, and a failure that kept credits', () => {
    expect(failureCharge(failed(0))).toBe('0 credits charged (refunded)');
    // null breaks the contract (credits_used is non-null from submission on): no refund is claimed.
    expect(failureCharge(failed(null))).toBe('charge unknown (the service sent no credits_used)');
    expect(failureCharge(failed(4, 'CONTENT_POLICY_VIOLATION'))).toBe('4 credits forfeited (flagged by safety review)');
    expect(failureCharge(failed(7))).toBe('7 credits charged');
  });
});

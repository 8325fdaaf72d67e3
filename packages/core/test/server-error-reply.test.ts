import { describe, expect, it } from 'vitest';
import { ConnectionError, InsufficientCreditsError, ParamsValidationError, RateLimitError, TimeoutError } from '../src/index';
import { errorReply } from '../src/server';

describe('errorReply', () => {
  it('keeps the service status, code, next, request_id and the code-specific fields', () => {
    const body = { error: 'INSUFFICIENT_CREDITS', message: 'Not enough', next: 'Top up', request_id: 'req_1', balance: 3, needed: 8 };
    const reply = errorReply(
      new InsufficientCreditsError('Not enough', { status: 402, code: 'INSUFFICIENT_CREDITS', next: 'Top up', requestId: 'req_1', body }),
    );
    expect(reply).toEqual({
      status: 402,
      headers: { 'x-request-id': 'req_1' },
      body: { error: 'INSUFFICIENT_CREDITS', message: 'Not enough', next: 'Top up', request_id: 'req_1', balance: 3, needed: 8 },
    });
  });

  it('passes Retry-After on for 429', () => {
    const reply = errorReply(new RateLimitError('slow down', { status: 429, code: 'RATE_LIMIT', retryAfterMs: 2_500 }));
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe('3');
  });

  it('answers client-side failures with a matching status', () => {
    const invalid = errorReply(
      new ParamsValidationError('image-fast', [{ field: 'seed', code: 'INVALID_TYPE', message: 'must be an integer' }]),
    );
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ error: 'PARAMS_INVALID', details: { field: 'seed' }, issues: [{ field: 'seed' }] });
    expect(errorReply(new ConnectionError('down')).status).toBe(502);
    expect(errorReply(new TimeoutError('slow')).status).toBe(504);
  });

  it('hides the message of anything that is not an SDK error', () => {
    const reply = errorReply(new Error('password=hunter2'));
    expect(reply.status).toBe(500);
    expect(JSON.stringify(reply.body)).not.toContain('hunter2');
  });
});

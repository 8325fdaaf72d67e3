import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redact, sanitizeCause } from '../src/util/redact';
import { ERROR_CODES } from '../src/wire/error-codes';

const KEY = 'svc_live_Abc123Secret_xyz';

describe('redact', () => {
  it('removes keys, bearer tokens, webhook secrets and URL credentials, and keeps JSON parseable', () => {
    const text = `{"m":"Bearer ${KEY} from http://user:pa55word@host/x, whsec_s3cret and acme_live_k3y"}`;
    const out = redact(text, [KEY]);
    for (const secret of [KEY, 'pa55word', 's3cret', 'k3y']) expect(out).not.toContain(secret);
    expect(JSON.parse(out).m).toContain('[redacted]');
  });

  it('a key that holds a line break is redacted line by line', () => {
    const key = 'svc_live_FirstHalfAAAA\nSecondHalfBBBB';
    expect(redact('line 1 "svc_live_FirstHalfAAAA", line 2 "SecondHalfBBBB"', [key])).not.toMatch(/FirstHalf|SecondHalf/);
  });

  it('finds an embedded secret whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), (before, after) => {
        expect(redact(`${before}${KEY}${after}`, [KEY])).not.toContain(KEY);
      }),
      { numRuns: 500 },
    );
  });

  it('stays linear on pathological input (these were quadratic with an unbounded scheme)', () => {
    // Bounded time is the test's timeout: a quadratic scan of 256 KB takes minutes.
    for (const unit of ['a.', 'a-', 'a:', 'a_', 'a:/', 'x://', 'Bearer ', '_live_', 'whsec_']) {
      const text = unit.repeat(Math.ceil((256 * 1024) / unit.length));
      expect(typeof redact(text, [KEY])).toBe('string');
    }
  });

  it("leaves the contract's own hints as written: a key prefix alone is no secret", () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) expect({ code, next: redact(info.next) }).toEqual({ code, next: info.next });
    expect(redact('it starts with svc_live_ and is shown once')).toBe('it starts with svc_live_ and is shown once');
    expect(redact('key svc_live_x1 and whsec_y2')).toBe('key svc_live_[redacted] and whsec_[redacted]');
  });

  it('sanitizeCause keeps a clean error as is and copies one that quotes a secret', () => {
    const clean = new Error('ECONNREFUSED');
    expect(sanitizeCause(clean, [KEY])).toBe(clean);
    const leaky = Object.assign(new TypeError(`bad header "Bearer ${KEY}"`), { code: 'ERR_X' });
    const copy = sanitizeCause(leaky, [KEY]) as Error & { code?: string };
    expect(copy).not.toBe(leaky);
    expect(`${copy.message}${copy.stack}`).not.toContain(KEY);
    expect([copy.name, copy.code]).toEqual(['TypeError', 'ERR_X']);
  });
});

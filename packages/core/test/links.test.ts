import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, isExpired, parseOutputLink } from '../src/index';

const id = '6f1c2a52-9d0e-4a53-a0b5-3e1f0f7b2c11';
const link = (exp: number, path = '') => `https://api.example.com${path}/api/v1/output/${id}/${exp}/abcDEF_123-x/1/image%201.png`;

describe('parseOutputLink', () => {
  it('reads id, expiry, index and filename', () => {
    expect(parseOutputLink(link(1_700_000_000))).toEqual({
      generationId: id,
      expiresAt: new Date(1_700_000_000_000),
      index: 1,
      filename: 'image 1.png',
    });
  });

  it('accepts a URL object, a path prefix (proxy) and a relative link', () => {
    expect(parseOutputLink(new URL(link(1, '/proxy'))).index).toBe(1);
    expect(parseOutputLink(`/api/v1/output/${id}/10/sig/0/a.gif`).filename).toBe('a.gif');
    expect(parseOutputLink(`${link(5)}?download=1`).expiresAt.getTime()).toBe(5_000);
  });

  it('refuses anything else with a ConfigurationError', () => {
    for (const bad of [
      '',
      'not a url',
      'https://x/api/v1/generations/abc',
      `https://x/api/v1/output/${id}/notanumber/s/0/a.png`,
      `https://x/api/v1/output/${id}/1/s/a.png`,
    ]) {
      expect(() => parseOutputLink(bad)).toThrow(ConfigurationError);
    }
  });
});

describe('isExpired', () => {
  const exp = 1_700_000_000;
  it('compares the expiry with now (Date or ms), with an optional margin', () => {
    expect(isExpired(link(exp), new Date(exp * 1000 - 1))).toBe(false);
    expect(isExpired(link(exp), exp * 1000)).toBe(true);
    expect(isExpired(link(exp), exp * 1000 - 30_000, 60_000)).toBe(true);
    expect(isExpired(link(exp), exp * 1000 - 90_000, 60_000)).toBe(false);
  });
  it('defaults to the current time', () => {
    expect(isExpired(link(Math.floor(Date.now() / 1000) + 3_600))).toBe(false);
    expect(isExpired(link(Math.floor(Date.now() / 1000) - 1))).toBe(true);
  });
});

describe('parseOutputLink on hostile input', () => {
  const base = `https://x/api/v1/output/${id}`;

  it('bad percent-encoding is a ConfigurationError, not a URIError', () => {
    for (const bad of [`${base}/1/s/0/%ZZ.png`, `https://x/api/v1/output/%ZZ/1/s/0/a.png`, `${base}/1/%E0%A4%A/0/a.png`]) {
      expect(() => parseOutputLink(bad)).toThrow(ConfigurationError);
    }
  });

  it('link numbers only in canonical form: no leading 0, no 0.0, -0, +1, 1e3', () => {
    for (const [exp, index] of [
      ['01', '0'],
      ['1', '00'],
      ['1', '0.0'],
      ['1', '-0'],
      ['1', '+1'],
      ['1e3', '0'],
      ['1', '01'],
      ['1'.repeat(16), '0'],
    ]) {
      expect(() => parseOutputLink(`${base}/${exp}/s/${index}/a.png`)).toThrow(ConfigurationError);
    }
    expect(parseOutputLink(`${base}/0/s/0/a.png`)).toMatchObject({ index: 0, expiresAt: new Date(0) });
    expect(parseOutputLink(`${base}/10/s/10/a.png`).index).toBe(10);
  });

  it('any string or URL: a link or a ConfigurationError, never another throw', () => {
    const segment = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('%ZZ', '%', '%E0%A4%A', '0', '00', '-0', '0.0', '1', 'a.png'));
    const candidate = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.array(segment, { minLength: 0, maxLength: 7 }).map((s) => `https://h/api/v1/output/${s.join('/')}`),
    );
    fc.assert(
      fc.property(candidate, (url) => {
        try {
          const link = parseOutputLink(url);
          expect(Number.isSafeInteger(link.index) && link.index >= 0).toBe(true);
          expect(Number.isNaN(link.expiresAt.getTime())).toBe(false);
        } catch (e) {
          expect(e).toBeInstanceOf(ConfigurationError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

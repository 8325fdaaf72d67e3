import { ENDPOINTS, outputLinkPath } from '@mediagen/core/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeOf } from '../src/index';

// The contract's one endpoint table: a new endpoint is named by its own template, never lumped in.
const TEMPLATES = [...Object.values(ENDPOINTS).map((e) => e.path), 'other'];

describe('routeOf: the only part of a URL a span records', () => {
  it('is always one of the templates: no id, query, token or link signature survives (fast-check)', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string(), (url, secret) => {
        const route = routeOf(new URL(url));
        expect(TEMPLATES).toContain(route);
        const withSecret = new URL(
          // A prefix keeps the id one path segment (an id of "." or ".." would be a dot-segment the URL resolves away).
          `https://api.test/api/v1/generations/gen_${encodeURIComponent(secret)}?signature=${encodeURIComponent(secret)}`,
        );
        expect(routeOf(withSecret)).toBe('/api/v1/generations/{id}');
      }),
    );
  });

  it("names every endpoint of the table by its template, and anything else 'other'", () => {
    for (const { path } of Object.values(ENDPOINTS)) {
      const concrete = path.replace(/\{[^}]*\}/g, 'x1');
      expect(routeOf(new URL(`https://api.test${concrete}?q=1`))).toBe(path);
    }
    expect(routeOf(new URL('https://api.test/api/v1/generations/gen_1?x=1'))).toBe('/api/v1/generations/{id}');
    expect(
      routeOf(
        new URL(`https://api.test${outputLinkPath({ generationId: 'g', expiry: 1, signature: 'sig', index: 0, filename: 'a.png' })}`),
      ),
    ).toBe(ENDPOINTS.output.path);
    expect(routeOf(new URL('https://cdn.test/outputs/gen_1/0.png?expires=1&signature=abc'))).toBe('other');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeOf } from '../src/index';

const TEMPLATES = ['/api/v1/generate', '/api/v1/models', '/api/v1/credits', '/api/v1/generations/{id}', 'download'];

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

  it('names the API routes and calls everything else a download', () => {
    expect(routeOf(new URL('https://api.test/api/v1/generate'))).toBe('/api/v1/generate');
    expect(routeOf(new URL('https://api.test/api/v1/generations/gen_1?x=1'))).toBe('/api/v1/generations/{id}');
    expect(routeOf(new URL('https://cdn.test/outputs/gen_1/0.png?expires=1&signature=abc'))).toBe('download');
  });
});

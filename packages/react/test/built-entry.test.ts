import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dist = (file: string) => readFileSync(new URL(`../dist/${file}`, import.meta.url), 'utf8');

describe('the built package', () => {
  it("starts with 'use client' (ESM and CJS), so server-component frameworks treat the hooks as client code", () => {
    for (const file of ['index.js', 'index.cjs']) expect(dist(file).split('\n')[0]).toBe("'use client';");
  });

  it('takes from core at run time only @mediagen/core/wire: no SDK client, no API key, no node: module', () => {
    const runtime = (code: string) =>
      [...new Set([...code.matchAll(/(?:^import\s[^'"]*?from\s*|^import\s*|require\()['"]([^'"]+)['"]/gm)].map((m) => m[1]))].sort();
    expect(runtime(dist('index.js'))).toEqual(['@mediagen/core/wire', 'react']);
    expect(runtime(dist('index.cjs'))).toEqual(['@mediagen/core/wire', 'react']);
    for (const file of ['index.js', 'index.cjs']) expect(dist(file)).not.toMatch(/MediaGenClient|MEDIAGEN_API_KEY|apiKey|node:/);
  });
});

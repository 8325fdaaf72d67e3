import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dist = (file: string) => readFileSync(new URL(`../dist/${file}`, import.meta.url), 'utf8');

describe('the built entries', () => {
  it("the client entry's first line is 'use client' (ESM and CJS), so Next treats it as a client module", () => {
    for (const file of ['client.js', 'client.cjs']) expect(dist(file).split('\n')[0]).toBe("'use client';");
  });

  it('the server entry imports server-only, so a client component importing it fails the build', () => {
    expect(dist('server.js')).toMatch(/^import 'server-only';$/m);
    expect(dist('server.cjs')).toMatch(/require\('server-only'\)/);
  });

  it('the client entry is @mediagen/react at run time (which takes from core only @mediagen/core/wire): no client, no node: module', () => {
    const esm = dist('client.js');
    const cjs = dist('client.cjs');
    const runtime = (code: string) =>
      [...code.matchAll(/(?:^import\s[^'"]*?from\s*|^import\s*|require\()['"]([^'"]+)['"]/gm)].map((m) => m[1]).sort();
    expect(runtime(esm)).toEqual(['@mediagen/react']);
    expect(runtime(cjs)).toEqual(['@mediagen/react']);
  });

  it('the route handler entry imports neither next nor react nor any node: module', () => {
    for (const file of ['index.js', 'index.cjs']) {
      expect(dist(file)).not.toMatch(/(from|require\()\s*['"](next|react|node:)/);
    }
  });
});

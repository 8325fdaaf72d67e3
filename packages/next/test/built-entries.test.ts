import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dist = (file: string) => readFileSync(new URL(`../dist/${file}`, import.meta.url), 'utf8');

describe('the built entries', () => {
  it("the client entry's first line is 'use client' (ESM and CJS), so Next treats it as a client module", () => {
    for (const file of ['hooks.js', 'hooks.cjs']) expect(dist(file).split('\n')[0]).toBe("'use client';");
  });

  it('the server entry imports server-only, so a client component importing it fails the build', () => {
    expect(dist('server.js')).toMatch(/^import 'server-only';$/m);
    expect(dist('server.cjs')).toMatch(/require\('server-only'\)/);
  });

  it('the client entry is @mediagen/react at run time (which takes from core only @mediagen/core/wire): no client, no node: module', () => {
    const esm = dist('hooks.js');
    const cjs = dist('hooks.cjs');
    const runtime = (code: string) =>
      [...code.matchAll(/(?:^import\s[^'"]*?from\s*|^import\s*|require\()['"]([^'"]+)['"]/gm)].map((m) => m[1]).sort();
    expect(runtime(esm)).toEqual(['@mediagen/react']);
    expect(runtime(cjs)).toEqual(['@mediagen/react']);
  });

  it("no entry's file is at a path Next 14 takes for its own code (it would compile it to CommonJS and lose its exports)", () => {
    // next@14.2's `nextDistPath` (build/swc/options.js: CommonJS output) and `babelIncludeRegexes`
    // (build/webpack-config.js) in one; Next 15 anchors them to its own folder.
    const next14OwnCode = /next[\\/]dist[\\/](esm[\\/])?(shared[\\/]lib|client|pages)/;
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> };
    const files = JSON.stringify(manifest.exports).match(/\.\/dist\/[^"]+/g) ?? [];
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const installed = `node_modules/@mediagen/next/${file.slice(2)}`;
      expect(next14OwnCode.test(installed), installed).toBe(false);
    }
  });

  it('the route handler entry imports neither next nor react nor any node: module', () => {
    for (const file of ['index.js', 'index.cjs']) {
      expect(dist(file)).not.toMatch(/(from|require\()\s*['"](next|react|node:)/);
    }
  });
});

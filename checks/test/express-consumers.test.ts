import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { npmProject } from '../src/npm';
import { frameworkProject } from '../src/projects';
import { run } from '../src/run';
import { extractSnippets, typecheckSnippets } from '../src/snippets';
import { publishedPackages } from '../src/workspace';

// @mediagen/express from its tarball in an Express 4 (CommonJS) and an Express 5 (ESM) app.
const express = publishedPackages().find(({ pkg }) => pkg.name === '@mediagen/express');
const tarballs = inject('tarballs');
const scratch = inject('scratch');
const fixture = fileURLToPath(new URL('../fixtures/express/app.cjs', import.meta.url));

const apps = [
  { major: 4, type: 'commonjs', file: 'app.cjs', overrides: { express: '^4.21.0', '@types/express': '^4.17.21' } },
  { major: 5, type: 'module', file: 'app.mjs', overrides: { express: '^5.1.0', '@types/express': '^5.0.0' } },
] as const;

describe.skipIf(!express)('@mediagen/express, installed from its tarball', () => {
  it.each(apps)('an Express $major app ($type) receives a real webhook from the emulator and refuses a forged one', async (app) => {
    const dir = join(scratch, `express${app.major}-consumer`);
    const { '@types/express': types, express: range } = app.overrides;
    const spec = frameworkProject(express!, tarballs, { express: range });
    await npmProject(dir, { ...spec, type: app.type, devDependencies: { ...spec.devDependencies, '@types/express': types } });
    copyFileSync(fixture, join(dir, app.file));
    const { stdout } = await run(process.execPath, [app.file], { cwd: dir, timeoutMs: 60_000 });
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(result.express.split('.')[0]).toBe(String(app.major));
    expect(result.type).toBe('generation.completed');
    expect(result.forged).toBe(401);
    expect(result.events).toBe(1);

    if (app.major === 5) {
      // The README's snippets, against the versions a new user installs.
      const snippets = extractSnippets(join(express!.dir, 'README.md'));
      for (const [module, moduleResolution] of [
        ['nodenext', 'nodenext'],
        ['esnext', 'bundler'],
      ]) {
        const errors = await typecheckSnippets(dir, snippets, { module, moduleResolution, target: 'es2022' });
        expect(errors, moduleResolution).toEqual([]);
      }
    }
  });
});

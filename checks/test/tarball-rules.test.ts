import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { danglingSourceMaps, unexpectedFiles } from '../src/tarball';

// The rules the contents check applies, on hand-made inputs: each one can fail.
describe('package contents rules', () => {
  it('allows dist, README, LICENSE, CHANGELOG and the manifest only', () => {
    const files = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.cts'];
    expect(unexpectedFiles(files)).toEqual([]);
    expect(unexpectedFiles([...files, 'src/index.ts', 'tsconfig.json', 'dist/index.test.js', 'dist/test/x.js'])).toEqual([
      'src/index.ts',
      'tsconfig.json',
      'dist/index.test.js',
      'dist/test/x.js',
    ]);
  });

  it("allows an app template's own tests under dist/templates/<name>/, and nothing else there", () => {
    const files = ['package.json', 'dist/cli.js', 'dist/templates/express/test/app.e2e.test.ts', 'dist/templates/express/src/app.ts'];
    expect(unexpectedFiles(files)).toEqual([]);
    expect(unexpectedFiles(['dist/templates/x.test.js', 'dist/template/express/test/a.ts', 'templates/express/src/app.ts'])).toEqual([
      'dist/templates/x.test.js',
      'dist/template/express/test/a.ts',
      'templates/express/src/app.ts',
    ]);
  });

  const dir = mkdtempSync(join(tmpdir(), 'maps-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const map = (name: string, body: object) => {
    mkdirSync(join(dir, 'dist'), { recursive: true });
    writeFileSync(join(dir, 'dist', name), JSON.stringify({ version: 3, mappings: '', ...body }));
    return `dist/${name}`;
  };

  it('accepts a map whose sources are embedded or shipped, and names one that points nowhere', () => {
    const embedded = map('a.js.map', { sources: ['../src/a.ts'], sourcesContent: ['export {}'] });
    const shipped = map('b.js.map', { sources: ['b.js'] });
    const dangling = map('c.js.map', { sources: ['../src/c.ts', '../src/d.ts'], sourcesContent: ['x', null] });
    const files = [embedded, shipped, dangling, 'dist/b.js'];
    expect(danglingSourceMaps(dir, files)).toEqual(['dist/c.js.map -> ../src/d.ts']);
  });
});

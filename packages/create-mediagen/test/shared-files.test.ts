import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DRIFT_HELP, driftedCopies, ROOT, sharedCopies, writeCopies } from '../scripts/shared-files.mjs';

const SHARED = join(ROOT, 'apps', 'shared');
const TEMPLATES = fileURLToPath(new URL('../dist/templates', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'create-mediagen-shared-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A tree with apps/shared and every copy written from its source, to plant differences in. */
function treeCopy(): string {
  const root = mkdtempSync(join(scratch, 'root-'));
  cpSync(SHARED, join(root, 'apps', 'shared'), { recursive: true });
  for (const { sample, path, source } of sharedCopies()) cpSync(source, join(root, 'apps', sample, path));
  return root;
}

describe('the files the samples share (apps/shared/: the page, the user cookie, the settings)', () => {
  it('every sample copy is byte for byte its source', () => {
    expect(driftedCopies(), DRIFT_HELP).toEqual([]);
  });

  it('every shared file has copies, each in a sample there is', () => {
    const sources = readdirSync(SHARED).filter((name) => !['copies.json', 'README.md'].includes(name));
    const copies = sharedCopies();
    for (const source of sources) expect(copies.filter((c) => c.source === join(SHARED, source)).length, source).toBeGreaterThan(0);
    for (const { sample } of copies) expect(existsSync(join(ROOT, 'apps', sample, 'package.json')), sample).toBe(true);
    // The Express and Nest pages are one page: nothing in it names a framework.
    expect(readFileSync(join(SHARED, 'index.html'), 'utf8')).not.toMatch(/express|nest|next\.js/i);
  });

  it('a copy changed by one byte, or missing, is caught; writing the sources back heals it', () => {
    const root = treeCopy();
    expect(driftedCopies(root)).toEqual([]);
    const page = join(root, 'apps', 'nest-sample', 'public', 'index.html');
    writeFileSync(page, readFileSync(page, 'utf8').replace('data-gone', 'data-gonE'));
    rmSync(join(root, 'apps', 'next-sample', 'lib', 'settings.ts'));
    expect(driftedCopies(root)).toEqual(['apps/nest-sample/public/index.html', 'apps/next-sample/lib/settings.ts']);
    expect(writeCopies(root)).toHaveLength(2);
    expect(driftedCopies(root)).toEqual([]);
  });

  it('each template carries the source of every shared file it copies (written from apps/shared/ at bundle time)', () => {
    for (const { source, sample, path } of sharedCopies()) {
      const template = join(TEMPLATES, sample.replace(/-sample$/, ''), path);
      expect(readFileSync(template).equals(readFileSync(source)), `${sample}/${path}`).toBe(true);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { END, normalised, renderTable, START, tableIn, withTable } from '../src/table.js';

// What the README says when a cell fails or cannot run: the renderer's honest paths, which a
// green matrix never takes.
const results = {
  cells: [
    {
      id: 'a',
      runtime: 'Runtime A',
      version: '1.0.0',
      hmac: 'web',
      checks: [
        { check: 'create-wait', ok: true },
        { check: 'stored-fetch', ok: false, error: 'TypeError: Illegal invocation | in fetch' },
      ],
    },
    { id: 'b', runtime: 'Runtime B', unavailable: 'not installed on darwin-arm64' },
  ],
};

describe('the runtime table', () => {
  it('marks a failed check with a numbered note carrying its error, and a cell that did not run with its reason', () => {
    const table = renderTable(results);
    const rows = table.split('\n');
    expect(rows[2]).toMatch(/^\| Runtime A +\| 1\.0\.0 +\| Web Crypto +\| pass +\| \*\*fail\*\* \[1\] +\| n\/a /);
    expect(rows[3]).toMatch(/^\| Runtime B +\| — +\| — +\| not run \[2\] /);
    expect(table).toContain('1. Runtime A, stored-fetch: TypeError: Illegal invocation | in fetch');
    expect(table).toContain('2. Runtime B: not installed on darwin-arm64');
  });

  it('replaces only what lies between the markers, and finds it again', () => {
    const readme = `# Title\n\n${START}\n\nold table\n\n${END}\n\n## After\n`;
    const written = withTable(readme, renderTable(results));
    expect(written.startsWith('# Title\n\n')).toBe(true);
    expect(written.endsWith(`${END}\n\n## After\n`)).toBe(true);
    expect(normalised(tableIn(written))).toBe(normalised(renderTable(results)));
    expect(() => withTable('# no markers\n', 'x')).toThrow(/runtime-matrix:start/);
  });

  it('compares what a table says, not how it is padded', () => {
    const table = renderTable(results);
    const repadded = table.replace(/ {2,}\|/g, ' |').replace(/-{4,}/g, '---');
    expect(normalised(repadded)).toBe(normalised(table));
    expect(normalised(table.replace('pass', 'fail'))).not.toBe(normalised(table));
  });
});

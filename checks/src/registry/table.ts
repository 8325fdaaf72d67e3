import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../workspace';
import { FRAMEWORK_TITLES, FRAMEWORKS } from './consumers';
import type { MatrixResults, Outcome } from './matrix';
import { PACKAGE_MANAGERS, PM_TITLES } from './package-managers';

export const RESULTS_FILE = join(ROOT, 'checks/registry-results.json');
const RELEASING = join(ROOT, 'RELEASING.md');
export const START = '<!-- registry-matrix:start: generated from checks/registry-results.json by `pnpm release:matrix`; do not edit -->';
export const END = '<!-- registry-matrix:end -->';

export function readResults(): MatrixResults {
  return JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as MatrixResults;
}

export function writeResults(results: MatrixResults): void {
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
}

/**
 * Package managers × frameworks from the results only (a hand edit or a stale table differs from
 * it), then the create forms, then numbered notes for any failure.
 */
export function renderTable(results: MatrixResults): string {
  const notes: string[] = [];
  const mark = (where: string, outcome: Outcome | undefined): string => {
    if (!outcome) return '—';
    if ('skipped' in outcome) return `not run (${outcome.skipped})`;
    if (outcome.ok) return 'pass';
    notes.push(`${where}: ${outcome.error.split('\n')[0]}`);
    return `**fail** [${notes.length}]`;
  };
  const header = ['package manager', ...FRAMEWORKS.map((f) => FRAMEWORK_TITLES[f]), '`create mediagen` (3 templates; app run)'];
  const rows = PACKAGE_MANAGERS.map((pm) => {
    const cells = FRAMEWORKS.map((framework) => {
      const cell = results.cells.find((c) => c.pm === pm && c.framework === framework);
      if (!cell) return 'not in matrix';
      const where = `${PM_TITLES[pm]} × ${FRAMEWORK_TITLES[framework]}`;
      return `${mark(where, cell.install)}; upgrade ${mark(`${where}, upgrade`, cell.upgraded)}`;
    });
    const create = results.creates.find((c) => c.pm === pm);
    const createText = create
      ? create.run === null
        ? `${mark(`${pm} create`, create.written)}; none run`
        : `${mark(`${pm} create`, create.written)}; ${create.run}: ${mark(`${pm} create ${create.run}`, create.ran)}`
      : '(Yarn: one create form, above)';
    return [PM_TITLES[pm], ...cells, createText];
  });
  const text = (c: string) => c.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const body = [header, ...rows].map((r) => r.map(text));
  const widths = header.map((_, i) => Math.max(3, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const first = results.releases[0]?.versions ?? {};
  const second = results.releases[1]?.versions ?? {};
  const tools = Object.entries(results.tools)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  return [
    line(body[0]!),
    line(widths.map((w) => '-'.repeat(w))),
    ...body.slice(1).map(line),
    '',
    `Tools: ${tools}. Released: \`@mediagen/core@${first['@mediagen/core']}\` and the rest of the first release, then a patch of the adapters (\`@mediagen/express@${first['@mediagen/express']}\` → \`${second['@mediagen/express']}\`).`,
    ...notes.map((n, i) => `${i + 1}. ${n}`),
  ].join('\n');
}

export function tableIn(): string | null {
  const text = readFileSync(RELEASING, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return null;
  return text.slice(start + START.length, end).trim();
}

export function writeTable(results: MatrixResults): void {
  const text = readFileSync(RELEASING, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`RELEASING.md has no ${START} … ${END} section`);
  writeFileSync(RELEASING, `${text.slice(0, start + START.length)}\n\n${renderTable(results)}\n\n${text.slice(end)}`);
}

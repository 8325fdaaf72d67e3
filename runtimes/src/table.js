/**
 * The root README's runtime table, made from results.json only: a stale or hand-edited table
 * differs from what this renders, and the matrix test fails on that.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { HONO_CHECKS, SERVED_CHECK } from './cells.js';
import { CHECKS } from './scenario.js';

export const README = fileURLToPath(new URL('../../README.md', import.meta.url));
export const RESULTS = fileURLToPath(new URL('../results.json', import.meta.url));
export const START =
  '<!-- runtime-matrix:start: generated from runtimes/results.json by `pnpm --filter @mediagen/runtime-matrix readme`; do not edit -->';
export const END = '<!-- runtime-matrix:end -->';

const TITLES = {
  'create-wait': 'create + wait',
  'stored-fetch': '`fetch` passed in options',
  'typed-errors': 'typed errors (404, 422)',
  retry: 'retry after a 500',
  'verify-webhook': '`verifyWebhook`',
  'webhook-receiver': 'webhook receiver',
  [SERVED_CHECK]: "receiver served over HTTP (the emulator's deliveries)",
  'hono-submit': 'Hono app: submit (JSON route)',
  'hono-read': 'Hono app: read',
};
const HMAC_NAMES = { node: "Node's crypto", web: 'Web Crypto' };
/** Columns in the order the checks run; a check a cell does not run shows as "n/a". */
const COLUMNS = [...CHECKS, ...HONO_CHECKS, SERVED_CHECK].map((name) => [name, TITLES[name] ?? name]);

/** @param {{ cells: any[] }} results */
export function renderTable(results) {
  const notes = [];
  const note = (text) => {
    notes.push(text);
    return `[${notes.length}]`;
  };
  const header = ['runtime', 'version', 'webhook HMAC', ...COLUMNS.map(([, title]) => title)];
  const rows = results.cells.map((cell) => {
    if (cell.unavailable) {
      const why = note(`${cell.runtime}: ${cell.unavailable}`);
      return [cell.runtime, '—', '—', ...COLUMNS.map(() => `not run ${why}`)];
    }
    const byName = new Map(cell.checks.map((c) => [c.check, c]));
    return [
      cell.runtime,
      cell.version,
      HMAC_NAMES[cell.hmac] ?? '—',
      ...COLUMNS.map(([name]) => {
        const c = byName.get(name);
        if (!c) return 'n/a';
        return c.ok ? 'pass' : `**fail** ${note(`${cell.runtime}, ${name}: ${c.error}`)}`;
      }),
    ];
  });
  const cellText = (c) => String(c).replaceAll('|', '\\|').replaceAll('\n', ' ');
  const body = [header, ...rows].map((r) => r.map(cellText));
  // Padded as the repo's formatter (Biome) pads Markdown tables, so a written table stays as written.
  const widths = header.map((_, i) => Math.max(3, ...body.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(body[0]),
    line(widths.map((w) => '-'.repeat(w))),
    ...body.slice(1).map(line),
    ...(notes.length ? ['', ...notes.map((n, i) => `${i + 1}. ${n.replaceAll('\n', ' ')}`)] : []),
  ].join('\n');
}

/** A table with its cell padding taken out: what it says, not how it is aligned. */
export function normalised(table) {
  return (table ?? '')
    .split('\n')
    .map((row) =>
      row
        .replace(/ *\| */g, '|')
        .replace(/-{3,}/g, '---')
        .trim(),
    )
    .join('\n');
}

/** The README with its table section replaced by `table`. */
export function withTable(readme, table) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} … ${END} section`);
  return `${readme.slice(0, start + START.length)}\n\n${table}\n\n${readme.slice(end)}`;
}

/** The table section as the README has it now (between the markers, trimmed). */
export function tableIn(readme) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) return null;
  return readme.slice(start + START.length, end).trim();
}

export async function readResults() {
  return JSON.parse(await readFile(RESULTS, 'utf8'));
}

export async function writeResults(results) {
  await writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
}

export async function writeReadmeTable(results) {
  const readme = await readFile(README, 'utf8');
  await writeFile(README, withTable(readme, renderTable(results)));
}

// Output: a printed table, bench/results.json (every figure and raw sample), and
// bench/RESULTS.md (the table, with the machine's CPU and Node version at the top).
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export const PEER_COLUMNS = ['standardwebhooks', 'svix', 'stripe', 'openai', 'replicate', '@fal-ai/client', '@runwayml/sdk'];
const benchDir = fileURLToPath(new URL('..', import.meta.url));

export function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    platform: `${process.platform} ${os.release()} ${process.arch}`,
  };
}

const STATUS = { pass: 'pass', miss: '**miss**', info: 'info', 'not measured': 'not measured', error: '**error**' };

const cellMd = (s) =>
  String(s ?? '—')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');

export function markdown({ meta, rows }) {
  const head = ['What', 'Ours', ...PEER_COLUMNS.map((p) => `\`${p}\``), 'Floor', 'Ratio', 'Target', 'Result'];
  const lines = [
    '# MediaGen SDK benchmarks',
    '',
    `- CPU: ${meta.machine.cpu} (${meta.machine.cores} cores), ${meta.machine.memoryGiB} GiB`,
    `- Node: ${meta.machine.node} (${meta.machine.platform})`,
    `- Run: ${meta.startedAt}, ${meta.quick ? '**quick mode** (`pnpm bench --quick`: fewer rounds and generations)' : 'full (`pnpm bench`)'}, ${(meta.durationMs / 1000).toFixed(1)} s`,
    `- Peers: ${Object.entries(meta.peerVersions)
      .map(([p, v]) => `${p} ${v}`)
      .join(', ')}`,
    '',
    'Every timing is taken side by side in one process run: the cases run interleaved (order rotated each round) for several rounds, and each figure is the median with (min–max) over the rounds. Ratios are computed round by round. Absolute times on this shared machine are noise; the ratios are the result. A **miss** is the next piece of work, not something to hide.',
    '',
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
  ];
  const notes = [];
  for (const r of rows) {
    let what = r.what;
    if (r.note) {
      notes.push(r.note);
      what += ` [${notes.length}]`;
    }
    const cells = [
      what,
      r.ours,
      ...PEER_COLUMNS.map((p) => r.peers?.[p] ?? '—'),
      r.floor ?? '—',
      r.ratio ?? '—',
      r.target ?? '—',
      STATUS[r.status] ?? r.status,
    ];
    lines.push(`| ${cells.map(cellMd).join(' | ')} |`);
  }
  lines.push('', '## Notes', '');
  for (const [i, n] of notes.entries()) lines.push(`${i + 1}. ${n}`);
  const misses = rows.filter((r) => r.status === 'miss');
  const unmeasured = rows.filter((r) => r.status === 'not measured' || r.status === 'error');
  lines.push('', '## Misses', '');
  if (misses.length === 0) lines.push('None.');
  for (const r of misses) lines.push(`- ${r.what}: ${r.ratio} against target ${r.target}.`);
  lines.push('', '## Not measured', '');
  if (unmeasured.length === 0) lines.push('Nothing.');
  for (const r of unmeasured) lines.push(`- ${r.what}: ${r.ours}`);
  lines.push('', 'Raw samples and every figure: `bench/results.json`. Regenerate with `pnpm bench` (full) or `pnpm bench --quick`.', '');
  return lines.join('\n');
}

export function printTable({ meta, rows }) {
  const out = [];
  out.push(
    `MediaGen bench — ${meta.machine.cpu} ×${meta.machine.cores}, Node ${meta.machine.node}, ${meta.quick ? 'quick' : 'full'} run, ${(meta.durationMs / 1000).toFixed(1)} s`,
  );
  const cols = ['what', 'ours', 'floor', 'ratio', 'target', 'result'];
  const data = rows.map((r) => [r.what, r.ours, r.floor ?? '—', r.ratio ?? '—', r.target ?? '—', r.status]);
  const widths = cols.map((c, i) => Math.min(60, Math.max(c.length, ...data.map((d) => String(d[i]).length))));
  const line = (cells) => cells.map((c, i) => String(c).slice(0, widths[i]).padEnd(widths[i])).join(' │ ');
  out.push(line(cols), widths.map((w) => '─'.repeat(w)).join('─┼─'));
  rows.forEach((r, k) => {
    out.push(line(data[k]));
    const peers = Object.entries(r.peers ?? {});
    if (peers.length) out.push(`    peers: ${peers.map(([p, v]) => `${p} ${v}`).join(' · ')}`);
  });
  return out.join('\n');
}

/** A full run writes results.json + RESULTS.md (committed); a quick run writes *.quick.* (ignored), so a CI smoke run never overwrites the full figures. */
export function write(result) {
  const suffix = result.meta.quick ? '.quick' : '';
  const json = `${benchDir}results${suffix}.json`;
  const md = `${benchDir}RESULTS${suffix}.md`;
  writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(md, markdown(result));
  return [json, md].map((f) => `bench/${f.slice(benchDir.length)}`);
}

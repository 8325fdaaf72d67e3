import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Changeset {
  file: string;
  releases: Record<string, 'major' | 'minor' | 'patch'>;
  summary: string;
}

/**
 * Reads a changeset as `changeset version` does: frontmatter of `"name": bump` lines between two
 * `---` lines, then the summary. Throws, naming the file, on anything it would misread (e.g. a
 * formatter that turned the frontmatter into a heading).
 */
export function parseChangeset(file: string, text: string): Changeset {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`${file}: no frontmatter (--- / "@mediagen/x": patch / ---)`);
  const releases: Changeset['releases'] = {};
  for (const line of match[1]!.split(/\r?\n/).filter((l) => l.trim() !== '')) {
    const release = /^\s*["']?(@?[\w./-]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
    if (!release) throw new Error(`${file}: frontmatter line is not "name": major|minor|patch: ${line}`);
    releases[release[1]!] = release[2] as 'major' | 'minor' | 'patch';
  }
  const summary = match[2]!.trim();
  if (Object.keys(releases).length === 0) throw new Error(`${file}: names no package`);
  if (!summary) throw new Error(`${file}: has no summary for the changelog`);
  return { file, releases, summary };
}

export function readChangesets(dir: string): Changeset[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => parseChangeset(name, readFileSync(join(dir, name), 'utf8')));
}

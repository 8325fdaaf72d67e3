// Every ```ts block of the guides compiles, against the workspace's built packages, as its own
// module: a renamed option or export breaks the docs build, not a reader's first try.
// A fragment that cannot stand alone is marked ```ts nocheck.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DOCS } from './workspace.mjs';

const PAGES = join(DOCS, 'src');
const OUT = join(DOCS, '.snippets');
/** Written by the generators, not by hand: not checked here. */
const GENERATED = ['api', 'reference', 'generated', '.vitepress'];

function pages(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return dir === PAGES && GENERATED.includes(name) ? [] : pages(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** `{ page, line, code }` for each ```ts / ```tsx block without `nocheck`. */
export function extractSnippets(markdown, page) {
  const snippets = [];
  let open;
  markdown.split('\n').forEach((text, i) => {
    const fence = /^\s*```\s*([\w-]*)(.*)$/.exec(text);
    if (!open && fence) {
      const lang = fence[1].toLowerCase();
      open = { line: i + 1, lang, body: [], skip: !['ts', 'tsx', 'typescript'].includes(lang) || /\bnocheck\b/.test(fence[2]) };
    } else if (open && /^\s*```\s*$/.test(text)) {
      if (!open.skip) snippets.push({ page, line: open.line, ext: open.lang === 'tsx' ? 'tsx' : 'ts', code: open.body.join('\n') });
      open = undefined;
    } else if (open) open.body.push(text);
  });
  return snippets;
}

export function checkSnippets() {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const byFile = new Map();
  const snippets = pages(PAGES).flatMap((page) => extractSnippets(readFileSync(page, 'utf8'), relative(DOCS, page)));
  snippets.forEach((snippet, i) => {
    const file = `snippet-${i}.${snippet.ext}`;
    writeFileSync(join(OUT, file), `${snippet.code}\nexport {};\n`);
    byFile.set(file, snippet);
  });
  const tsc = join(DOCS, 'node_modules', '.bin', 'tsc');
  const result = spawnSync(tsc, ['-p', 'tsconfig.snippets.json', '--pretty', 'false'], { cwd: DOCS, encoding: 'utf8' });
  const errors = (result.stdout ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const m = /^\.snippets\/([^(]+)\((\d+),\d+\): (.*)$/.exec(line);
      const snippet = m && byFile.get(m[1]);
      return snippet ? `${snippet.page}:${snippet.line + Number(m[2])}: ${m[3]}` : line;
    });
  if (result.status !== 0 && errors.length === 0) errors.push(result.stderr || `tsc exited ${result.status}`);
  return { count: snippets.length, errors };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { count, errors } = checkSnippets();
  if (errors.length > 0) {
    console.error(`docs: ${errors.length} error(s) in the guides' code:\n${errors.join('\n')}`);
    process.exit(1);
  }
  console.log(`docs: the ${count} TypeScript snippets of the guides compile`);
}

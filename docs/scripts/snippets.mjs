// Every ```ts block of the guides, and of each published package's README (what npm shows),
// compiles against the workspace's built packages as its own module: a renamed option or export
// breaks the docs test, not a reader's first try.
// A fragment that cannot stand alone is marked ```ts nocheck.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DOCS, publishedPackages, ROOT } from './workspace.mjs';

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

/**
 * The files whose snippets are checked: the guides, then the README of every published package
 * (`packages/*` without `"private": true`: the docs package depends on each of them). `page` is
 * the path from the repository's root, as errors name it.
 */
export function sources() {
  const readmes = publishedPackages()
    .map(({ dir }) => join(dir, 'README.md'))
    .filter((path) => existsSync(path));
  return [...pages(PAGES), ...readmes].map((path) => ({ path, page: relative(ROOT, path) }));
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

/**
 * Compiles the snippets of `documents` (`[{ page, markdown }]`, default every source) in `out`,
 * a directory of the docs package (its `node_modules` resolve the imports). Returns the count and
 * tsc's errors as `page:line: message`.
 */
export function checkSnippets({ documents = readSources(), out = OUT } = {}) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const byFile = new Map();
  const snippets = documents.flatMap(({ page, markdown }) => extractSnippets(markdown, page));
  snippets.forEach((snippet, i) => {
    const file = `snippet-${i}.${snippet.ext}`;
    writeFileSync(join(out, file), `${snippet.code}\nexport {};\n`);
    byFile.set(file, snippet);
  });
  const tsconfig = { extends: join(DOCS, 'tsconfig.snippets.json'), include: ['*.ts', '*.tsx'] };
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const tsc = join(DOCS, 'node_modules', '.bin', 'tsc');
  const result = spawnSync(tsc, ['-p', relative(DOCS, out), '--pretty', 'false'], { cwd: DOCS, encoding: 'utf8' });
  const errors = (result.stdout ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const m = /^(?:.*\/)?(snippet-\d+\.tsx?)\((\d+),\d+\): (.*)$/.exec(line);
      const snippet = m && byFile.get(m[1]);
      return snippet ? `${snippet.page}:${snippet.line + Number(m[2])}: ${m[3]}` : line;
    });
  if (result.status !== 0 && errors.length === 0) errors.push(result.stderr || `tsc exited ${result.status}`);
  return { count: snippets.length, errors };
}

function readSources() {
  return sources().map(({ path, page }) => ({ page, markdown: readFileSync(path, 'utf8') }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { count, errors } = checkSnippets();
  if (errors.length > 0) {
    console.error(`docs: ${errors.length} error(s) in the TypeScript snippets of the guides and READMEs:\n${errors.join('\n')}`);
    process.exit(1);
  }
  console.log(`docs: the ${count} TypeScript snippets of the guides and package READMEs compile`);
}

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { run } from './run';
import { ROOT } from './workspace';

export interface Snippet {
  /** README path relative to the repo root, and the line of the opening fence. */
  source: string;
  line: number;
  lang: 'ts' | 'tsx';
  code: string;
}

/**
 * Every ```ts / ```typescript / ```tsx block of a README, except those whose info string says
 * `nocheck` (a fragment that cannot stand alone; use it sparingly).
 */
export function extractSnippets(readme: string): Snippet[] {
  const lines = readFileSync(readme, 'utf8').split('\n');
  const snippets: Snippet[] = [];
  let open: { line: number; lang: 'ts' | 'tsx'; body: string[]; skip: boolean } | undefined;
  lines.forEach((text, i) => {
    const fence = /^\s*```\s*([\w-]*)(.*)$/.exec(text);
    if (!open && fence) {
      const lang = fence[1]!.toLowerCase();
      const isTs = lang === 'ts' || lang === 'typescript' || lang === 'tsx';
      open = { line: i + 1, lang: lang === 'tsx' ? 'tsx' : 'ts', body: [], skip: !isTs || /\bnocheck\b/.test(fence[2]!) };
    } else if (open && /^\s*```\s*$/.test(text)) {
      if (!open.skip) snippets.push({ source: relative(ROOT, readme), line: open.line, lang: open.lang, code: open.body.join('\n') });
      open = undefined;
    } else if (open) {
      open.body.push(text);
    }
  });
  return snippets;
}

/**
 * The packages the snippets import (`@scope/name` or `name`, from any subpath), without Node's
 * builtins, relative paths and an app's own `@/…` modules.
 */
export function importedPackages(snippets: Snippet[]): string[] {
  const names = new Set<string>();
  for (const { code } of snippets) {
    for (const [, specifier] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)['"]([^'"]+)['"]/gm)) {
      if (/^(?:\.|\/|@\/)/.test(specifier!) || isBuiltin(specifier!)) continue;
      const parts = specifier!.split('/');
      names.add(parts.slice(0, parts[0]!.startsWith('@') ? 2 : 1).join('/'));
    }
  }
  return [...names];
}

/**
 * Typechecks each snippet as its own module inside an installed project, and returns the errors
 * as `README.md:line (snippet line n): message` so a failure points at the docs.
 */
export async function typecheckSnippets(
  projectDir: string,
  snippets: Snippet[],
  compilerOptions: Record<string, unknown>,
): Promise<string[]> {
  if (snippets.length === 0) return [];
  const dir = join(projectDir, 'snippets');
  mkdirSync(dir, { recursive: true });
  const byFile = new Map<string, Snippet>();
  snippets.forEach((snippet, i) => {
    const file = `${basename(dirname(snippet.source)) || 'root'}-${i}.${snippet.lang}`;
    // `export {}` keeps each file a module even when the snippet imports nothing.
    writeFileSync(join(dir, file), `${snippet.code}\nexport {};\n`);
    byFile.set(`snippets/${file}`, snippet);
  });
  const tsconfig = {
    compilerOptions: { noEmit: true, strict: true, skipLibCheck: true, types: ['node'], ...compilerOptions },
    include: ['snippets'],
  };
  writeFileSync(join(projectDir, 'tsconfig.snippets.json'), JSON.stringify(tsconfig, null, 2));
  const { code, stdout } = await run(
    join(projectDir, 'node_modules', '.bin', 'tsc'),
    ['-p', 'tsconfig.snippets.json', '--pretty', 'false'],
    {
      cwd: projectDir,
      allowFailure: true,
      timeoutMs: 120_000,
    },
  );
  if (code === 0) return [];
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const m = /^(snippets\/[^(]+)\((\d+),\d+\): (.*)$/.exec(line);
      const snippet = m ? byFile.get(m[1]!) : undefined;
      return snippet && m ? `${snippet.source}:${snippet.line + Number(m[2])} (snippet at line ${snippet.line}): ${m[3]}` : line;
    });
}

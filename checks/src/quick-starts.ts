import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { privatePackages, publishedPackages, ROOT } from './workspace';

/**
 * A quick start page (docs/src/start/*.md) as the test reads it. The page's convention, stated in
 * an HTML comment at its top: every code block that is a whole file starts with a first-line
 * comment naming its path (`// lib/mediagen.ts`, `// app/api/[...mediagen]/route.ts`,
 * `<!-- index.html -->`); a block without one is an excerpt. The ```sh blocks hold the commands
 * a reader types: install lines, the emulator, the run command.
 */
export interface QuickStart {
  /** The page, from the repository's root. */
  page: string;
  /** The file blocks, in page order: `path` relative to the app's folder, `content` as written (the naming comment included). */
  files: { path: string; content: string; line: number }[];
  /** Every command of the ```sh blocks in page order: `a && b` split, comments and blank lines dropped. */
  commands: string[];
}

const PATH_COMMENT = [/^\/\/\s*(\S+\.[\w]+)\s*$/, /^<!--\s*(\S+\.[\w]+)\s*-->$/];

export function readQuickStart(page: string): QuickStart {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const files: QuickStart['files'] = [];
  const commands: string[] = [];
  let open: { lang: string; line: number; body: string[] } | undefined;
  lines.forEach((text, i) => {
    const fence = /^```\s*([\w-]*)/.exec(text);
    if (!open && fence) {
      open = { lang: fence[1]!.toLowerCase(), line: i + 1, body: [] };
    } else if (open && /^```\s*$/.test(text)) {
      if (open.lang === 'sh' || open.lang === 'bash') {
        for (const line of open.body) {
          const command = line.replace(/(^|\s)#.*$/, '').trim();
          if (command) commands.push(...command.split('&&').map((part) => part.trim()));
        }
      } else {
        const path = PATH_COMMENT.map((re) => re.exec(open!.body[0]?.trim() ?? '')?.[1]).find(Boolean);
        if (path) {
          if (path.startsWith('/') || path.split('/').includes('..'))
            throw new Error(`${page}:${open.line}: ${path} is not inside the app`);
          files.push({ path, content: `${open.body.join('\n')}\n`, line: open.line });
        }
      }
      open = undefined;
    } else if (open) {
      open.body.push(text);
    }
  });
  return { page, files, commands };
}

/** Writes the page's file blocks into `dir` (later blocks of the same path win, as pasting does). */
export function writeFiles(dir: string, files: QuickStart['files']): void {
  for (const { path, content } of files) {
    const target = resolve(dir, path);
    if (relative(dir, target).startsWith('..')) throw new Error(`${path} is outside ${dir}`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/**
 * Registry packages no workspace package uses, at the version the quick starts were checked with.
 * `tsx` runs the Express and Hono pages' `server.ts` (Node 20 has no TypeScript stripping).
 */
const OUTSIDE_WORKSPACE: Record<string, string> = { tsx: '4.23.15' };

/** The range the workspace develops a registry package against (the first package.json that names it), else `OUTSIDE_WORKSPACE`'s. */
export function workspaceRange(name: string): string {
  for (const { pkg } of [...publishedPackages(), ...privatePackages()]) {
    for (const field of ['devDependencies', 'dependencies'] as const) {
      const range = pkg[field]?.[name];
      if (range && !range.startsWith('workspace:') && !range.startsWith('npm:')) return range;
    }
  }
  const pinned = OUTSIDE_WORKSPACE[name];
  if (!pinned) throw new Error(`A quick start installs ${name}, which no workspace package uses: add its version to OUTSIDE_WORKSPACE.`);
  return pinned;
}

/**
 * The arguments of a page's `npm install …` line with every `@mediagen/*` package taken from its
 * packed tarball (nothing is on the registry yet) and every other at the workspace's range.
 */
export function installArgs(command: string, tarballs: Record<string, string>): string[] {
  const [npm, verb, ...words] = command.split(/\s+/);
  if (npm !== 'npm' || !['install', 'i', 'add'].includes(verb!)) throw new Error(`not an npm install line: ${command}`);
  return words.map((word) => {
    if (word.startsWith('-')) return word;
    if (word.startsWith('@mediagen/') || word === 'create-mediagen') {
      if (!tarballs[word]) throw new Error(`${word} is not a published package`);
      return `file:${tarballs[word]}`;
    }
    return `${word}@${workspaceRange(word)}`;
  });
}

/**
 * What `npm install` must not take from the registry: every published package comes from its
 * tarball, also when another one brings it in (`@mediagen/next` depends on `@mediagen/react`).
 * Only packages the page does not install itself: npm refuses an override that differs from a
 * direct dependency's spec.
 */
export function tarballOverrides(tarballs: Record<string, string>, direct: string[]): Record<string, string> {
  return Object.fromEntries(
    Object.entries(tarballs)
      .filter(([name]) => !direct.includes(name))
      .map(([name, tarball]) => [name, `file:${tarball}`]),
  );
}

/** The packages an install line names (without flags). */
export function installedNames(command: string): string[] {
  return command
    .split(/\s+/)
    .slice(2)
    .filter((word) => !word.startsWith('-'));
}

/** `A=1 B=2 cmd args` -> the variables' names and the command. */
export function splitEnv(command: string): { names: string[]; command: string } {
  const names: string[] = [];
  let rest = command;
  for (let m = /^([A-Z][A-Z0-9_]*)=(\S*)\s+/.exec(rest); m; m = /^([A-Z][A-Z0-9_]*)=(\S*)\s+/.exec(rest)) {
    names.push(m[1]!);
    rest = rest.slice(m[0].length);
  }
  return { names, command: rest };
}

/** Every `MEDIAGEN_*` variable of this process's environment, unset: the apps see only what a test gives them. */
export function withoutMediagenEnv(): Record<string, undefined> {
  return Object.fromEntries(
    Object.keys(process.env)
      .filter((key) => key.startsWith('MEDIAGEN_'))
      .map((key) => [key, undefined]),
  );
}

/**
 * What `npx create-next-app@latest my-app --yes` leaves that the Next page builds on, kept to the
 * least: its package.json scripts and dependencies (at the workspace's versions), its tsconfig
 * with the `@/*` path, and app/layout.tsx (create-next-app's loads a Google font, which fails
 * offline, so a bare one) and app/page.tsx, each only where the page does not write it. Not the
 * app's code: everything MediaGen is the page's own text.
 */
export function writeNextScaffold(dir: string, pageFiles: string[]): void {
  mkdirSync(join(dir, 'app'), { recursive: true });
  const pkg = {
    name: 'my-app',
    version: '0.1.0',
    private: true,
    scripts: { dev: 'next dev', build: 'next build', start: 'next start' },
    dependencies: Object.fromEntries(['next', 'react', 'react-dom'].map((name) => [name, workspaceRange(name)])),
    devDependencies: Object.fromEntries(
      ['typescript', '@types/node', '@types/react', '@types/react-dom'].map((name) => [name, workspaceRange(name)]),
    ),
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const tsconfig = {
    compilerOptions: {
      target: 'ES2017',
      lib: ['dom', 'dom.iterable', 'esnext'],
      allowJs: true,
      skipLibCheck: true,
      strict: true,
      noEmit: true,
      esModuleInterop: true,
      module: 'esnext',
      moduleResolution: 'bundler',
      resolveJsonModule: true,
      isolatedModules: true,
      jsx: 'react-jsx',
      incremental: true,
      plugins: [{ name: 'next' }],
      paths: { '@/*': ['./*'] },
    },
    include: ['next-env.d.ts', '**/*.ts', '**/*.tsx', '.next/types/**/*.ts'],
    exclude: ['node_modules'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  const scaffold: Record<string, string> = {
    'app/layout.tsx': `export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
`,
    'app/page.tsx': `export default function Home() {
  return <main>Hello</main>;
}
`,
    'next.config.ts': `import type { NextConfig } from 'next';

const nextConfig: NextConfig = {};

export default nextConfig;
`,
  };
  for (const [path, content] of Object.entries(scaffold)) if (!pageFiles.includes(path)) writeFileSync(join(dir, path), content);
}

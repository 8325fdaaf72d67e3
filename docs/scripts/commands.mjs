// Every command a page tells a reader to run must fetch this project's packages, or a third-party
// tool named here on purpose. `npx mediagen-emulator` in a folder without `@mediagen/emulator`
// installed makes npm look up a package named `mediagen-emulator` on the registry: not ours, and
// anyone could publish one. So each `npx` / `npm exec` / `pnpm dlx` / `yarn dlx` / `bunx` /
// `npm create` / `npm init` / install command of the docs pages, the published packages' Markdown
// and create-mediagen's printed text is resolved the way the package manager resolves it, and
// checked against the workspace's own package names.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DOCS, publishedPackages, ROOT } from './workspace.mjs';

/**
 * Third-party packages a page may tell a reader to fetch by name, each with the reason it is
 * trusted there. The peer dependencies of the published packages (the frameworks the adapters
 * mount on: `express`, `next`, `react`, …) are allowed too, for the install lines that put them
 * beside an adapter: the adapter's own manifest already names them.
 */
export const THIRD_PARTY = {
  pnpm: "the package manager this repository is built with, pinned (`npx -y pnpm@12.21.0`) in the root README's first steps",
  tsx: 'runs a TypeScript file on Node (privatenumber/tsx); the migration guides run their scripts with it',
  '@types/express': "Express's own type declarations (DefinitelyTyped), which `@mediagen/express`'s middleware types refer to",
  vitest: 'the test runner of the Testing guide and the emulator’s testing guide',
  'create-next-app': 'Next.js’s own app generator (vercel/next.js), which the Next.js quick start starts from',
  '@hono/node-server': 'Hono’s Node server (honojs/node-server), which the Hono quick start serves its app with',
  '@modelcontextprotocol/inspector':
    'the official MCP Inspector (modelcontextprotocol/inspector), which the Agents (MCP) guide and @mediagen/mcp’s README try the server with',
};

/** Commands whose first argument names a package to fetch and run (a bin of it). */
const RUNNERS = [
  { re: /\bnpx(?=\s)/g, name: 'npx' },
  { re: /\bnpm\s+(?:exec|x)(?=\s)/g, name: 'npm exec' },
  { re: /\bpnpm\s+dlx(?=\s)/g, name: 'pnpm dlx' },
  { re: /\byarn\s+dlx(?=\s)/g, name: 'yarn dlx' },
  { re: /\bbunx(?=\s)/g, name: 'bunx' },
];
/** Commands whose first argument `x` names the package `create-x`. */
const CREATORS = /\b(npm\s+(?:create|init|innit)|pnpm\s+create|yarn\s+create|bun\s+create)(?=\s)/g;
/** Commands whose arguments are packages to install. */
const INSTALLERS = /\b(npm\s+(?:install|i|add|in)|pnpm\s+(?:add|install|i)|yarn\s+add|bun\s+(?:add|install|i))(?=\s)/g;

/** Options of the runners that take a value (the next token) rather than standing alone. */
const VALUE_OPTIONS = new Set(['-p', '--package', '-c', '--call', '-w', '--workspace', '--registry', '--cache', '--userconfig']);
/** A package spec: an optionally scoped name, optionally `@version` / `@tag`. */
const SPEC = /^((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)(?:@[\w.^~<>=*|-]+)?$/i;

/** The name of a package spec (`@mediagen/cli@1` → `@mediagen/cli`), or undefined when it is not one. */
export function packageName(spec) {
  return SPEC.exec(spec)?.[1];
}

/**
 * The package `npm create <x>` / `npm init <x>` runs: `x` → `create-x`, `@s` → `@s/create`,
 * `@s/x` → `@s/create-x` (npm's rule; pnpm, yarn and bun follow it).
 */
export function creatorPackage(spec) {
  const name = /^(@[^/@\s]+)(?:\/([^@\s]+))?/.exec(spec) ?? /^([^@\s]+)/.exec(spec);
  if (!name) return undefined;
  if (spec.startsWith('@')) return name[2] ? `${name[1]}/create-${name[2]}` : `${name[1]}/create`;
  return `create-${name[1]}`;
}

/**
 * The words after a command, up to what ends it: a shell operator, a comment, or a word that is
 * not an argument (prose, a placeholder such as `<dir>`, an ellipsis).
 */
function argsAfter(text) {
  const words = [];
  for (const raw of text.trim().split(/\s+/)) {
    if (raw === '' || /^(#|&&|\|\|?|;|>|<)/.test(raw)) break;
    // A sentence's punctuation, or the quote closing a string in source text, ends the command.
    const word = raw.replace(/[.,;:)'"]+$/, '');
    words.push(word);
    if (word !== raw) break; // punctuation ended the sentence
  }
  return words;
}

/**
 * What a runner command fetches: `{ packages, bin }` (`packages` from `-p`/`--package`, else the
 * first argument; `bin` the command run from them), or undefined for a form that fetches nothing
 * checkable (`-c` runs a shell line; no argument at all).
 */
function runnerTarget(words) {
  const packages = [];
  let i = 0;
  for (; i < words.length; i += 1) {
    const word = words[i];
    if (word === '--') {
      i += 1;
      break;
    }
    if (!word.startsWith('-')) break;
    const [flag, inline] = word.split(/=(.*)/s);
    const value = inline ?? (VALUE_OPTIONS.has(flag) ? words[++i] : undefined);
    if ((flag === '-p' || flag === '--package') && value) packages.push(value);
    if (flag === '-c' || flag === '--call') return undefined;
  }
  const first = words[i];
  if (packages.length > 0) return { packages, bin: first };
  return first === undefined ? undefined : { packages: [first], bin: undefined };
}

/**
 * The code of a Markdown page, `{ line, text }`: each line of a fenced block, and each inline code
 * span (prose is not read: "npx would fetch…" is a sentence, not a command).
 */
export function codeOf(markdown) {
  const code = [];
  let fenced = false;
  markdown.split('\n').forEach((text, i) => {
    if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
    else if (fenced) code.push({ line: i + 1, text });
    else for (const span of text.matchAll(/(`+)(.+?)\1/g)) code.push({ line: i + 1, text: span[2] });
  });
  return code;
}

/** `{ kind, command, packages, bin? }` for each command found in one line of code. */
export function commandsIn(line) {
  const found = [];
  // A code span's text never holds a backtick; a source file's line may (a template literal).
  for (const segment of line.split('`')) {
    for (const { re, name } of RUNNERS) {
      for (const match of segment.matchAll(re)) {
        const target = runnerTarget(argsAfter(segment.slice(match.index + match[0].length)));
        if (target)
          found.push({ kind: 'run', command: `${name} ${segment.slice(match.index + match[0].length).trim()}`.trim(), ...target });
      }
    }
    for (const match of segment.matchAll(CREATORS)) {
      const rest = segment.slice(match.index + match[0].length);
      const first = argsAfter(rest).find((word) => !word.startsWith('-'));
      // `npm init` alone (or `npm init -y`) writes a package.json: nothing is fetched.
      if (first && !first.startsWith('-')) {
        found.push({ kind: 'create', command: `${match[1]} ${rest.trim()}`, packages: [creatorPackage(first) ?? first] });
      }
    }
    for (const match of segment.matchAll(INSTALLERS)) {
      const rest = segment.slice(match.index + match[0].length);
      const specs = argsAfter(rest).filter((word) => !word.startsWith('-'));
      const packages = [];
      for (const spec of specs) {
        if (!packageName(spec)) break; // prose, a path, a placeholder: the list ends
        packages.push(spec);
      }
      if (packages.length > 0) found.push({ kind: 'install', command: `${match[1]} ${rest.trim()}`, packages });
    }
  }
  return found;
}

/** The workspace's published packages: `Map<name, { bins: string[] }>`. */
export function workspacePackages() {
  const map = new Map();
  for (const { dir } of publishedPackages()) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const bins = typeof pkg.bin === 'string' ? [pkg.name.replace(/^@[^/]+\//, '')] : Object.keys(pkg.bin ?? {});
    map.set(pkg.name, { bins, peers: Object.keys(pkg.peerDependencies ?? {}) });
  }
  return map;
}

/**
 * What is wrong with one command (a sentence), or undefined when it resolves to a workspace
 * package, an allowed third-party one, or a peer dependency of a workspace package.
 */
export function problemOf(command, workspace = workspacePackages(), thirdParty = THIRD_PARTY) {
  const peers = new Set([...workspace.values()].flatMap(({ peers }) => peers));
  for (const spec of command.packages) {
    const name = packageName(spec);
    if (!name) return `\`${spec}\` is not a package name`;
    if (workspace.has(name) || Object.hasOwn(thirdParty, name) || peers.has(name)) continue;
    if (command.kind === 'run' && command.bin === undefined) {
      const owner = [...workspace].find(([, { bins }]) => bins.includes(name))?.[0];
      if (owner) {
        return `\`${name}\` is a bin of ${owner}, not a package: npm fetches whatever is published as \`${name}\`. Write \`npx -p ${owner} ${name}\``;
      }
    }
    return `\`${name}\` is neither a package of this workspace nor an allowed third-party tool (docs/scripts/commands.mjs THIRD_PARTY)`;
  }
  if (command.kind !== 'run') return undefined;
  const ours = command.packages.map(packageName).filter((name) => workspace.has(name));
  if (command.bin === undefined && ours.length === 1) {
    // `npx <pkg>`: npm runs the package's only bin, or the one named after the package.
    const { bins } = workspace.get(ours[0]);
    const unscoped = ours[0].replace(/^@[^/]+\//, '');
    if (bins.length === 0) return `${ours[0]} has no bin to run`;
    if (bins.length > 1 && !bins.includes(unscoped)) return `${ours[0]} has several bins (${bins.join(', ')}): name one with -p`;
  }
  if (command.bin !== undefined && ours.length === command.packages.length) {
    const bins = ours.flatMap((name) => workspace.get(name).bins);
    if (!bins.includes(command.bin)) return `\`${command.bin}\` is not a bin of ${ours.join(', ')} (bins: ${bins.join(', ') || 'none'})`;
  }
  return undefined;
}

/** Written by the generators or by tools, not by hand (their sources are scanned instead). */
const GENERATED = ['api', 'reference', 'generated', '.vitepress'];

function files(dir, accept, skipTop = []) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      return skipTop.includes(name) || name === 'node_modules' || name === 'dist' ? [] : files(path, accept);
    }
    return accept(name) ? [path] : [];
  });
}

/**
 * Every file whose commands a reader runs: the docs pages, the repository's README, each
 * published package's Markdown (README, TESTING: what npm and the docs show; not the
 * CHANGELOG, which records what older versions said) and its sources (messages it prints, such
 * as create-mediagen's next steps).
 */
export function commandSources() {
  const pages = files(join(DOCS, 'src'), (name) => name.endsWith('.md'), GENERATED);
  const packages = publishedPackages().flatMap(({ dir }) => [
    ...readdirSync(dir)
      .filter((name) => name.endsWith('.md') && name !== 'CHANGELOG.md')
      .map((name) => join(dir, name)),
    ...files(join(dir, 'src'), (name) => /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(name) && !/\.test\./.test(name)),
  ]);
  return [...pages, join(ROOT, 'README.md'), ...packages].map((path) => relative(ROOT, path));
}

/** `{ file, line, command, packages, problem }` for every command of `sources` (paths from the root). */
export function checkCommands(sources = commandSources(), { workspace = workspacePackages(), thirdParty = THIRD_PARTY, read } = {}) {
  const readText = read ?? ((file) => readFileSync(join(ROOT, file), 'utf8'));
  return sources.flatMap((file) => {
    const text = readText(file);
    // Markdown: its code. A source file: every line (what it prints is in its string literals).
    const lines = file.endsWith('.md') ? codeOf(text) : text.split('\n').map((line, i) => ({ line: i + 1, text: line }));
    return lines.flatMap(({ line, text }) =>
      commandsIn(text).map((command) => ({ file, line, ...command, problem: problemOf(command, workspace, thirdParty) })),
    );
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = checkCommands();
  const problems = results.filter((result) => result.problem);
  for (const { file, line, command, problem } of problems) console.error(`${file}:${line}: ${command}\n  ${problem}`);
  if (problems.length > 0) process.exit(1);
  console.log(
    `docs: the ${results.length} commands of the pages, READMEs and printed text resolve to this project's packages or allowed tools`,
  );
}

// The API reference: TypeDoc over the published `.d.ts` of every package's `exports` (the
// declarations users get from npm, not the sources), written as Markdown into src/api/ for
// VitePress. Generated at build time, never committed.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Application } from 'typedoc';
import { DOCS, publishedPackages, typedEntries } from './workspace.mjs';

const ENTRIES = join(DOCS, '.api-entries');
const OUT = join(DOCS, 'src', 'api');

/**
 * One small module per entry point that re-exports the published declarations, named after the
 * import specifier with `@module` (TypeDoc would otherwise name it after the file path).
 */
function writeEntryModules() {
  const built = JSON.parse(readFileSync(join(DOCS, 'package.json'), 'utf8')).devDependencies ?? {};
  rmSync(ENTRIES, { recursive: true, force: true });
  mkdirSync(ENTRIES, { recursive: true });
  const files = [];
  for (const pkg of publishedPackages()) {
    const entries = typedEntries(pkg);
    // turbo builds a package before the docs only when the docs depend on it.
    if (entries.length > 0 && !(pkg.name in built)) {
      throw new Error(`${pkg.name} is published but not a devDependency of docs/package.json: add "${pkg.name}": "workspace:*"`);
    }
    for (const { specifier, types } of entries) {
      // `@mediagen/core/internal` is not public (no semver, see core's README): not in the reference.
      if (specifier.endsWith('/internal')) continue;
      if (!existsSync(types)) throw new Error(`${types} is missing: build ${pkg.name} first (pnpm build)`);
      const file = join(ENTRIES, `${specifier.replace(/^@/, '').replace(/\//g, '__')}.ts`);
      const target = relative(ENTRIES, types)
        .split('\\')
        .join('/')
        .replace(/\.d\.ts$/, '.js');
      writeFileSync(
        file,
        `/**\n * ${pkg.description.replace(/\*\//g, '*\u200b/').replace(/@/g, '\\@')}\n *\n * @module ${specifier}\n */\nexport * from '${target}';\n`,
      );
      files.push(file);
    }
  }
  return files;
}

export async function generateApiReference() {
  const entryPoints = writeEntryModules();
  rmSync(OUT, { recursive: true, force: true });
  const app = await Application.bootstrapWithPlugins({
    entryPoints,
    entryPointStrategy: 'resolve',
    tsconfig: join(DOCS, 'tsconfig.api.json'),
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out: OUT,
    docsRoot: join(DOCS, 'src'),
    readme: 'none',
    name: 'API reference',
    entryFileName: 'index',
    excludePrivate: true,
    excludeInternal: true,
    excludeExternals: false,
    hideGenerator: true,
    // Doc comments hold `<placeholders>` that VitePress would read as Vue template tags.
    sanitizeComments: true,
    disableSources: true,
    githubPages: false,
    logLevel: 'Warn',
    // The published declarations are the subject, not something to type-check again.
    skipErrorChecking: true,
    validation: { notExported: false, invalidLink: true, rewrittenLink: true },
    treatValidationWarningsAsErrors: false,
  });
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not read the published declarations (run `pnpm build` first).');
  await app.generateOutputs(project);
  if (app.logger.hasErrors()) throw new Error('TypeDoc reported errors.');
  for (const file of markdownFiles(OUT)) writeFileSync(file, vitepressAnchors(joinSplitCodeSpans(readFileSync(file, 'utf8'))));
  return entryPoints.length;
}

function markdownFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : path.endsWith('.md') ? [path] : [];
  });
}

/**
 * A doc comment wrapped inside a code span (`` `/a/<b>/ `` then a line starting `<c>`) puts a
 * tag at the start of a line, which VitePress reads as a Vue component block. Such lines are
 * joined: a line with an unclosed code span gets the next one, outside fenced blocks.
 */
export function joinSplitCodeSpans(text) {
  const out = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    const previous = out.at(-1);
    if (!fenced && previous !== undefined && line !== '' && !/^\s*```/.test(line) && unclosedSpan(previous)) {
      out[out.length - 1] = `${previous} ${line}`;
      continue;
    }
    if (/^\s*```/.test(line)) fenced = !fenced;
    out.push(line);
  }
  return out.join('\n');
}

const unclosedSpan = (line) => !/^\s*```/.test(line) && (line.replace(/\\`/g, '').match(/`/g)?.length ?? 0) % 2 === 1;

/**
 * Links into another page keep TypeDoc's anchor (`Generation.md#created_at`, an inherited member),
 * but VitePress names a heading's anchor with its own slug, where `_` becomes `-` (`#created-at`).
 */
export function vitepressAnchors(markdown) {
  return markdown.replace(/(\]\([^)#\s]*\.md#)([^)\s]+)\)/g, (_, target, anchor) => `${target}${anchor.replace(/_/g, '-')})`);
}

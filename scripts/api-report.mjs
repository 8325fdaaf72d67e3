// The public surface of every published package, one API Extractor report per `exports` entry,
// checked in as `packages/<dir>/api/<entry>.api.md` (`.` is `index`). Reads the built `.d.ts`
// (run after `pnpm build`).
//
//   node scripts/api-report.mjs            fails when a built surface differs from its report
//   node scripts/api-report.mjs --update   rewrites the reports (then review and commit them)
//   ... [--filter @mediagen/core]          one package
//
// Run by `pnpm release:check` (so by `pnpm test`), before `scripts/api-changesets.mjs`, which
// asks a changeset of the right size for every change these reports show.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const UPDATE_COMMAND = 'npx -y pnpm@12.21.0 build && npx -y pnpm@12.21.0 api:update';

/** Every published package (`packages/*` without `"private": true`) with its `exports` entries' types. */
export function publishedEntries() {
  const out = [];
  for (const dir of readdirSync(join(ROOT, 'packages')).sort()) {
    const pkgFile = join(ROOT, 'packages', dir, 'package.json');
    if (!existsSync(pkgFile)) continue;
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
    if (pkg.private) continue;
    const entries = [];
    for (const [key, value] of Object.entries(pkg.exports ?? {})) {
      if (key === './package.json') continue;
      const types = typeof value === 'string' ? undefined : (value.import?.types ?? value.types);
      if (!types) continue;
      entries.push({ entry: key === '.' ? 'index' : key.slice(2).replaceAll('/', '-'), key, types });
    }
    out.push({ dir: join(ROOT, 'packages', dir), name: pkg.name, version: pkg.version, entries });
  }
  return out;
}

function run() {
  const args = process.argv.slice(2);
  const update = args.includes('--update');
  const filter = args.includes('--filter') ? args[args.indexOf('--filter') + 1] : undefined;
  const scratch = join(tmpdir(), `mediagen-api-${process.pid}`);
  const changed = [];
  let count = 0;
  for (const pkg of publishedEntries()) {
    if (filter && pkg.name !== filter) continue;
    const reportFolder = join(pkg.dir, 'api');
    mkdirSync(reportFolder, { recursive: true });
    const wanted = new Set(pkg.entries.map(({ entry }) => `${entry}.api.md`));
    // A report whose entry is gone from `exports` is stale.
    for (const file of readdirSync(reportFolder).filter((f) => f.endsWith('.api.md') && !wanted.has(f))) {
      if (update) rmSync(join(reportFolder, file));
      else changed.push(`${pkg.name}: api/${file} has no entry in exports any more`);
    }
    for (const { entry, key, types } of pkg.entries) {
      const dts = join(pkg.dir, types);
      if (!existsSync(dts)) throw new Error(`${pkg.name}${key.slice(1)}: ${types} is not built (run the build first)`);
      const config = ExtractorConfig.prepare({
        configObject: {
          projectFolder: pkg.dir,
          mainEntryPointFilePath: dts,
          compiler: {
            overrideTsconfig: {
              compilerOptions: {
                target: 'es2022',
                module: 'esnext',
                moduleResolution: 'bundler',
                lib: ['es2023', 'dom', 'dom.iterable'],
                types: ['node'],
                skipLibCheck: true,
                strict: true,
              },
            },
          },
          newlineKind: 'lf',
          apiReport: { enabled: true, reportFolder, reportTempFolder: join(scratch, pkg.name), reportFileName: entry },
          docModel: { enabled: false },
          dtsRollup: { enabled: false },
          tsdocMetadata: { enabled: false },
          messages: {
            compilerMessageReporting: { default: { logLevel: 'warning' } },
            // A type an entry mentions without exporting is often another entry's (the root's
            // `MediaGenClient` in `/server`): not a finding per entry, so not in the report.
            extractorMessageReporting: { default: { logLevel: 'none', addToApiReportFile: false } },
            tsdocMessageReporting: { default: { logLevel: 'none' } },
          },
        },
        configObjectFullPath: undefined,
        packageJsonFullPath: join(pkg.dir, 'package.json'),
      });
      const result = Extractor.invoke(config, {
        localBuild: update,
        messageCallback(message) {
          message.handled = true;
          if (message.logLevel === 'error' || (message.logLevel === 'warning' && message.category === 'Compiler'))
            console.error(`${pkg.name}${key.slice(1)}: ${message.text}`);
        },
      });
      count++;
      if (result.apiReportChanged) changed.push(`${pkg.name}${key.slice(1)}: packages/${pkg.dir.split('/').pop()}/api/${entry}.api.md`);
    }
  }
  rmSync(scratch, { recursive: true, force: true });
  if (update) {
    console.log(`${count} API reports written${changed.length ? `; changed:\n  ${changed.join('\n  ')}` : ', none changed'}`);
    return;
  }
  if (changed.length > 0) {
    console.error(
      `The built public surface differs from its API report:\n  ${changed.join('\n  ')}\n` +
        `If the change is meant, update the reports with\n  ${UPDATE_COMMAND}\n` +
        'review the diff of packages/*/api/*.api.md, and add a changeset for it (scripts/api-changesets.mjs says which size).',
    );
    process.exit(1);
  }
  console.log(`${count} API reports match the built surface`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) run();

// The files the sample apps share: one source each in apps/shared/, and a checked-in copy in
// every sample that uses it (apps/shared/copies.json says where), so each sample stays a
// standalone project: `pnpm --filter ./apps/<name> start` in the repo and `npm start` once
// `npm create mediagen` wrote it out both run the files in the sample's own folder. A copy that
// differs from its source fails `pnpm test` (test/shared-files.test.ts) and the templates' build
// (bundle-templates.mjs).
//
//   node packages/create-mediagen/scripts/shared-files.mjs           lists the copies that differ (exit 1 if any)
//   node packages/create-mediagen/scripts/shared-files.mjs --write   writes each source over its copies
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The monorepo's root: packages/create-mediagen/scripts/../../.. */
export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Every copy: its sample, its path inside the sample, and the shared source it copies. */
export function sharedCopies(root = ROOT) {
  const shared = join(root, 'apps', 'shared');
  const manifest = JSON.parse(readFileSync(join(shared, 'copies.json'), 'utf8'));
  return Object.entries(manifest).flatMap(([name, copies]) =>
    copies.map((copy) => {
      const [sample, ...path] = copy.split('/');
      return { source: join(shared, name), sample, path: path.join('/'), copy: join(root, 'apps', copy) };
    }),
  );
}

/** The copies that are missing or differ from their source by a byte, as `apps/…` paths. */
export function driftedCopies(root = ROOT) {
  return sharedCopies(root)
    .filter(({ source, copy }) => !existsSync(copy) || !readFileSync(copy).equals(readFileSync(source)))
    .map(({ copy }) => relative(root, copy).split('\\').join('/'));
}

/** Writes each source over its copies; answers the copies it changed. */
export function writeCopies(root = ROOT) {
  const drifted = new Set(driftedCopies(root));
  for (const { source, copy } of sharedCopies(root)) {
    if (!drifted.has(relative(root, copy).split('\\').join('/'))) continue;
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, readFileSync(source));
  }
  return [...drifted];
}

/** What to tell whoever changed a copy instead of its source. */
export const DRIFT_HELP =
  'edit the source in apps/shared/ (not the copy), then run `node packages/create-mediagen/scripts/shared-files.mjs --write` to copy it into every sample';

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--write')) {
    const written = writeCopies();
    console.log(written.length ? `shared files: wrote ${written.join(', ')}` : 'shared files: every copy already matches its source');
  } else {
    const drifted = driftedCopies();
    if (drifted.length) {
      console.error(`shared files: these differ from their source in apps/shared/: ${drifted.join(', ')}\n${DRIFT_HELP}`);
      process.exit(1);
    }
    console.log('shared files: every copy matches its source');
  }
}

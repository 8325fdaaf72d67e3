// The published types leave out every member marked `@internal` in src (tsup's stripInternal):
// for each such member, its class's declaration in dist/*.d.ts must not name it. Run by `pnpm lint`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const files = (dir, ext) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(ext))
    .map((entry) => join(entry.parentPath, entry.name));

/** `[class, member]` for each `@internal` doc comment on a class member in src. */
const internal = [];
for (const file of files(join(root, 'src'), '.ts')) {
  let current;
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(
    /class (\w+)|\/\*\*\s*(?:\*\s*)?@internal[\s\S]*?\*\/\s*(?:(?:async|static|readonly|get|set)\s+)*(#?\w+)/g,
  )) {
    if (match[1]) current = match[1];
    else if (current && !match[2].startsWith('#')) internal.push([current, match[2]]);
  }
}

const declarations = files(join(root, 'dist'), '.d.ts')
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');
const leaks = internal.filter(([cls, member]) => {
  const blocks = [...declarations.matchAll(new RegExp(`declare class ${cls}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`, 'g'))];
  const named = new RegExp(`^\\s*(?:readonly\\s+|get\\s+|set\\s+)*${member}\\s*[(<:?]`, 'm');
  return blocks.some((block) => named.test(block[1] ?? ''));
});
if (internal.length === 0) throw new Error('no @internal member found in src: is the pattern still right?');
if (leaks.length > 0) {
  console.error(`@internal members in the published types: ${leaks.map(([c, m]) => `${c}.${m}`).join(', ')}`);
  process.exit(1);
}
console.log(`${internal.length} @internal members, none in dist/*.d.ts`);

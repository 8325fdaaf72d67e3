// Everything generated before VitePress builds: the API reference (TypeDoc over the published
// declarations), the error-code reference (core's code table) and the emulator's testing guide.
// Run by `build`, `dev` and `test`; the output is git-ignored.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateApiReference } from './api-reference.mjs';
import { generateErrorReference } from './error-reference.mjs';
import { asIncluded } from './include.mjs';
import { DOCS, ROOT } from './workspace.mjs';

const started = performance.now();

/**
 * packages/emulator/TESTING.md, when it exists, becomes part of the Testing guide (its own
 * headings one level down). Until then, nothing is added.
 */
function includeEmulatorTesting() {
  const dir = join(DOCS, 'src', 'generated');
  mkdirSync(dir, { recursive: true });
  const source = join(ROOT, 'packages', 'emulator', 'TESTING.md');
  const text = existsSync(source) ? asIncluded(readFileSync(source, 'utf8')) : '';
  writeFileSync(join(dir, 'emulator-testing.md'), text);
  return existsSync(source);
}

const modules = await generateApiReference();
const codes = await generateErrorReference();
const testing = includeEmulatorTesting();
console.log(
  `docs: API reference of ${modules} entry points, ${codes} error codes, emulator testing guide ${testing ? 'included' : 'not there yet'} (${Math.round(performance.now() - started)} ms)`,
);

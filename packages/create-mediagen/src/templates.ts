import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/templates, beside the built cli.js: filled at build time from the monorepo's sample apps. */
export const TEMPLATES_DIR = fileURLToPath(new URL('./templates', import.meta.url));

/** How a dotfile is stored in the package (npm drops `.gitignore` from a tarball). */
export const DOTFILE_PREFIX = '_dot_';

/** The template names this build carries (`next`, `express`, `nest`…), from its index. */
export function availableTemplates(dir = TEMPLATES_DIR): string[] {
  const index = join(dir, 'index.json');
  if (!existsSync(index)) return [];
  return (JSON.parse(readFileSync(index, 'utf8')) as { templates: string[] }).templates;
}

import { cpSync, existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { availableTemplates, DOTFILE_PREFIX, TEMPLATES_DIR } from './templates';

/** A refusal the user can act on: printed as is, exit code 1. */
export class CreateError extends Error {}

export interface CreateOptions {
  template: string;
  /** Where to write the app; created when missing, refused when not empty. */
  dir: string;
  templatesDir?: string;
}

/** Writes the template out as a standalone npm project named after its folder. */
export function createApp({ template, dir, templatesDir = TEMPLATES_DIR }: CreateOptions): { dir: string; name: string } {
  const templates = availableTemplates(templatesDir);
  if (!templates.includes(template)) {
    throw new CreateError(`Unknown template "${template}". Pick one of: ${templates.join(', ')}.`);
  }
  const target = resolve(dir);
  if (existsSync(target) && (!statSync(target).isDirectory() || readdirSync(target).length > 0)) {
    throw new CreateError(`${target} exists and is not an empty folder. Pick a new folder name.`);
  }
  cpSync(join(templatesDir, template), target, { recursive: true });
  restoreDotfiles(target);
  const name = packageName(basename(target));
  const manifest = join(target, 'package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
  writeFileSync(manifest, `${JSON.stringify({ ...pkg, name }, null, 2)}\n`);
  return { dir: target, name };
}

function restoreDotfiles(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) restoreDotfiles(path);
    if (name.startsWith(DOTFILE_PREFIX)) renameSync(path, join(dir, `.${name.slice(DOTFILE_PREFIX.length)}`));
  }
}

/** A valid npm package name from a folder name (lowercase, URL-safe), or `mediagen-app`. */
export function packageName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '')
    .replace(/-+$/, '')
    .slice(0, 214);
  return name || 'mediagen-app';
}

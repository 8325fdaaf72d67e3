import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { availableTemplates, DOTFILE_PREFIX, TEMPLATES_DIR } from './templates';

/** A refusal the user can act on: printed as is, exit code 1. */
export class CreateError extends Error {}

export interface CreateOptions {
  template: string;
  /** Where to write the app; created when missing, refused when not empty. */
  dir: string;
  templatesDir?: string;
}

/** C0 controls and DEL: a folder name holding one would be printed, pasted and listed wrong. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * What a standalone app's `.gitignore` must hold, whatever the template's says: the samples' own
 * lean on the monorepo's root one. Env files hold the API key and webhook secret; the example
 * one is meant to be committed.
 */
const GITIGNORE = ['node_modules', 'dist', '*.tsbuildinfo', '.env', '.env.*', '!.env.example'];

/**
 * Writes the template out as a standalone npm project named after its folder. Refuses (CreateError)
 * a folder that is not new or empty, a symbolic link, a name with control characters; any failure
 * while writing is a CreateError too, and leaves nothing behind (folders it made are removed, a
 * folder that was there is emptied again).
 */
export function createApp({ template, dir, templatesDir = TEMPLATES_DIR }: CreateOptions): { dir: string; name: string } {
  const templates = availableTemplates(templatesDir);
  if (!templates.includes(template)) {
    throw new CreateError(`Unknown template "${template}". Pick one of: ${templates.join(', ')}.`);
  }
  if (CONTROL.test(dir)) {
    throw new CreateError(`The folder name "${visible(dir)}" holds a control character (a line break, a tab?). Pick a plain name.`);
  }
  const target = resolve(dir);
  const kind = entryKind(target);
  if (kind === 'symlink') {
    throw new CreateError(`${target} is a symbolic link. Pick a new folder name (the app is written only into a real folder).`);
  }
  if (kind === 'under-file') {
    throw new CreateError(`${target} cannot be made: a part of its path is a file, not a folder. Pick another folder.`);
  }
  if (kind === 'other' || (kind === 'dir' && readdirSync(target).length > 0)) {
    throw new CreateError(`${target} exists and is not an empty folder. Pick a new folder name.`);
  }
  const made = kind === 'missing' ? topmostMissing(target) : undefined;
  try {
    cpSync(join(templatesDir, template), target, { recursive: true, errorOnExist: true, force: false });
    restoreDotfiles(target);
    const name = packageName(basename(target));
    const manifest = join(target, 'package.json');
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
    writeFileSync(manifest, `${JSON.stringify({ ...pkg, name }, null, 2)}\n`);
    ignoreSecrets(join(target, '.gitignore'));
    return { dir: target, name };
  } catch (error) {
    // Nothing half-written stays: what this run made goes, nothing that was there before.
    if (made !== undefined) rmSync(made, { recursive: true, force: true });
    else for (const entry of topLevelNames(join(templatesDir, template))) rmSync(join(target, entry), { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const reason = code ?? (error instanceof SyntaxError ? 'the template is damaged' : 'write failed');
    throw new CreateError(`Could not write the app into ${target} (${reason}). Nothing was left behind.`);
  }
}

type EntryKind = 'missing' | 'dir' | 'symlink' | 'under-file' | 'other';

/** What is at `path`, symbolic links not followed; a path under a file cannot be made (`other`). */
function entryKind(path: string): EntryKind {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return 'symlink';
    return stat.isDirectory() ? 'dir' : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') return 'under-file';
    throw new CreateError(`Cannot use ${path} (${code ?? 'unreadable'}). Pick another folder.`);
  }
}

/** The first folder on the way to `path` that does not exist yet: what a failed run removes. */
function topmostMissing(path: string): string {
  let top = path;
  for (let parent = dirname(top); parent !== top && !existsSync(parent); parent = dirname(parent)) top = parent;
  return top;
}

/** The names the template writes at the top of the app (dotfiles under their real names). */
function topLevelNames(templateDir: string): string[] {
  try {
    return readdirSync(templateDir).map((name) => (name.startsWith(DOTFILE_PREFIX) ? `.${name.slice(DOTFILE_PREFIX.length)}` : name));
  } catch {
    return [];
  }
}

/** `text` with each control character written as `\u00XX`: safe to print. */
function visible(text: string): string {
  return text.replace(new RegExp(CONTROL.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Adds to the app's `.gitignore` (made if missing) each GITIGNORE line it lacks, keeping the template's own. */
function ignoreSecrets(file: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const lines = new Set(current.split(/\r?\n/).map((line) => line.trim().replace(/^\/|\/$/g, '')));
  const missing = GITIGNORE.filter((line) => !lines.has(line));
  if (missing.length === 0) return;
  const head = current === '' || current.endsWith('\n') ? current : `${current}\n`;
  writeFileSync(file, `${head}${missing.join('\n')}\n`);
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

/** `'…'` quoting for a POSIX shell, so a printed command can be pasted back as is (as @mediagen/cli's `shellQuote`: this package keeps no dependencies). */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

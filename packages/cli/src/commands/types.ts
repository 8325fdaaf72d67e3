import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { clientFrom, type GlobalOptions } from '../context';
import { OutputWriteError } from '../errors';
import { EXIT } from '../exit-codes';
import type { Io } from '../io';
import { project } from '../types-gen/projection';
import { renderDeclarations } from '../types-gen/render';

export const DEFAULT_TYPES_FILE = 'mediagen-models.d.ts';

export interface TypesOptions extends GlobalOptions {
  out?: string;
  check?: boolean;
}

/** Writes the per-model params declarations, or with `--check` says whether the file is current. */
export async function typesCommand(options: TypesOptions, io: Io): Promise<number> {
  const client = clientFrom(options, io);
  const path = resolve(options.out ?? DEFAULT_TYPES_FILE);
  const models = project(await client.models.list());
  const text = renderDeclarations(models);
  if (options.check) {
    const current = await readFile(path, 'utf8').catch(() => undefined);
    if (current === text) {
      io.out(`${path} is up to date (${models.length} models).`);
      return EXIT.ok;
    }
    io.err(current === undefined ? `${path} does not exist.` : `${path} is out of date: ${describeChange(current, models)}.`);
    io.err(`Regenerate it with: mediagen types --out ${options.out ?? DEFAULT_TYPES_FILE}`);
    return EXIT.outdated;
  }
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  } catch (error) {
    throw new OutputWriteError(dirname(path), error, 'mediagen types');
  }
  io.out(path);
  io.err(`${models.length} models typed; include the file in your tsconfig to check each model's params at compile time.`);
  return EXIT.ok;
}

/** Which slugs came and went, read back from the registry keys of the old file. */
function describeChange(current: string, models: ReturnType<typeof project>): string {
  const old = new Set<string>();
  for (const match of current.matchAll(/^ {4}("(?:[^"\\]|\\.)*"): \{$/gm)) {
    try {
      old.add(JSON.parse(match[1]!) as string);
    } catch {
      // Not one of ours: counted as changed below.
    }
  }
  const live = new Set(models.map((m) => m.slug));
  const added = [...live].filter((s) => !old.has(s));
  const removed = [...old].filter((s) => !live.has(s));
  const parts = [];
  if (added.length > 0) parts.push(`added ${added.join(', ')}`);
  if (removed.length > 0) parts.push(`removed ${removed.join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : "models' params changed";
}

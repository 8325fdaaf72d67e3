/**
 * Reads an environment variable where there is one (Node, Bun, Deno's Node mode), else undefined
 * (edge, browsers). An environment the process may not read (Deno without `--allow-env` throws
 * `NotCapable` on each read) counts as unset, as on the edge.
 */
export function readEnv(name: string): string | undefined {
  try {
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
    return value === undefined || value === '' ? undefined : value.trim();
  } catch {
    return undefined;
  }
}

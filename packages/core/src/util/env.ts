/** Reads an environment variable where there is one (Node, Bun, Deno's Node mode), else undefined (edge, browsers). */
export function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name];
  return value === undefined || value === '' ? undefined : value.trim();
}

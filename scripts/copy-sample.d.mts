/** Types for scripts/copy-sample.mjs (used by the release checks). */
export function workspacePackages(root?: string): Map<string, { dir: string; version: string; private: boolean }>;
export function copySample(
  sampleDir: string,
  dest: string,
  options?: { tarballs?: Map<string, string>; root?: string },
): { name: string; [key: string]: unknown };

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { packAll } from './pack';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A scratch directory outside the workspace, removed after the run (kept with KEEP_RELEASE_CHECKS=1). */
    scratch: string;
    /** Package name -> absolute path of its packed tarball. */
    tarballs: Record<string, string>;
  }
}

/** Packs every published package once for all the checks. */
export default async function setup(project: TestProject) {
  const scratch = mkdtempSync(join(tmpdir(), 'mediagen-release-'));
  const dest = join(scratch, 'tarballs');
  mkdirSync(dest);
  project.provide('scratch', scratch);
  project.provide('tarballs', await packAll(dest));
  return () => {
    if (process.env.KEEP_RELEASE_CHECKS === '1') console.log(`release checks kept in ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  };
}

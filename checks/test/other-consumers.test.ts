import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { npmProject } from '../src/npm';
import { frameworkPeers, frameworkProject } from '../src/projects';
import { extractSnippets, typecheckSnippets } from '../src/snippets';
import { publishedPackages } from '../src/workspace';

// Any other package with a peer (e.g. @mediagen/redis and ioredis): installed from its tarball
// with its peer, its README snippets compile. Express, Nest and Next have their own apps.
const COVERED = new Set(['@mediagen/express', '@mediagen/nestjs', '@mediagen/next']);
const others = publishedPackages().filter(({ pkg }) => frameworkPeers(pkg).length > 0 && !COVERED.has(pkg.name));
const tarballs = inject('tarballs');
const scratch = inject('scratch');

describe.skipIf(others.length === 0).each(others.map(({ dir, pkg }) => [pkg.name, dir, pkg] as const))(
  '%s, installed from its tarball',
  (name, dir, pkg) => {
    it("its README's TypeScript snippets compile against it and its peers", async () => {
      const project = join(scratch, `${name.replace('/', '__')}-consumer`);
      await npmProject(project, frameworkProject({ dir, pkg }, tarballs));
      const errors = await typecheckSnippets(project, extractSnippets(join(dir, 'README.md')), {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        // READMEs of React packages hold `tsx` snippets.
        jsx: 'react-jsx',
      });
      expect(errors).toEqual([]);
    });
  },
);

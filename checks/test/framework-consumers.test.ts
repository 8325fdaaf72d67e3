import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { deliverOne } from '../src/deliver';
import { freePort, waitFor } from '../src/emulator';
import { npmProject } from '../src/npm';
import { frameworkProject } from '../src/projects';
import { run, type Service, startService } from '../src/run';
import { extractSnippets, typecheckSnippets } from '../src/snippets';
import { publishedPackages } from '../src/workspace';

// The Nest and Next adapters from their tarballs in a real app of each framework (skipped until
// the package exists). Each app gets a real webhook from the emulator and refuses a forged one.
const tarballs = inject('tarballs');
const scratch = inject('scratch');
const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));
const find = (name: string) => publishedPackages().find(({ pkg }) => pkg.name === name);
const nest = find('@mediagen/nestjs');
const next = find('@mediagen/next');
const services: Service[] = [];
afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
});

const env = (port: number) => ({
  PORT: String(port),
  MEDIAGEN_API_KEY: 'svc_live_release_check',
  MEDIAGEN_BASE_URL: 'http://127.0.0.1:9',
  MEDIAGEN_WEBHOOK_SECRET: 'whsec_release_check',
  NEXT_TELEMETRY_DISABLED: '1',
});

describe.skipIf(!next)('@mediagen/next, installed from its tarball', () => {
  it('a Next app builds with it, serves its webhook route, and its README snippets compile', async () => {
    const dir = join(scratch, 'next-consumer');
    const spec = frameworkProject(next!, tarballs);
    cpSync(join(fixtures, 'next'), dir, { recursive: true });
    await npmProject(dir, { ...spec, scripts: { build: 'next build', start: 'next start' } });
    await run('npm', ['run', 'build'], { cwd: dir, timeoutMs: 240_000, env: { NEXT_TELEMETRY_DISABLED: '1' } });
    const port = await freePort();
    const app = startService('npm', ['start', '--', '-p', String(port), '-H', '127.0.0.1'], { cwd: dir, env: env(port) });
    services.push(app);
    const route = `http://127.0.0.1:${port}/api/webhooks/mediagen`;
    await waitFor(route, 60_000, app);
    expect(await deliverOne(dir, route, route)).toEqual({ received: true, forged: 401 });

    const snippets = extractSnippets(join(next!.dir, 'README.md'));
    const compilerOptions = {
      module: 'esnext',
      moduleResolution: 'bundler',
      target: 'es2022',
      jsx: 'preserve',
      lib: ['dom', 'dom.iterable', 'esnext'],
      paths: { '@/*': ['./*'] },
    };
    expect(await typecheckSnippets(dir, snippets, compilerOptions)).toEqual([]);
  });
});

describe.skipIf(!nest)('@mediagen/nestjs, installed from its tarball', () => {
  it('a Nest app (compiled by tsc) receives a webhook in an @OnGenerationEvent handler, and its README snippets compile', async () => {
    const dir = join(scratch, 'nest-consumer');
    const spec = frameworkProject(nest!, tarballs, {
      '@nestjs/platform-express': nest!.pkg.devDependencies?.['@nestjs/platform-express'] ?? '*',
    });
    cpSync(join(fixtures, 'nest'), dir, { recursive: true });
    await npmProject(dir, spec);
    await run(join(dir, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: dir, timeoutMs: 120_000 });
    const port = await freePort();
    const app = startService(process.execPath, ['dist/main.js'], { cwd: dir, env: env(port) });
    services.push(app);
    const origin = `http://127.0.0.1:${port}`;
    await waitFor(`${origin}/results`, 60_000, app);
    expect(await deliverOne(dir, `${origin}/api/webhooks/mediagen`, `${origin}/results`)).toEqual({ received: true, forged: 401 });

    const snippets = extractSnippets(join(nest!.dir, 'README.md'));
    const compilerOptions = {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
    };
    expect(await typecheckSnippets(dir, snippets, compilerOptions)).toEqual([]);
  });
});

// Boots a Nest app from each build (ESM and CJS) of the package. The module's own providers are
// injected by type, which works only if the build kept the decorator metadata (tsup compiles
// with swc for that); a build that lost it fails here with Nest's "can't resolve dependencies".
import 'reflect-metadata';
import { createRequire } from 'node:module';
import { Test } from '@nestjs/testing';

const require = createRequire(import.meta.url);
// The client class is core's (the adapter re-exports none of core's names), from the same format.
const builds = {
  esm: { ...(await import('../dist/index.js')), MediaGenClient: (await import('@mediagen/core')).MediaGenClient },
  cjs: { ...require('../dist/index.cjs'), MediaGenClient: require('@mediagen/core').MediaGenClient },
};

for (const [name, build] of Object.entries(builds)) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      build.MediaGenModule.forRoot({
        apiKey: 'svc_live_dist_check',
        baseUrl: 'http://127.0.0.1:9',
        routes: { basePath: 'api' },
        webhook: { path: 'webhooks/mediagen', secrets: 'whsec_x' },
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
  await app.init();
  if (!(app.get(build.MediaGenClient) instanceof build.MediaGenClient))
    throw new Error(`${name}: MediaGenClient is not injectable by type`);
  await app.close();
  console.log(`dist ${name}: module boots, client injectable by type`);
}

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { createNodeHandler, FileMediaStore } from '@mediagen/core/node';
import { createMediaGenHandler } from '@mediagen/core/server';
import { describeMediaStoreConformance } from '../src/media-store-conformance';

/**
 * The filesystem store through the handler that serves its links (`GET /api/uploads/:key`), as
 * an app mounts it: each test's store in its own folder, all behind one server.
 */
const directory = await mkdtemp(join(tmpdir(), 'mediagen-file-store-'));
const stores = new Map<string, FileMediaStore>();
const server = createServer((req, res) => {
  // The folder is the first path segment after /api/uploads/<folder>/…: one handler per store.
  const match = /^\/(\d+)(\/api\/uploads\/.*)$/.exec(req.url ?? '');
  const store = match && stores.get(match[1]!);
  if (!match || !store) return void res.writeHead(404).end();
  req.url = match[2];
  const handler = createMediaGenHandler({
    client: new MediaGenClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'svc_live_unused' }),
    basePath: '/api',
    allowAnonymous: true,
    uploads: { store, secret: 'conformance-secret-0123456789' },
  });
  void createNodeHandler(handler)(req, res);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

describeMediaStoreConformance({
  name: 'FileMediaStore (served by the handler)',
  nosniff: true,
  create() {
    const id = String(stores.size + 1);
    const store = new FileMediaStore({ directory: join(directory, id), url: `${base}/${id}/api/uploads` });
    stores.set(id, store);
    return store;
  },
  async close() {
    await new Promise((resolve) => server.close(resolve));
    await rm(directory, { recursive: true, force: true });
  },
});

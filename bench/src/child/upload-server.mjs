// The upload rows' server, in its own process (its RSS is what is measured): core's handler with
// the upload route (createNodeHandler on node:http) to a FileMediaStore (`/api`) and, when S3_*
// is set, a second mount to an S3MediaStore (`/s3api`); beside them on the same server, the
// floors: `POST /floor/file` streams the request body to a file in the same folder,
// `POST /floor/file-sha256` does the same hashing it on the way (what content-addressed names
// cost), `POST /floor/s3` streams it as one plain PUT of its Content-Length to the same bucket.
// IPC: { cmd: 'mark' } starts a new peak-RSS window and answers the RSS now; { cmd: 'peak' } answers it.

import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MediaGenClient } from '@mediagen/core';
import { createNodeHandler, FileMediaStore, toWebRequest } from '@mediagen/core/node';
import { createMediaGenHandler } from '@mediagen/core/server';
import { S3MediaStore } from '@mediagen/s3';

const { DIRECTORY, S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = process.env;
const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const handler = createMediaGenHandler({
  client: new MediaGenClient({ apiKey: 'svc_live_bench_uploads', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }),
  basePath: '/api',
  identify: (request) => request.headers.get('x-user') ?? undefined,
  authorize: () => true,
  uploads: {
    store: new FileMediaStore({ directory: DIRECTORY, url: `${origin}/api/uploads` }),
    secret: 'bench-upload-secret-0123456789',
    perUserPerMinute: 1_000_000,
  },
  onError: () => {},
});
const handle = createNodeHandler(handler, { onError: () => {} });
const s3 = S3_ENDPOINT
  ? new S3MediaStore({
      endpoint: S3_ENDPOINT,
      bucket: S3_BUCKET,
      region: 'us-east-1',
      accessKeyId: S3_ACCESS_KEY_ID,
      secretAccessKey: S3_SECRET_ACCESS_KEY,
      forcePathStyle: true,
      prefix: 'bench/',
    })
  : undefined;
const handleS3 = s3
  ? createNodeHandler(
      createMediaGenHandler({
        client: new MediaGenClient({ apiKey: 'svc_live_bench_uploads', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }),
        basePath: '/s3api',
        identify: (request) => request.headers.get('x-user') ?? undefined,
        authorize: () => true,
        uploads: { store: s3, secret: 'bench-upload-secret-0123456789', perUserPerMinute: 1_000_000 },
        onError: () => {},
      }),
      { onError: () => {} },
    )
  : undefined;
const answer = (res, done) =>
  done.then(
    () => res.writeHead(201).end(),
    () => res.writeHead(500).end(),
  );
server.on('request', (req, res) => {
  if (req.url === '/floor/file') return void answer(res, pipeline(req, createWriteStream(join(DIRECTORY, `floor-${crypto.randomUUID()}`))));
  if (req.url === '/floor/file-sha256') {
    const hash = createHash('sha256');
    const tap = new Transform({
      transform(chunk, _encoding, callback) {
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    return void answer(res, pipeline(req, tap, createWriteStream(join(DIRECTORY, `floor-${crypto.randomUUID()}`))));
  }
  if (req.url === '/floor/s3' && s3) {
    const size = Number(req.headers['content-length']);
    return void answer(res, s3.put(`floor-${crypto.randomUUID()}`, toWebRequest(req).body, { contentType: 'video/mp4', size }));
  }
  if (req.url.startsWith('/s3api/') && handleS3) return void handleS3(req, res);
  void handle(req, res);
});

let peak = 0;
setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 10).unref();
process.on('message', (m) => {
  if (m?.cmd === 'mark') {
    globalThis.gc?.();
    peak = process.memoryUsage.rss();
    process.send({ id: m.id, result: peak });
  } else if (m?.cmd === 'peak') {
    peak = Math.max(peak, process.memoryUsage.rss());
    process.send({ id: m.id, result: peak });
  }
});
process.send({ ready: true, origin });
process.on('SIGTERM', () => process.exit(0));

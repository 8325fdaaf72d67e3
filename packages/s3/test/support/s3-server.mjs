// The S3-compatible server the tests run against, as its own process: s3rver (an S3 emulator from
// npm) behind a strict front that does what s3rver does not and real S3 does:
//
// - checks every SigV4 signature, header-signed and presigned (s3rver 3.7 checks only that the
//   access key exists and that a presigned URL is not past X-Amz-Expires: a tampered signature,
//   content type or length would pass it);
// - checks the payload hash of a header-signed request against the body;
// - takes a PUT's body whole before passing it on: no Content-Length is `411`, fewer bytes than it
//   said (a body that broke off) is `400 IncompleteBody` and nothing is stored (s3rver writes a PUT
//   straight into the object's file as it reads, so a cut body would leave half an object);
// - refuses a multipart upload whose parts but the last are under 5 MiB (`EntityTooSmall`).
//
// Written with node:crypto, independently of the package's Web Crypto signer, and checked against
// AWS's own worked examples (test/sigv4.test.ts). Prints `{"url":…}` once listening.
//
//   node s3-server.mjs <dir> <bucket> <accessKeyId> <secretAccessKey> <corsXmlFile>
import { readFileSync } from 'node:fs';
import http from 'node:http';
import S3rver from 's3rver';
import { queryPairs, sha256, verify } from './sigv4-verify.mjs';

const [directory, bucket, accessKeyId, secretAccessKey, corsFile] = process.argv.slice(2);
const MIN_PART = 5 * 1024 * 1024;

const upstream = await new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket, configs: [readFileSync(corsFile)] }],
}).run();

/** uploadId -> part number -> size, to refuse parts S3 would find too small. */
const partSizes = new Map();

function error(res, status, code, message) {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

const front = http.createServer((req, res) => {
  const [rawPath, rawQuery = ''] = (req.url ?? '/').split(/\?(.*)/s);
  const chunks = [];
  let size = 0;
  let broken = false;
  req.on('data', (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  req.on('error', () => {
    broken = true;
  });
  req.on('aborted', () => {
    broken = true;
  });
  req.on('close', () => {
    if (!req.complete) broken = true;
  });
  req.on('end', () => {
    if (broken) return;
    const body = Buffer.concat(chunks);
    // Browsers' CORS preflights carry no signature, as with S3.
    if (req.method !== 'OPTIONS') {
      const declared = req.headers['content-length'];
      if (req.method === 'PUT' && declared === undefined)
        return error(res, 411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
      if (declared !== undefined && Number(declared) !== size)
        return error(res, 400, 'IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.');
      const refused = verify({
        method: req.method,
        rawPath,
        rawQuery,
        headers: req.headers,
        bodyHash: sha256(body),
        now: Date.now(),
        secret: secretAccessKey,
        keyId: accessKeyId,
      });
      if (refused) return error(res, 403, refused[0], refused[1]);
      const query = new Map(queryPairs(rawQuery));
      const uploadId = query.get('uploadId');
      if (uploadId && req.method === 'PUT' && query.has('partNumber')) {
        const parts = partSizes.get(uploadId) ?? new Map();
        parts.set(Number(query.get('partNumber')), size);
        partSizes.set(uploadId, parts);
      }
      if (uploadId && req.method === 'POST') {
        const sizes = [...(partSizes.get(uploadId) ?? new Map()).entries()].sort(([a], [b]) => a - b).map(([, s]) => s);
        if (sizes.slice(0, -1).some((s) => s < MIN_PART))
          return error(res, 400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.');
      }
      if (uploadId && (req.method === 'POST' || req.method === 'DELETE')) partSizes.delete(uploadId);
    }
    const forward = http.request(
      {
        host: upstream.address,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'content-length': String(body.length) },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => error(res, 502, 'InternalError', 'upstream failed'));
    forward.end(req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS' ? undefined : body);
  });
});

front.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${front.address().port}` })}\n`);
});
process.on('SIGTERM', () => process.exit(0));

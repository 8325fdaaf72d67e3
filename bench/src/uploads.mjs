// Rows (issue 33): 20 concurrent 100 MB uploads through the handler (node:http + createNodeHandler,
// POST /api/uploads) to the FileMediaStore and to the S3MediaStore (s3rver, as the s3 tests start
// it), each against the floor of a bare stream copy of the same bytes to the same place (the same
// server streaming the request body to a file in the same folder; one plain PUT to the same bucket).
// Time ratio per round (interleaved, order rotated) and the server process's RSS growth (peak during
// the 20 uploads less its RSS before them). The bytes sniff as MP4 (an `ftyp` head, then random
// bytes; video's limit is 200 MB). The server is in its own process; the bench process only sends.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { here, startChild } from './child.mjs';
import { fmt } from './measure.mjs';

const CONCURRENT = 20;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const MB = 1024 * 1024;

/** One upload of `size` bytes: an MP4 head unique to `n`, then 1 MB of random bytes over and over. */
function send(url, size, n, headers = {}) {
  const head = Buffer.alloc(64 * 1024);
  Buffer.from('\0\0\0\x18ftypmp42').copy(head);
  head.writeUInt32BE(n, 16);
  randomBytes(head.length - 32).copy(head, 32);
  const body = randomBytes(MB);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'video/mp4', 'content-length': size, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode < 300 ? resolve() : reject(new Error(`upload answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const chunk = sent === 0 ? head : body.subarray(0, Math.min(body.length, size - sent));
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

/** s3rver behind the strict SigV4 front the s3 package's tests start (packages/s3/test/support/s3-server.mjs). */
async function startS3(directory) {
  const support = fileURLToPath(new URL('../../packages/s3/test/support/', import.meta.url));
  const target = { S3_BUCKET: 'mediagen-bench', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: randomBytes(24).toString('base64url') };
  const child = spawn(
    process.execPath,
    [
      join(support, 's3-server.mjs'),
      directory,
      target.S3_BUCKET,
      target.S3_ACCESS_KEY_ID,
      target.S3_SECRET_ACCESS_KEY,
      join(support, 'cors.xml'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`s3-server.mjs exited (${code})`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line).url));
  });
  return {
    env: { ...target, S3_ENDPOINT: url },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

export async function run({ quick }) {
  const sizeMb = quick ? 20 : 100;
  const rounds = quick ? 1 : 3;
  const size = sizeMb * MB;
  const directory = mkdtempSync(join(tmpdir(), 'mediagen-bench-uploads-'));
  const files = join(directory, 'files');
  const bucket = join(directory, 's3');
  mkdirSync(files);
  const s3 = await startS3(bucket);
  const server = await startChild(here('./child/upload-server.mjs'), {
    env: { DIRECTORY: files, ...s3.env },
    execArgv: ['--expose-gc', ...(process.env.UPLOAD_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.UPLOAD_PROF}`] : [])],
  });
  const origin = server.info.origin;
  const cases = {
    fileFloor: (n) => send(`${origin}/floor/file`, size, n),
    fileHashFloor: (n) => send(`${origin}/floor/file-sha256`, size, n),
    file: (n) => send(`${origin}/api/uploads`, size, n, { 'x-user': `user-${n}` }),
    s3Floor: (n) => send(`${origin}/floor/s3`, size, n),
    s3: (n) => send(`${origin}/s3api/uploads`, size, n, { 'x-user': `user-${n}` }),
  };
  const names = Object.keys(cases);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  const growth = Object.fromEntries(names.map((n) => [n, []]));
  const ratios = { file: [], fileHash: [], s3: [] };
  try {
    for (let round = 0; round < rounds; round++) {
      // Interleaved, the order rotated each round.
      const order = names.map((_, i) => names[(i + round) % names.length]);
      const taken = {};
      for (const name of order) {
        const before = await server.ask({ cmd: 'mark' });
        const t0 = performance.now();
        await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => cases[name](round * 1000 + i)));
        taken[name] = performance.now() - t0;
        const peak = await server.ask({ cmd: 'peak' });
        times[name].push(taken[name]);
        growth[name].push(peak - before);
        // Kept between cases, the files would fill the disk: each case starts from empty folders.
        for (const dir of [files, bucket]) {
          for (const entry of readdirSync(dir))
            if (dir === files || entry !== 'mediagen-bench') rmSync(join(dir, entry), { recursive: true, force: true });
        }
        rmSync(join(bucket, 'mediagen-bench', 'bench'), { recursive: true, force: true });
      }
      ratios.file.push(taken.file / taken.fileFloor);
      ratios.fileHash.push(taken.file / taken.fileHashFloor);
      ratios.s3.push(taken.s3 / taken.s3Floor);
    }
  } finally {
    await server.stop();
    await s3.stop();
    rmSync(directory, { recursive: true, force: true });
  }
  const total = (CONCURRENT * size) / MB;
  const mbps = (ms) => `${((total / ms) * 1000).toFixed(0)} MB/s`;
  const timeOf = (name) => `${fmt.time(median(times[name]))} (${mbps(median(times[name]))})`;
  const range = (xs) => `${median(xs).toFixed(2)}× (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
  const rss = (name) => Math.max(...growth[name]);
  const common = `server in its own process (core's handler, createNodeHandler on node:http); ${CONCURRENT} uploads at once from the bench process over node:http, each an MP4 ftyp head then random bytes (sniffed as video/mp4); RSS growth = the server's peak RSS during the ${CONCURRENT} uploads less its RSS before them (max over rounds); ${rounds} rounds, cases interleaved, order rotated`;
  return {
    rows: [
      {
        id: 'uploads-file',
        what: `Uploads: ${CONCURRENT} concurrent ${sizeMb} MB uploads through the handler to FileMediaStore`,
        ours: `${timeOf('file')}; RSS growth ${fmt.bytes(rss('file'))}`,
        floor: `${timeOf('fileFloor')}, RSS growth ${fmt.bytes(rss('fileFloor'))}; with sha256 on the way ${timeOf('fileHashFloor')}`,
        ratio: `${range(ratios.file)} floor; ${range(ratios.fileHash)} the floor with sha256`,
        target: '≤ 1.2× floor, RSS growth < 64 MB in all',
        status: median(ratios.file) <= 1.2 && rss('file') < 64 * MB ? 'pass' : 'miss',
        note: `${common}; floor = the same server piping the request body to a file in the same folder (fs.createWriteStream); floor with sha256 = the same with a node:crypto sha256 of every byte on the way, which the store's content-addressed names need (an input is named by the digest of its bytes, issue 33 item 2)`,
      },
      {
        id: 'uploads-s3',
        what: `Uploads: ${CONCURRENT} concurrent ${sizeMb} MB uploads through the handler to S3MediaStore (s3rver)`,
        ours: `${timeOf('s3')}; RSS growth ${fmt.bytes(rss('s3'))}`,
        floor: `${timeOf('s3Floor')}, RSS growth ${fmt.bytes(rss('s3Floor'))}`,
        ratio: `${range(ratios.s3)} floor`,
        target: '≤ 1.2× floor, RSS growth < 64 MB in all',
        status: median(ratios.s3) <= 1.2 && rss('s3') < 64 * MB ? 'pass' : 'miss',
        note: `${common}; the bucket is s3rver 3.7.1 behind the s3 package's strict SigV4 front (packages/s3/test/support/s3-server.mjs, its own process; it takes each PUT and part whole before passing it on); floor = the same server streaming the request body as one plain PUT of its Content-Length to the same bucket (S3MediaStore.put with the size known); ours = the upload route, which tells the store the size the upload's Content-Length declares, so the store streams one PUT too (before that change: a multipart upload holding one 8 MiB part per upload, RSS growth 220 MB and 1.90× the floor in a quick run); then the store's move to the digest's name (a server-side copy and a delete)`,
      },
    ],
    raw: { sizeMb, rounds, times, growth, ratios },
  };
}

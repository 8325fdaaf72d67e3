import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestProject } from 'vitest/node';

export interface S3Target {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    s3: S3Target;
  }
}

/**
 * The bucket the tests use: `S3_URL` (with `S3_BUCKET`, `S3_REGION`, `S3_ACCESS_KEY_ID`,
 * `S3_SECRET_ACCESS_KEY`) names a real one (MinIO, R2, AWS); else s3rver is started as its own process,
 * behind the strict SigV4 front of s3-server.mjs, with a bucket and its CORS rules, on a free port.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { S3_URL, S3_BUCKET, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = process.env;
  if (S3_URL) {
    if (!S3_BUCKET || !S3_ACCESS_KEY_ID || !S3_SECRET_ACCESS_KEY)
      throw new Error('S3_URL needs S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY.');
    project.provide('s3', {
      endpoint: S3_URL,
      bucket: S3_BUCKET,
      region: S3_REGION ?? 'us-east-1',
      accessKeyId: S3_ACCESS_KEY_ID,
      secretAccessKey: S3_SECRET_ACCESS_KEY,
    });
    return async () => {};
  }
  const directory = mkdtempSync(join(tmpdir(), 'mediagen-s3-'));
  // s3rver knows one access key id, S3RVER; the front checks signatures with this run's own secret.
  const target = {
    bucket: 'mediagen-test',
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: randomBytes(24).toString('base64url'),
  };
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(import.meta.dirname, 's3-server.mjs'),
      directory,
      target.bucket,
      target.accessKeyId,
      target.secretAccessKey,
      join(import.meta.dirname, 'cors.xml'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('s3-server.mjs did not start in 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`s3-server.mjs exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { url: string }).url);
    });
  });
  project.provide('s3', { endpoint, ...target });
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(directory, { recursive: true, force: true });
  };
}

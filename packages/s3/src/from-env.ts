import { ConfigurationError } from '@mediagen/core';
import { S3MediaStore } from './store';

/** The settings `s3StoreFromEnv` reads (`MEDIAGEN_S3_ENDPOINT` and `AWS_SESSION_TOKEN` are optional). */
export const S3_ENV_SETTINGS = ['MEDIAGEN_S3_BUCKET', 'MEDIAGEN_S3_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const;

/**
 * A bucket from the environment, for tools that take files on a command line (the CLI, the MCP
 * server): `MEDIAGEN_S3_BUCKET`, `MEDIAGEN_S3_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * and for R2, MinIO or another S3-compatible service `MEDIAGEN_S3_ENDPOINT` (`AWS_SESSION_TOKEN`
 * with temporary credentials). Undefined when no bucket is set; a `ConfigurationError` naming
 * what is missing when only some are.
 */
export function s3StoreFromEnv(env: Record<string, string | undefined> = process.env): S3MediaStore | undefined {
  const read = (name: string) => env[name]?.trim() || undefined;
  const bucket = read('MEDIAGEN_S3_BUCKET');
  if (!bucket) return undefined;
  const missing = S3_ENV_SETTINGS.filter((name) => !read(name));
  if (missing.length > 0) throw new ConfigurationError(`MEDIAGEN_S3_BUCKET is set, but not ${missing.join(', ')}.`);
  const sessionToken = read('AWS_SESSION_TOKEN');
  const endpoint = read('MEDIAGEN_S3_ENDPOINT');
  return new S3MediaStore({
    bucket,
    region: read('MEDIAGEN_S3_REGION'),
    accessKeyId: read('AWS_ACCESS_KEY_ID') ?? '',
    secretAccessKey: read('AWS_SECRET_ACCESS_KEY') ?? '',
    ...(sessionToken ? { sessionToken } : {}),
    ...(endpoint ? { endpoint } : {}),
  });
}

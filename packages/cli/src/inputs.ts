import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_BASE_URL } from '@mediagen/core';
import { isLoopbackUrl, nodeMediaInputs, serveLoopbackMedia } from '@mediagen/core/node';
import type { MediaInputs, MediaStore } from '@mediagen/core/server';
import { S3_ENV_SETTINGS, s3StoreFromEnv } from '@mediagen/s3';
import type { GlobalOptions } from './context';
import { UsageError } from './errors';
import type { Io } from './io';

/** The input flags: each takes a file path, `-` (stdin), an https URL or a generation id. */
export interface InputFlags {
  inputImage?: string;
  inputVideo?: string;
  inputAudio?: string;
  referenceImage?: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FLAGS = {
  inputImage: ['input_image', '--input-image'],
  inputVideo: ['input_video', '--input-video'],
  inputAudio: ['input_audio', '--input-audio'],
} as const;

/** The S3 settings a remote service needs, named in the refusal. */
export const S3_SETTINGS = S3_ENV_SETTINGS;

export interface ResolvedInputs {
  /** The body fields from the flags: URLs and ids as typed, files as `file:` URLs or the stdin stream. */
  params: Record<string, unknown>;
  /** Whether any flag names a file (so the client needs a store). */
  files: boolean;
}

/**
 * The input flags as params. A value is a URL when it parses as `http(s)://`, a generation id when
 * it is a uuid, stdin when it is `-` (once), and otherwise a file path (the flag says it is an
 * input, so `photo.jpg` is a file here): resolved to a `file:` URL, which `nodeMediaInputs` reads.
 */
export function inputParams(flags: InputFlags, stdin: NodeJS.ReadableStream & { isTTY?: boolean }): ResolvedInputs {
  const params: Record<string, unknown> = {};
  let files = false;
  let stdinUsed = false;
  const one = (flag: string, value: string): unknown => {
    if (value === '') throw new UsageError(`${flag} needs a file path, - for stdin, an https URL or a generation id.`);
    if (/^https?:\/\//i.test(value) || UUID.test(value)) return value;
    files = true;
    if (value === '-') {
      if (stdinUsed) throw new UsageError('Only one input flag may read stdin (-).');
      if (stdin.isTTY)
        throw new UsageError(
          `${flag} - reads the file from stdin, and stdin is a terminal.`,
          `Pipe the file in: mediagen generate … ${flag} - < photo.jpg`,
        );
      stdinUsed = true;
      return stdin;
    }
    return pathToFileURL(resolve(value.startsWith('~/') ? join(homedir(), value.slice(2)) : value)).href;
  };
  for (const [key, [field, flag]] of Object.entries(FLAGS) as [keyof typeof FLAGS, (typeof FLAGS)[keyof typeof FLAGS]][]) {
    const value = flags[key];
    if (value !== undefined) params[field] = one(flag, value);
  }
  if (flags.referenceImage?.length) params.reference_images = flags.referenceImage.map((v) => one('--reference-image', v));
  return { params, files };
}

/** Where files go, and what serves them while the generation runs; `close` when the command ends. */
export interface InputStorage {
  inputs: MediaInputs;
  /** True when the links point at this process (the local emulator): it must stay up until the generation ends. */
  local: boolean;
  close(): Promise<void>;
}

/**
 * Against the local emulator (a loopback base URL), a `FileMediaStore` in a cache folder, its
 * links served by this process on loopback (the emulator, started with --allow-loopback-inputs,
 * fetches them when the generation starts). Against any other service, an S3-compatible bucket
 * from MEDIAGEN_S3_* and AWS_* (a loopback link is useless to it); without them, a usage error
 * naming them.
 */
export async function inputStorage(options: GlobalOptions, io: Io, env: NodeJS.ProcessEnv = process.env): Promise<InputStorage> {
  const base = options.baseUrl ?? (env.MEDIAGEN_BASE_URL?.trim() || DEFAULT_BASE_URL);
  if (env.MEDIAGEN_S3_BUCKET?.trim()) {
    io.addSecret(env.AWS_SECRET_ACCESS_KEY);
    io.addSecret(env.AWS_SESSION_TOKEN);
    let store: MediaStore | undefined;
    try {
      store = s3StoreFromEnv(env);
    } catch (error) {
      throw new UsageError((error as Error).message, `Set ${S3_SETTINGS.join(', ')}.`);
    }
    if (store) return { inputs: nodeMediaInputs({ store }), local: false, close: async () => {} };
  }
  if (!isLoopbackUrl(base)) {
    throw new UsageError(
      `Files as inputs need storage the service can fetch them from: set ${S3_SETTINGS.join(', ')} (and MEDIAGEN_S3_ENDPOINT for R2, MinIO or another S3-compatible service).`,
      'Or give an https URL (or a generation id) instead of a file.',
    );
  }
  // The files in `<cache>/mediagen/inputs`, served by this process on loopback.
  const cache = env.XDG_CACHE_HOME?.trim() || (env.HOME ? join(env.HOME, '.cache') : tmpdir());
  const media = await serveLoopbackMedia(join(cache, 'mediagen', 'inputs'));
  return { inputs: nodeMediaInputs({ store: media.store }), local: true, close: media.close };
}

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type GenerateParams, type Model, validateParams } from '@mediagen/core';
import { UsageError } from '../errors';

/** Most items one batch takes: a catalogue, a dataset. A larger run is split in several batches. */
export const MAX_ITEMS = 10_000;
/** Longest line: a 2,000-character prompt in any script, a negative prompt, three long presigned links. */
export const MAX_LINE_BYTES = 16 * 1024;
/** Largest jobs file read at all (every line is kept until the batch ends). */
export const MAX_FILE_BYTES = 32 * 1024 * 1024;
/** Params nest two levels (a list of reference images); anything deeper is not a request. */
const MAX_DEPTH = 3;

export interface Job {
  /** 1-based line in the file, for messages. */
  line: number;
  params: GenerateParams;
}

export interface JobsFile {
  jobs: Job[];
  /** SHA-256 of the file's bytes: a resume checks it is the same file. */
  digest: string;
}

const lineError = (file: string, line: number, what: string, next?: string) =>
  new UsageError(
    `${file} line ${line}: ${what}`,
    next ?? 'Each line is one JSON object of generate params, e.g. {"model":"image-fast","prompt":"a cat"}.',
  );

/**
 * Reads a JSON Lines file of generate params, one request per line (blank lines skipped),
 * streamed in 64 KiB chunks: a line over `MAX_LINE_BYTES`, a file over `MAX_FILE_BYTES` or
 * `MAX_ITEMS` lines, bytes that are not UTF-8, JSON that is not an object with a `model`, a
 * model the account does not list, or params its schema refuses: a usage error naming the line,
 * found before anything is priced or sent. Memory stays within the bounds above.
 */
export async function readJobs(path: string, models: readonly Model[]): Promise<JobsFile> {
  const bySlug = new Map(models.map((m) => [m.slug, m]));
  const jobs: Job[] = [];
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;
  let total = 0;

  const take = (bytes: Buffer) => {
    line++;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw lineError(path, line, 'not UTF-8 text.');
    }
    if (text.trim() === '') return;
    if (jobs.length >= MAX_ITEMS) {
      throw new UsageError(
        `${path} has more than ${MAX_ITEMS.toLocaleString('en-US')} requests.`,
        'Split it into several batches, each with its own --out.',
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw lineError(path, line, 'not valid JSON.');
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw lineError(path, line, 'not a JSON object.');
    if (depthOver(value, MAX_DEPTH)) throw lineError(path, line, `nests deeper than ${MAX_DEPTH} levels.`);
    const params = value as Record<string, unknown>;
    if (typeof params.model !== 'string' || params.model === '') throw lineError(path, line, 'no "model" (a slug from mediagen models).');
    if ('estimate' in params) throw lineError(path, line, '"estimate" is not a request param here: the batch prices every line first.');
    const model = bySlug.get(params.model);
    if (!model) {
      throw lineError(
        path,
        line,
        `model "${params.model.slice(0, 80)}" is not in this account's model list.`,
        'List the models this account can use with: mediagen models',
      );
    }
    const [issue] = validateParams(model, params);
    if (issue) throw lineError(path, line, `${issue.field}: ${issue.message}`, `See the model's params with: mediagen models --json`);
    jobs.push({ line, params: params as GenerateParams });
  };

  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > MAX_FILE_BYTES) {
      throw new UsageError(
        `${path} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB.`,
        'Split it into several batches, each with its own --out.',
      );
    }
    hash.update(chunk);
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (pendingBytes + piece.length > MAX_LINE_BYTES) throw tooLong(path, line + 1);
      take(stripCr(pending.length ? Buffer.concat([...pending, piece]) : piece));
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    pendingBytes += rest.length;
    if (pendingBytes > MAX_LINE_BYTES) throw tooLong(path, line + 1);
    // Copied: the stream may reuse its buffer.
    if (rest.length) pending.push(Buffer.from(rest));
  }
  if (pendingBytes) take(stripCr(Buffer.concat(pending)));
  if (jobs.length === 0) throw new UsageError(`${path} has no requests.`, 'Write one JSON object of generate params per line.');
  return { jobs, digest: hash.digest('hex') };
}

const tooLong = (path: string, line: number) =>
  lineError(path, line, `longer than ${MAX_LINE_BYTES / 1024} KiB.`, 'A request is a prompt and a few params; link large inputs by URL.');

const stripCr = (b: Buffer) => (b.length && b[b.length - 1] === 13 ? b.subarray(0, -1) : b);

/** Walked with a stack, never recursion. */
function depthOver(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, depth] = entry;
    if (depth > limit) return true;
    for (const child of Object.values(node as object)) if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

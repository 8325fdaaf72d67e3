import { MediaGenError } from '../errors';
import { createMediaInputs, type MediaInputs, type MediaInputsOptions, type OpenedMedia } from '../server/uploads/media-inputs';
import { ACCEPTED_FORMATS, INPUT_KINDS, type InputField } from '../wire/media';

export type NodeMediaInputsOptions = MediaInputsOptions;

/**
 * `mediaInputs` for Node: also a file path, read as a stream, and a Node stream
 * (`fs.createReadStream`, `process.stdin`). A string is a path only when it says so: it starts
 * with `./`, `../`, `/` or `~/` (`.\` and `..\` too), or is a `file:` URL. Anything else (an
 * `https://` link, a generation id) passes through unchanged, so a URL or an id is never read
 * from disk; a string that says it is a path and names no regular file is an error, never sent.
 *
 * `new MediaGenClient({ inputs: nodeMediaInputs({ store }) })`, then
 * `client.generations.create({ model: 'image-upscale', input_image: './photo.jpg' })`.
 */
export function nodeMediaInputs(options: NodeMediaInputsOptions): MediaInputs {
  return createMediaInputs(options, openNode, 'nodeMediaInputs');
}

/** Whether `value` is written as a local file path (see `nodeMediaInputs`). */
export function isFilePath(value: string): boolean {
  return /^(?:\.{1,2}[\\/]|\/|~\/|file:)/i.test(value);
}

async function openNode(value: unknown, field: InputField): Promise<OpenedMedia | undefined> {
  if (typeof value === 'string') return isFilePath(value) ? openPath(value, field) : undefined;
  if (isNodeReadable(value)) {
    const { Readable } = await import('node:stream');
    return { stream: Readable.toWeb(value as import('node:stream').Readable) as unknown as ReadableStream<Uint8Array> };
  }
  return undefined;
}

function isNodeReadable(value: unknown): boolean {
  const v = value as { pipe?: unknown; on?: unknown; read?: unknown } | null;
  return typeof v === 'object' && v !== null && typeof v.pipe === 'function' && typeof v.on === 'function' && typeof v.read === 'function';
}

async function openPath(value: string, field: InputField): Promise<OpenedMedia> {
  const [{ open }, { homedir }, { fileURLToPath }, { Readable }] = await Promise.all([
    import('node:fs/promises'),
    import('node:os'),
    import('node:url'),
    import('node:stream'),
  ]);
  let path: string;
  try {
    path = value.toLowerCase().startsWith('file:')
      ? fileURLToPath(value)
      : value.startsWith('~/')
        ? `${homedir()}${value.slice(1)}`
        : value;
  } catch {
    throw fileError(field, value, 'is not a file URL this system reads');
  }
  let handle: import('node:fs/promises').FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as { code?: string })?.code;
    throw fileError(
      field,
      value,
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'cannot be read (permission denied)'
          : `cannot be opened (${code ?? 'unknown'})`,
    );
  }
  try {
    // Checked on the open handle, so the file read is the one checked: a regular file (never a
    // folder, a device such as /dev/zero, a pipe), its size known up front.
    const info = await handle.stat();
    if (!info.isFile()) throw fileError(field, value, 'is not a regular file');
    const stream = Readable.toWeb(handle.createReadStream({ highWaterMark: 64 * 1024 })) as unknown as ReadableStream<Uint8Array>;
    return { stream, size: info.size };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

function fileError(field: InputField, path: string, what: string): MediaGenError {
  // The path is the caller's own; printed as JSON so no control character reaches a terminal raw.
  return new MediaGenError(`\`${field}\`: the file ${JSON.stringify(path.slice(0, 500))} ${what}.`, {
    code: 'INPUT_FILE_UNREADABLE',
    next: `Give the path of a ${ACCEPTED_FORMATS[INPUT_KINDS[field]]} file (./photo.jpg), or an https URL.`,
  });
}

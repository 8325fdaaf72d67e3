/**
 * The media a generation takes as input: which body fields carry it, which kinds the service
 * reads (told apart by their bytes, never by a header or a file name), and how large each may be.
 * The app's upload route and the emulator's input fetch share these, so both sides agree.
 */

export type InputKind = 'image' | 'video' | 'audio';

/** The body fields that carry an input link, and the kind of media each must be. */
export const INPUT_KINDS = {
  input_image: 'image',
  input_video: 'video',
  input_audio: 'audio',
  reference_images: 'image',
} as const satisfies Record<string, InputKind>;
export type InputField = keyof typeof INPUT_KINDS;

const MB = 1024 * 1024;
/**
 * Per-kind size limits (the service's own are not published; these are the project's, and the
 * emulator's): images 20 MB, video 200 MB, audio 50 MB.
 */
export const INPUT_MAX_BYTES: Readonly<Record<InputKind, number>> = { image: 20 * MB, video: 200 * MB, audio: 50 * MB };

/**
 * What an app's `POST {basePath}/uploads` answers (201), read by the browser (`@mediagen/react`):
 * `input` goes in the same user's submit.
 */
export interface UploadedInput {
  /** The token to put in `input_image`, `input_video`, `input_audio` or `reference_images` (only this user's submits take it). */
  input: string;
  kind: InputKind;
  /** The media type read from the bytes. */
  type: string;
  size: number;
  /** When the token stops being taken at submit (ISO 8601): upload again after it. */
  expires_at: string;
}

/** The file formats the service reads, by what their bytes say. */
export type MediaFormat = 'png' | 'jpeg' | 'webp' | 'mp4' | 'webm' | 'wav' | 'mp3';

/** Each format's media type (what a link serves it as) and kind. */
export const MEDIA_FORMATS: Readonly<Record<MediaFormat, { type: string; kind: InputKind }>> = {
  png: { type: 'image/png', kind: 'image' },
  jpeg: { type: 'image/jpeg', kind: 'image' },
  webp: { type: 'image/webp', kind: 'image' },
  mp4: { type: 'video/mp4', kind: 'video' },
  webm: { type: 'video/webm', kind: 'video' },
  wav: { type: 'audio/wav', kind: 'audio' },
  mp3: { type: 'audio/mpeg', kind: 'audio' },
};

/** The formats of each kind, in words (for the messages that refuse a file). */
export const ACCEPTED_FORMATS: Readonly<Record<InputKind, string>> = {
  image: 'PNG, JPEG or WebP',
  video: 'MP4 or WebM',
  audio: 'WAV or MP3',
};

/** How many leading bytes `sniffMedia` reads: enough for every magic number and the markup check. */
export const SNIFF_BYTES = 4096;

/**
 * The format the bytes are, from their magic numbers (the first `SNIFF_BYTES`); null for anything
 * else, and for a file that also reads as markup (an HTML or SVG polyglot: a browser that ignores
 * the served type could run it), whatever its first bytes claim.
 */
export function sniffMedia(bytes: Uint8Array): MediaFormat | null {
  const format = magic(bytes);
  return format && !hasMarkup(bytes.subarray(0, SNIFF_BYTES)) ? format : null;
}

function magic(b: Uint8Array): MediaFormat | null {
  const at = (i: number, ...v: number[]) => v.every((x, j) => b[i + j] === x);
  const ascii = (i: number, s: string) => at(i, ...[...s].map((c) => c.charCodeAt(0)));
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'jpeg';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'webp';
  if (ascii(0, 'RIFF') && ascii(8, 'WAVE')) return 'wav';
  if (ascii(4, 'ftyp')) return 'mp4';
  // EBML: a WebM names its DocType in the header, within the first bytes.
  if (at(0, 0x1a, 0x45, 0xdf, 0xa3)) return latin1(b.subarray(0, 64)).includes('webm') ? 'webm' : null;
  if (ascii(0, 'ID3')) return 'mp3';
  // An MPEG-1/2/2.5 Layer III frame header: 11 sync bits, a version, layer 01, a valid bitrate and rate.
  const [b0 = 0, b1 = 0, b2 = 0] = b;
  if (b0 === 0xff && (b1 & 0xe6) === 0xe2 && (b2 & 0xf0) !== 0xf0 && (b2 & 0x0c) !== 0x0c) return 'mp3';
  return null;
}

/**
 * Tags a browser's HTML sniffer acts on (WHATWG MIME Sniffing), and SVG: long enough that an
 * image's own bytes match one by chance about once in 10^5 files. (`<?xml` is left out: photos
 * carry XMP metadata, which is XML, and is no page.)
 */
const MARKUP = /<(?:!doctype html|html|head|body|script|iframe|svg|title|style|object|embed|meta|!--)/i;

function hasMarkup(head: Uint8Array): boolean {
  return MARKUP.test(latin1(head));
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

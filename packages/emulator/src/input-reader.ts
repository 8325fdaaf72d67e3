import { createHash } from 'node:crypto';
import type { GenerationError } from '@mediagen/core';
import { ACCEPTED_FORMATS, INPUT_KINDS, type InputKind, MEDIA_FORMATS, sniffMedia } from '@mediagen/core/wire';
import type { ResolvedConfig } from './config.js';
import type { Generation, Generations, InputReader, InputsRead } from './generations.js';
import { type Fetched, fetchInput, InputError, type InputPolicy } from './inputs.js';
import { jpegThumb } from './media/jpeg.js';
import { bytePattern, pngThumb, type Thumb, UnreadableImage } from './media/thumb.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The error code of a generation whose input could not be used. The contract's asynchronous
 * codes are a lowercase set whose complete list is not shown; of those it names
 * (`model_unavailable`, `rate_limited`, `content_blocked`, `upstream_detail`, `unknown`), the
 * closest is `upstream_detail`: the request was refused downstream of the submit, and the
 * message carries the detail (which input, and why). `retryable` says whether the same body
 * can succeed: true for a timeout, a cut connection or a 5xx of the input's host, false for a
 * refused address, a 4xx, a file over the limit or bytes that are not the media the field needs.
 */
export const INPUT_ERROR_CODE = 'upstream_detail';

export function policyOf(config: ResolvedConfig): InputPolicy {
  return { allowLoopback: config.allowLoopbackInputs, timeoutMs: config.inputTimeoutMs, maxBytes: config.inputMaxBytes };
}

/** A thumbnail of image bytes of a sniffed kind; WebP (not decoded here) gets the byte pattern. */
export async function thumbOf(kind: 'png' | 'jpeg' | 'webp', bytes: Buffer): Promise<Thumb> {
  if (kind === 'png') return pngThumb(bytes);
  if (kind === 'jpeg') return jpegThumb(bytes);
  return bytePattern(bytes);
}

interface Slot {
  name: string;
  kind: InputKind;
  value: string;
  /** Whether the value may be a generation id (input_image, input_video). */
  byId: boolean;
}

function slotsOf(g: Generation): Slot[] {
  const p = g.params;
  const slots: Slot[] = [];
  if (p.input_image !== undefined) slots.push({ name: 'input_image', kind: INPUT_KINDS.input_image, value: p.input_image, byId: true });
  if (p.input_video !== undefined) slots.push({ name: 'input_video', kind: INPUT_KINDS.input_video, value: p.input_video, byId: true });
  if (p.input_audio !== undefined) slots.push({ name: 'input_audio', kind: INPUT_KINDS.input_audio, value: p.input_audio, byId: false });
  p.reference_images.forEach((value, i) => {
    slots.push({ name: `reference_images[${i}]`, kind: INPUT_KINDS.reference_images, value, byId: false });
  });
  return slots;
}

/**
 * The emulator's input reader: every input of a generation in order (the first that fails
 * ends the generation), each fetched by the policy or, for a generation id, read from the
 * emulator's own output (its first file, the bytes its output link serves).
 */
export function inputReader(
  config: ResolvedConfig,
  generations: () => Generations,
  outputBytes: (g: Generation, index: number) => Buffer,
): InputReader {
  const policy = policyOf(config);
  return async (g, signal): Promise<InputsRead> => {
    const digest = createHash('sha256');
    let source: Thumb | undefined;
    for (const slot of slotsOf(g)) {
      try {
        let fetched: Fetched;
        if (slot.byId && UUID.test(slot.value)) {
          const from = generations().byId.get(slot.value);
          if (!from || from.account !== g.account || from.state !== 'completed') {
            throw new InputError('the generation it names is no longer available', false);
          }
          const bytes = outputBytes(from, 0);
          fetched = { bytes, size: bytes.length };
        } else {
          fetched = await fetchInput(slot.value, slot.kind, policy, signal);
        }
        const kind = sniffMedia(fetched.bytes);
        if (kind === null || MEDIA_FORMATS[kind].kind !== slot.kind) {
          throw new InputError(`it is not a ${ACCEPTED_FORMATS[slot.kind]} file${kind ? ` (it is ${kind})` : ''}`, false);
        }
        digest.update(`${slot.name}:${fetched.size}:`).update(fetched.bytes);
        if (kind === 'png' || kind === 'jpeg' || kind === 'webp') {
          const thumb = await thumbOf(kind, fetched.bytes);
          // input_image comes first: it is the picture when given, else the first reference image.
          source ??= thumb;
        }
      } catch (e) {
        if (signal.aborted) return { ok: false, error: failure(slot, new InputError('the emulator was reset', true)) };
        const err =
          e instanceof InputError ? e : e instanceof UnreadableImage ? new InputError(e.message, false) : new InputError(String(e), false);
        return { ok: false, error: failure(slot, err) };
      }
    }
    return { ok: true, key: digest.digest('hex').slice(0, 16), ...(source ? { source } : {}) };
  };
}

const failure = (slot: Slot, e: InputError): GenerationError => ({
  code: INPUT_ERROR_CODE,
  message: `The input ${slot.name} could not be used: ${e.message}.`,
  retryable: e.retryable,
});

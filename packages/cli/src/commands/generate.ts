import { randomUUID } from 'node:crypto';
import { isMediaGenError, type TypedGenerateParams } from '@mediagen/core';
import { IDEMPOTENCY_KEY_MAX, isIdempotencyKey } from '@mediagen/core/wire';
import { clientFrom, type GlobalOptions } from '../context';
import { UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { shellQuote } from '../format';
import { type InputFlags, type InputStorage, inputParams, inputStorage } from '../inputs';
import { onInterrupt } from '../interrupt';
import type { Io } from '../io';
import { createSlotWaitLine } from '../queue-line';
import { resultsAsked } from '../results-asked';
import { type FollowOptions, follow } from './follow';
import { findModel } from './lookup';
import { type ParamFlags, requestParams } from './request-params';
import { StoppedUnsent, type SubmitSends, submitWhenSlotFree } from './submit-when-free';

export interface GenerateOptions extends GlobalOptions, ParamFlags, FollowOptions, InputFlags {
  model?: string;
  wait?: boolean;
  idempotencyKey?: string;
}

export async function generateCommand(options: GenerateOptions, io: Io): Promise<number> {
  // Checked before anything is sent or printed: a key that cannot be sent must not be offered
  // back in a "resubmit with" line, and the refusal names the flag.
  if (options.idempotencyKey !== undefined && !isIdempotencyKey(options.idempotencyKey)) {
    throw new UsageError(
      `--idempotency-key must be 1-${IDEMPOTENCY_KEY_MAX} visible ASCII characters (no line breaks, no other alphabets).`,
      'Paste the key an earlier submit printed, or leave the flag out for a new one.',
    );
  }
  const inputs = inputParams(options, process.stdin);
  // Files need somewhere the service can fetch them from: set up (or refused) before anything is sent.
  const storage = inputs.files ? await inputStorage(options, io) : undefined;
  try {
    return await submitAndFollow(options, io, inputs.params, storage);
  } finally {
    await storage?.close();
  }
}

async function submitAndFollow(
  options: GenerateOptions,
  io: Io,
  inputs: Record<string, unknown>,
  storage: InputStorage | undefined,
): Promise<number> {
  const idempotencyKey = options.idempotencyKey ?? randomUUID();
  const sends: SubmitSends = { sent: false, mayExist: false };
  const client = clientFrom(options, io, process.env, {
    ...(storage ? { inputs: storage.inputs } : {}),
    // Called synchronously right before each send (core): no abort can fall between the send
    // point and this, so `sent` false means every attempt so far was refused (429) or none went.
    onRequest: (info) => {
      if (info.method === 'POST' && info.idempotencyKey === idempotencyKey) sends.sent = true;
    },
    // An attempt with no answer, a 5xx or a 409 may have created the generation (the service
    // may even count it against the slots and answer the resend 429): never "nothing billed" after one.
    onResponse: (info) => {
      const refused = info.status !== undefined && info.status < 500 && info.status !== 409;
      if (info.method === 'POST' && info.idempotencyKey === idempotencyKey && !refused) sends.mayExist = true;
    },
  });
  const model = await findModel(client, options.model);
  const params = { ...requestParams(model, options), ...inputs };
  const resubmit = resubmitCommand(options, idempotencyKey);
  const startedAt = Date.now();
  const submitted = await onInterrupt(async (signal) => {
    // Printed before sending (and with Ctrl-C already handled): if anything interrupts the
    // submit, this line is on screen.
    io.err(`idempotency key ${idempotencyKey} (to resubmit without a second charge: ${resubmit})`);
    const waitLine = createSlotWaitLine(io);
    try {
      return await submitWhenSlotFree(client, params as TypedGenerateParams, { idempotencyKey, signal, sends, waitLine });
    } catch (error) {
      // Off the screen before any message: it would otherwise go on the wait line's row.
      waitLine.stop();
      if (error instanceof StoppedUnsent) {
        io.err('Stopped while waiting for a submit slot: no generation was created and nothing was billed.');
        io.err(`To submit it later (never billed twice): ${resubmit}`);
        return 'stopped' as const;
      }
      if (signal.aborted) {
        io.err('Interrupted before the service confirmed the submit: it may or may not have been created.');
        io.err(`Resubmit with the same key (never billed twice): ${resubmit}`);
        return undefined;
      }
      if (isMediaGenError(error) && error.retryable) io.err(`Safe to resubmit with the same key: ${resubmit}`);
      throw error;
    } finally {
      waitLine.stop();
    }
  });
  if (submitted === 'stopped') return EXIT.stoppedUnsent;
  if (!submitted) return EXIT.interrupted;

  const id = submitted.generation_id;
  if (!options.wait) {
    if (options.json) {
      io.json({ ...submitted, idempotency_key: idempotencyKey });
    } else {
      io.out(`submitted ${id} · ${submitted.credits_estimate} credits reserved · request ${submitted.request_id}`);
      io.err(`Follow it with: mediagen wait ${shellQuote(id)}`);
    }
    if (storage?.local) {
      // The emulator fetches the files from this process when the generation starts.
      io.err('Serving the input files until the generation ends…');
      await client.generations.wait(id).catch(() => {});
    }
    return EXIT.ok;
  }
  io.err(`submitted ${id} · ${submitted.credits_estimate} credits reserved · request ${submitted.request_id}`);
  return follow(client, io, id, model.kind, options, {
    results: resultsAsked(model, params),
    extra: { idempotency_key: idempotencyKey },
    startedAt,
    shape: params,
  });
}

/**
 * The same command with the key it was sent with. Never the API key, and not --base-url
 * either (a URL can carry credentials): both come from the environment or are added back.
 */
function resubmitCommand(options: GenerateOptions, idempotencyKey: string): string {
  const parts = ['mediagen', 'generate', '--model', shellQuote(options.model ?? '')];
  if (options.prompt !== undefined) parts.push('--prompt', shellQuote(options.prompt));
  for (const param of options.param ?? []) parts.push('--param', shellQuote(param));
  for (const [flag, value] of [
    ['--input-image', options.inputImage],
    ['--input-video', options.inputVideo],
    ['--input-audio', options.inputAudio],
    ...(options.referenceImage ?? []).map((v) => ['--reference-image', v]),
  ] as const) {
    if (value !== undefined) parts.push(flag, shellQuote(value));
  }
  parts.push('--idempotency-key', shellQuote(idempotencyKey));
  if (options.wait) parts.push('--wait');
  if (options.out) parts.push('--out', shellQuote(options.out));
  if (options.download === false) parts.push('--no-download');
  if (options.json) parts.push('--json');
  return parts.join(' ');
}

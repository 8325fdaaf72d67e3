import type { EstimateResponse, GenerateParams, SubmitResponse } from '@mediagen/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import { type GenerationRequestError, networkError, requestErrorOf } from './errors';
import { readJson } from './read-json';
import { routeUrl } from './routes';
import { createSubmissionKeys, paramsFingerprint } from './submission-keys';
import { readSubmitAnswer, type SubmitQueue } from './submit-stream';
import { createUploadCache, type UploadProgress, type WithFiles } from './upload';

export interface UseGenerateOptions<Params extends GenerateParams = GenerateParams> {
  /** Where the app mounts `createMediaGenHandler`. Default `/api` (`POST /api/generations`, `POST /api/estimate`, `POST /api/uploads`). */
  basePath?: string;
  /**
   * The params being edited: what `submit()` sends when called without any, and what is estimated.
   * `input_image`, `input_video`, `input_audio` and entries of `reference_images` may be a `File`
   * or `Blob`: it is uploaded to `POST {basePath}/uploads` first (once per file object), and its
   * token sent in its place.
   */
  params?: WithFiles<Params> | undefined;
  /**
   * Ask the price (`POST /estimate`, nothing charged) each time `params` settle. Default false.
   * A file in `params` is uploaded to be estimated (the service needs its input to quote): that
   * upload is the one the submit then sends.
   */
  estimate?: boolean;
  /** How long `params` must stay the same before they are estimated. Default 300 ms. */
  estimateDelayMs?: number;
  /** After each accepted submit (the 202 body). */
  onSubmitted?(generation: SubmitResponse): void;
  /** After each submit that was not accepted. */
  onError?(error: GenerationRequestError): void;
  /** For tests and other runtimes. */
  fetch?: typeof fetch;
}

/**
 * What `stop()` did, as the app's handler answered it (`POST {basePath}/generations/:id/cancel`).
 * `charged` is false only when the handler said so: the submit never reached the service.
 * - `stopped`: it was never sent; nothing was charged.
 * - `abandoned`: the service has it: it goes on and is billed; only following it stopped.
 * - `finished`: it had already ended (billed as it ended).
 * - `unknown`: the handler could not say (no such submit recorded yet, a handler without a
 *   source that can cancel, or no answer): it may have been sent and billed.
 */
export interface StopResult {
  outcome: 'stopped' | 'abandoned' | 'finished' | 'unknown';
  charged: boolean | null;
}

export interface GenerateState<Params extends GenerateParams = GenerateParams> {
  /**
   * Submits `params` (default: `options.params`): uploads the files in its input fields first
   * (those not uploaded yet), then sends one submit with their tokens. Resolves with the 202 body,
   * or undefined when refused (see `error`, which also carries a refused upload). Never rejects.
   */
  submit(params?: WithFiles<Params>): Promise<SubmitResponse | undefined>;
  isSubmitting: boolean;
  /** Whether files of `params` (or of a submit) are being uploaded. */
  isUploading: boolean;
  /**
   * Bytes sent of the uploads in flight, undefined when none is. Moves as the bytes go where the
   * browser has XMLHttpRequest; with the `fetch` option, only at the start and the end.
   */
  uploadProgress: UploadProgress | undefined;
  /** Why the last submit was not accepted; cleared by the next one. */
  error: GenerationRequestError | undefined;
  /** The last accepted submit (`generation_id`, `status`, `credits_reserved`…); pass its id to `useGeneration`. */
  generation: SubmitResponse | undefined;
  /** The price of `options.params` (with `estimate: true`). */
  estimate: EstimateResponse | undefined;
  /** Why those params could not be estimated (422 for an incomplete form). */
  estimateError: GenerationRequestError | undefined;
  isEstimating: boolean;
  /**
   * Whether a submit was sent and has no answer yet: it may be waiting for a slot in the app's
   * gate (then `queue` says where).
   */
  isWaiting: boolean;
  /**
   * Where the submit waits for a slot in the app's gate (its place, the limit that holds it, the
   * earliest it can go), while it waits and the handler says so; undefined otherwise. Nothing is
   * sent to the service, nor charged, while it waits: `stop()` then stops it for good.
   */
  queue: SubmitQueue | undefined;
  /**
   * Stops the submission in flight, or the last accepted one. Before the answer: aborts the
   * submit (a handler on the generation ledger then stops it if it was not sent) and asks the
   * handler to cancel it by its key. After the 202: asks the handler to cancel it by id (it goes
   * on and is billed; stop following it: `stopped` is set). Resolves with what the handler said
   * (also in `stopped`); never rejects.
   */
  stop(): Promise<StopResult | undefined>;
  /** What the last `stop()` did; cleared by the next submit. */
  stopped: StopResult | undefined;
  isStopping: boolean;
  /** Forgets the last submit, its error and its stop. */
  reset(): void;
}

/**
 * Submits to the app's handler with one `Idempotency-Key` per submission: a double click or a
 * retry of the same params is the same submission (the service bills it once; a second
 * `submit()` while one is in flight returns the same promise); changed params are a new one.
 * Errors are values (`error`), never thrown. Files in the input fields are uploaded first, each
 * once: a retry of the same submission sends the same tokens, so the same body under its key.
 */
export function useGenerate<Params extends GenerateParams = GenerateParams>(
  options: UseGenerateOptions<Params> = {},
): GenerateState<Params> {
  const { basePath = '/api' } = options;
  const latest = useRef(options);
  latest.current = options;
  const keys = useRef(createSubmissionKeys());
  const [uploadProgress, setUploadProgress] = useState<UploadProgress | undefined>();
  const uploadsRef = useRef<ReturnType<typeof createUploadCache> | undefined>(undefined);
  uploadsRef.current ??= createUploadCache(setUploadProgress);
  const uploads = uploadsRef.current;
  const inFlight = useRef<
    { fingerprint: string; promise: Promise<SubmitResponse | undefined>; key: string; controller: AbortController } | undefined
  >(undefined);
  const [submitting, setSubmitting] = useState(0);
  const [error, setError] = useState<GenerationRequestError | undefined>();
  const [generation, setGeneration] = useState<SubmitResponse | undefined>();
  const [waiting, setWaiting] = useState(0);
  const [queue, setQueue] = useState<SubmitQueue | undefined>();
  const [stopped, setStopped] = useState<StopResult | undefined>();
  const [stopping, setStopping] = useState(false);
  const accepted = useRef<SubmitResponse | undefined>(undefined);

  const submit = useCallback(
    (given?: WithFiles<Params>): Promise<SubmitResponse | undefined> => {
      const params = given ?? latest.current.params;
      // A file counts by which file it is (its object), so two files are two submissions.
      const identity = uploads.identity(params);
      const fingerprint = paramsFingerprint(identity);
      if (inFlight.current?.fingerprint === fingerprint) return inFlight.current.promise;
      const key = keys.current.keyFor(identity);
      const request = latest.current.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
      setSubmitting((n) => n + 1);
      setError(undefined);
      setStopped(undefined);
      const controller = new AbortController();
      /** One submit of the prepared params: the 202 body, or why not. */
      const send = async (body: unknown): Promise<{ submitted: SubmitResponse } | { failure: GenerationRequestError }> => {
        setWaiting((n) => n + 1);
        try {
          const response = await request(routeUrl(basePath, 'generations'), {
            method: 'POST',
            // Event stream too: a submit that waits in the app's gate is told where it stands.
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'idempotency-key': key },
            body: JSON.stringify(body),
            credentials: 'same-origin',
            signal: controller.signal,
          });
          const read = await readSubmitAnswer(response, setQueue);
          // A stream cut before its answer: as a cut-off JSON answer (it may have been sent).
          const status = read ? read.status : 200;
          const answer = read?.body;
          if (status >= 200 && status < 300 && typeof (answer as SubmitResponse | undefined)?.generation_id === 'string') {
            keys.current.settle(key);
            accepted.current = answer as SubmitResponse;
            setGeneration(answer as SubmitResponse);
            latest.current.onSubmitted?.(answer as SubmitResponse);
            return { submitted: answer as SubmitResponse };
          }
          // A success without a readable generation (the answer cut off on the way, a proxy's page)
          // may have billed: it stays retryable, so the resend carries the same key and the
          // handler answers the same generation instead of billing a second one.
          return {
            failure:
              status < 300
                ? networkError(new Error('The answer was cut off before the generation could be read.'))
                : requestErrorOf(status, status === response.status ? response.statusText : '', answer),
          };
        } catch (thrown) {
          return { failure: networkError(thrown) };
        } finally {
          setWaiting((n) => n - 1);
          setQueue(undefined);
        }
      };
      const promise = (async () => {
        // Uploads first (each file once, reused by a retry), then one submit with the tokens.
        const prepared = await uploads.prepare(params ?? {}, { basePath, fetch: latest.current.fetch });
        const sent = prepared.error ? { failure: prepared.error } : controller.signal.aborted ? undefined : await send(prepared.params);
        // Stopped (`stop()`): what happened is `stopped`, not an error; the next submit is a new one.
        if (!sent || controller.signal.aborted) {
          keys.current.settle(key);
          return undefined;
        }
        if ('submitted' in sent) return sent.submitted;
        const { failure } = sent;
        // A retryable failure keeps the key: resending the same params cannot bill twice.
        if (!failure.retryable) keys.current.settle(key);
        setError(failure);
        latest.current.onError?.(failure);
        return undefined;
      })().finally(() => {
        if (inFlight.current?.promise === promise) inFlight.current = undefined;
        setSubmitting((n) => n - 1);
      });
      inFlight.current = { fingerprint, promise, key, controller };
      return promise;
    },
    [basePath, uploads],
  );

  const stop = useCallback(async (): Promise<StopResult | undefined> => {
    const open = inFlight.current;
    // Before the answer: abort the submit, then name it by its key; after the 202: by its id.
    const id = open ? open.key : accepted.current?.generation_id;
    if (id === undefined) return undefined;
    open?.controller.abort();
    if (open) inFlight.current = undefined;
    setStopping(true);
    const request = latest.current.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
    let result: StopResult = { outcome: 'unknown', charged: null };
    try {
      const response = await request(routeUrl(basePath, 'cancel', id), {
        method: 'POST',
        headers: { accept: 'application/json' },
        credentials: 'same-origin',
      });
      const answer = (await readJson(response)) as Partial<StopResult> | undefined;
      const outcome = answer?.outcome;
      if (response.ok && (outcome === 'stopped' || outcome === 'abandoned' || outcome === 'finished')) {
        // Nothing charged only on the handler's word.
        result = { outcome, charged: !(answer?.charged === false && outcome === 'stopped') };
      }
    } catch {
      // No answer: unknown, and it may have been billed.
    }
    setStopped(result);
    setStopping(false);
    return result;
  }, [basePath]);

  const estimate = useEstimate(options, basePath, uploads);
  const reset = useCallback(() => {
    setError(undefined);
    setGeneration(undefined);
    setStopped(undefined);
    accepted.current = undefined;
  }, []);
  return {
    submit,
    isSubmitting: submitting > 0,
    isUploading: uploadProgress !== undefined,
    uploadProgress,
    error,
    generation,
    ...estimate,
    isWaiting: waiting > 0,
    queue,
    stop,
    stopped,
    isStopping: stopping,
    reset,
  };
}

function useEstimate(options: UseGenerateOptions<GenerateParams>, basePath: string, uploads: ReturnType<typeof createUploadCache>) {
  const [state, setState] = useState<{ fingerprint: string; estimate?: EstimateResponse; error?: GenerationRequestError } | undefined>();
  const enabled = options.estimate === true && options.params !== undefined;
  const fingerprint = enabled ? paramsFingerprint(uploads.identity(options.params)) : undefined;
  const params = useRef(options.params);
  params.current = options.params;
  const request = useRef(options.fetch);
  request.current = options.fetch;
  const delay = options.estimateDelayMs ?? 300;

  useEffect(() => {
    if (fingerprint === undefined) return;
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      const send = request.current ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
      try {
        // The service quotes only with the input there: the files are uploaded (once; the submit reuses them).
        const prepared = await uploads.prepare(params.current, { basePath, fetch: request.current });
        if (controller.signal.aborted) return;
        if (prepared.error) return setState({ fingerprint, error: prepared.error });
        const response = await send(routeUrl(basePath, 'estimate'), {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(prepared.params),
          signal: controller.signal,
          credentials: 'same-origin',
        });
        const body = await readJson(response);
        if (controller.signal.aborted) return;
        if (response.ok) setState({ fingerprint, estimate: body as EstimateResponse });
        else setState({ fingerprint, error: requestErrorOf(response.status, response.statusText, body) });
      } catch (thrown) {
        if (!controller.signal.aborted) setState({ fingerprint, error: networkError(thrown) });
      }
    }, delay);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [fingerprint, basePath, delay, uploads]);

  const current = state && state.fingerprint === fingerprint ? state : undefined;
  return { estimate: current?.estimate, estimateError: current?.error, isEstimating: fingerprint !== undefined && current === undefined };
}

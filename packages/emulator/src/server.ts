import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '@mediagen/core/wire';
import type { Account } from './accounts.js';
import {
  baseOf,
  getCredits,
  getGeneration,
  hashOf,
  hitRateLimit,
  listModels,
  parseSubmit,
  serveOutput,
  submit,
  submitHeaders,
} from './api.js';
import { BODY_LIMIT } from './bounds.js';
import { CREDITS_PATH, GENERATE_PATH, GENERATIONS_PATH, H, MODELS_PATH, OUTPUT_LINK_PREFIX } from './constants.js';
import { controlRefusal, handleControl, isLoopback } from './controls.js';
import { DEFAULT_MESSAGES, EmulatorHttpError } from './errors.js';
import type { Fault } from './faults.js';
import { bodyTooLarge, decodeSegment, type Reply, RequestIds, readBody, send, toErrorReply } from './http.js';
import type { EmulatorState } from './state.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const toReply = (e: unknown): Reply => {
  if (e instanceof EmulatorHttpError) return toErrorReply(e);
  process.emitWarning(`mediagen-emulator: ${(e as Error)?.stack ?? String(e)}`);
  return toErrorReply(new EmulatorHttpError(500, 'INTERNAL_ERROR', 'Unexpected emulator error.'));
};

function faultReply(f: Fault): Reply {
  const code = f.code ?? 'INTERNAL_ERROR';
  const headers: Record<string, string> = {};
  if (f.status === 429) headers[H.retryAfter] = '1';
  if (f.status === 503) headers[H.retryAfter] = '60';
  if (code === 'IDEMPOTENT_REQUEST_IN_FLIGHT') headers[H.retryAfter] = '3';
  return toErrorReply(
    // A test may inject any code, one the table lacks included (a newer service's): not checked.
    new EmulatorHttpError(
      f.status ?? 500,
      code as ErrorCode,
      f.message ?? DEFAULT_MESSAGES[code] ?? `Injected fault ${code}.`,
      {},
      headers,
    ),
  );
}

/**
 * Applies a fault at its point; returns true when it ended the request (reset or error sent).
 * `beforeEnd` runs after the delay and just before the request ends, so state held for the
 * request (an idempotency claim) stays held for as long as the request seems to run.
 */
async function applyFault(
  f: Fault,
  res: ServerResponse,
  rid: string,
  extraHeaders: Record<string, string> = {},
  beforeEnd?: () => void,
): Promise<boolean> {
  if (f.delayMs > 0) await sleep(f.delayMs);
  if (!f.reset && f.status === undefined) return false;
  beforeEnd?.();
  if (f.reset) res.socket?.destroy();
  else {
    const reply = faultReply(f);
    send(res, rid, { ...reply, headers: { ...reply.headers, ...extraHeaders } });
  }
  return true;
}

type Endpoint = 'generate' | 'status' | 'models' | 'credits' | 'output';

/**
 * The request listener. `inFlight` records which response each socket is working on, so the
 * server's `clientError` listener (a body that stalls past the request timeout) can answer
 * through it instead of writing over it.
 */
export function createHandler(
  s: EmulatorState,
  inFlight: WeakMap<Duplex, ServerResponse> = new WeakMap(),
  ids: RequestIds = new RequestIds(),
) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const rid = ids.next();
    const socket = req.socket;
    inFlight.set(socket, res);
    res.once('close', () => {
      if (inFlight.get(socket) === res) inFlight.delete(socket);
    });
    handle(s, req, res, rid).catch((e: unknown) => {
      if (!res.headersSent && !res.destroyed) send(res, rid, toReply(e));
    });
  };
}

async function handle(s: EmulatorState, req: IncomingMessage, res: ServerResponse, rid: string): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const method = req.method ?? 'GET';

  // The body cap holds on every route, including those that never read a body.
  if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT) {
    send(res, rid, toErrorReply(bodyTooLarge()));
    return;
  }

  if (path.startsWith('/__emulator/')) {
    if (!isLoopback(req)) {
      send(res, rid, toErrorReply(new EmulatorHttpError(404, 'NOT_FOUND', 'Not found.')));
      return;
    }
    const refusal = controlRefusal(req);
    if (refusal) {
      send(res, rid, toErrorReply(refusal));
      return;
    }
    send(res, rid, await handleControl(s, req, path, q < 0 ? '' : url.slice(q + 1), method));
    return;
  }
  // The endpoints as the contract names them (`@mediagen/core/wire`), nothing restated here.
  const id = path.startsWith(`${GENERATIONS_PATH}/`) ? path.slice(GENERATIONS_PATH.length + 1) : undefined;
  const link = path.startsWith(OUTPUT_LINK_PREFIX) ? path.slice(OUTPUT_LINK_PREFIX.length).split('/') : undefined;
  const head = method === 'HEAD';

  let endpoint: Endpoint;
  let allow: string;
  if (path === GENERATE_PATH) [endpoint, allow] = ['generate', 'POST'];
  else if (path === MODELS_PATH) [endpoint, allow] = ['models', 'GET'];
  else if (path === CREDITS_PATH) [endpoint, allow] = ['credits', 'GET'];
  else if (id && !id.includes('/')) [endpoint, allow] = ['status', 'GET'];
  else if (link?.length === 5) [endpoint, allow] = ['output', 'GET, HEAD'];
  else {
    send(res, rid, toErrorReply(new EmulatorHttpError(404, 'NOT_FOUND', `No route ${method} ${path}.`)));
    return;
  }
  if (!allow.split(', ').includes(method)) {
    send(res, rid, toErrorReply(new EmulatorHttpError(405, 'METHOD_NOT_ALLOWED', `Use ${allow} on ${path}.`, {}, { allow })));
    return;
  }

  if (endpoint === 'generate') {
    await handleGenerate(s, req, res, rid);
    return;
  }

  const fault = s.faults.take(endpoint);
  if (fault?.when === 'before' && (await applyFault(fault, res, rid))) return;
  let reply: Reply;
  try {
    if (endpoint === 'output') {
      reply = serveOutput(s, link as string[]);
    } else {
      const account = s.accounts.authenticate(req.headers.authorization);
      if (endpoint === 'models') reply = listModels(account, rid);
      else if (endpoint === 'credits') reply = getCredits(account, rid);
      else {
        // A malformed escape cannot name any generation: the same 404 as an unknown id.
        const decoded = decodeSegment(id as string);
        if (decoded === null) throw new EmulatorHttpError(404, 'NOT_FOUND', 'No generation with this id.');
        reply = getGeneration(s, account, decoded, baseOf(req, s.baseUrl), rid);
      }
    }
  } catch (e) {
    reply = toReply(e);
  }
  if (fault?.when === 'after' && (await applyFault(fault, res, rid))) return;
  send(res, rid, reply, head);
}

/**
 * POST /generate. Order: credentials, body, rate window, idempotency claim, injected fault,
 * then validation, pricing and enqueue. The idempotency key stays "in flight" until the
 * enqueue finishes, which is the window rule 3 (409, Retry-After: 3) describes.
 */
async function handleGenerate(s: EmulatorState, req: IncomingMessage, res: ServerResponse, rid: string): Promise<void> {
  let account: Account | null = null;
  let estimate = false;
  let key: string | undefined;
  let claimed = false;
  let reply: Reply;
  let fault: Fault | null = null;
  let accepted: Reply | null = null;
  try {
    const raw = await readBody(req);
    account = s.accounts.authenticate(req.headers.authorization);
    const parsed = parseSubmit(raw);
    estimate = parsed.estimate;
    hitRateLimit(s, account, estimate);
    const k = req.headers[H.idempotencyKey];
    key = typeof k === 'string' && k !== '' && !estimate ? k : undefined;
    if (key !== undefined) {
      const claim = s.idempotency.claim(account.id, key, hashOf(parsed));
      if (claim.kind === 'in_flight') {
        throw new EmulatorHttpError(
          409,
          'IDEMPOTENT_REQUEST_IN_FLIGHT',
          'A request with this Idempotency-Key is still being enqueued.',
          {},
          { [H.retryAfter]: '3' },
        );
      }
      if (claim.kind === 'reused') {
        throw new EmulatorHttpError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different body.', {
          details: { field: 'Idempotency-Key' },
        });
      }
      if (claim.kind === 'replay') {
        const stored = claim.response;
        send(res, rid, {
          status: stored.status,
          body: stored.body,
          headers: { ...stored.headers, ...submitHeaders(s, account, false), 'idempotent-replayed': 'true' },
        });
        return;
      }
      claimed = true;
    }
    fault = s.faults.take('generate');
    if (fault?.when === 'before') {
      const caller = account;
      // A request failed before enqueue leaves nothing behind: its claim is given back.
      const releaseClaim = () => {
        if (claimed && key !== undefined) s.idempotency.release(caller.id, key);
        claimed = false;
      };
      if (await applyFault(fault, res, rid, submitHeaders(s, caller, estimate), releaseClaim)) return;
    }
    reply = submit(s, account, parsed, rid);
    if (reply.status === 202) accepted = reply;
    if (claimed && key !== undefined) {
      s.idempotency.complete(account.id, key, { status: reply.status, body: reply.body ?? {}, headers: {} });
      claimed = false;
    }
  } catch (e) {
    if (accepted) {
      // Credits are reserved: the answer is the 202, whatever failed after. The key stays
      // claimed, so a retry cannot create (and bill) a second generation.
      process.emitWarning(`mediagen-emulator: after enqueue: ${(e as Error)?.stack ?? String(e)}`);
      reply = accepted;
    } else {
      if (claimed && account && key !== undefined) s.idempotency.release(account.id, key);
      reply = toReply(e);
    }
  }
  if (account) reply.headers = { ...reply.headers, ...submitHeaders(s, account, estimate) };
  if (fault?.when === 'after' && (await applyFault(fault, res, rid))) return;
  send(res, rid, reply);
}

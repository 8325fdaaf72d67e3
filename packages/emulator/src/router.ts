import { ENDPOINTS, type EndpointName, matchEndpoint, NO_SUCH_ROUTE_NEXT } from '@mediagen/core/wire';
import type { Account } from './accounts.js';
import { getCredits, getGeneration, hashOf, hitRateLimit, listModels, parseSubmit, serveOutput, submit, submitHeaders } from './api.js';
import { BODY_LIMIT } from './bounds.js';
import { H } from './constants.js';
import { handleControl } from './controls.js';
import { DEFAULT_MESSAGES, EmulatorHttpError } from './errors.js';
import type { Fault } from './faults.js';
import { bodyTooLarge, decodeSegment, errorReply, type Reply, toErrorReply } from './http.js';
import type { Answer, EmulatorRequest } from './request.js';
import type { EmulatorState } from './state.js';

export const toReply = (e: unknown): Reply => {
  if (e instanceof EmulatorHttpError) return toErrorReply(e);
  process.emitWarning(`mediagen-emulator: ${(e as Error)?.stack ?? String(e)}`);
  return toErrorReply(new EmulatorHttpError('INTERNAL_ERROR', 'Unexpected emulator error.'));
};

const answer = (reply: Reply, rid: string, head = false): Answer => ({ reply, rid, head });

function faultReply(f: Fault): Reply {
  const code = f.code ?? 'INTERNAL_ERROR';
  const headers: Record<string, string> = {};
  if (f.status === 429) headers[H.retryAfter] = '1';
  if (f.status === 503) headers[H.retryAfter] = '60';
  if (code === 'IDEMPOTENT_REQUEST_IN_FLIGHT') headers[H.retryAfter] = '3';
  // The test's words, not the emulator's: any status with any code, one the table lacks
  // included (a newer service's), so not an `EmulatorHttpError`.
  return errorReply(f.status ?? 500, code, f.message ?? DEFAULT_MESSAGES[code] ?? `Injected fault ${code}.`, {}, headers);
}

/**
 * Applies a fault at its point; returns the answer that ends the request (a reset or an
 * error), or null when the fault only held or delayed it. A `hold` comes first (until the test
 * releases it), then `delayMs`; a reset or close of the emulator during either ends the request
 * as a connection reset. `beforeEnd` runs after the hold and the delay, just before the request
 * ends, so state held for the request (an idempotency claim) stays held for as long as the
 * request seems to run.
 */
async function applyFault(
  s: EmulatorState,
  f: Fault,
  endpoint: Endpoint,
  rid: string,
  extraHeaders: Record<string, string> = {},
  beforeEnd?: () => void,
): Promise<Answer | null> {
  if (f.hold && (await s.held.hold(endpoint, rid)) === 'dropped') {
    beforeEnd?.();
    return { reset: true };
  }
  if (f.delayMs > 0 && (await s.held.delay(f.delayMs)) === 'dropped') {
    beforeEnd?.();
    return { reset: true };
  }
  if (!f.reset && f.status === undefined) return null;
  beforeEnd?.();
  if (f.reset) return { reset: true };
  const reply = faultReply(f);
  return answer({ ...reply, headers: { ...reply.headers, ...extraHeaders } }, rid);
}

type Endpoint = EndpointName;

/**
 * A row of the table the emulator has no handler for: its type is `never` (so a new row fails to
 * compile here until it is routed), and at run time the "no such route" 404 the endpoint-table
 * test looks for.
 */
const unrouted = (endpoint: never): Reply =>
  toErrorReply(new EmulatorHttpError('NOT_FOUND', `No handler for ${endpoint}.`, { next: NO_SUCH_ROUTE_NEXT }));

/**
 * The emulator: one request in, one answer out. The Node server and the in-process `fetch`
 * (and the MSW handlers) are thin mounts over this function, so they answer alike.
 */
export async function route(s: EmulatorState, req: EmulatorRequest, rid: string): Promise<Answer> {
  try {
    return await dispatch(s, req, rid);
  } catch (e) {
    return answer(toReply(e), rid);
  }
}

async function dispatch(s: EmulatorState, req: EmulatorRequest, rid: string): Promise<Answer> {
  const url = req.target;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const method = req.method;

  // The body cap holds on every route, including those that never read a body.
  if (Number(req.header('content-length') ?? 0) > BODY_LIMIT) return answer(toErrorReply(bodyTooLarge()), rid);

  if (path.startsWith('/__emulator/')) {
    const refusal = req.controlAccess();
    if (refusal) return answer(toErrorReply(refusal), rid);
    return answer(await handleControl(s, req, path, q < 0 ? '' : url.slice(q + 1), method), rid);
  }
  const notFound = () =>
    answer(toErrorReply(new EmulatorHttpError('NOT_FOUND', `No route ${method} ${path}.`, { next: NO_SUCH_ROUTE_NEXT })), rid);
  // The endpoints as the contract's one table names them (`ENDPOINTS` in `@mediagen/core/wire`).
  const matched = matchEndpoint(path);
  if (!matched) return notFound();
  const endpoint: Endpoint = matched.name;
  // Signed links are served like files: HEAD too.
  const allow = endpoint === 'output' ? 'GET, HEAD' : ENDPOINTS[endpoint].method;
  const head = method === 'HEAD';
  if (!allow.split(', ').includes(method)) {
    return answer(toErrorReply(new EmulatorHttpError('METHOD_NOT_ALLOWED', `Use ${allow} on ${path}.`, {}, { allow })), rid);
  }

  if (endpoint === 'generate') return handleGenerate(s, req, rid);

  const fault = s.faults.take(endpoint);
  if (fault?.when === 'before') {
    const ended = await applyFault(s, fault, endpoint, rid);
    if (ended) return ended;
  }
  let reply: Reply;
  try {
    if (endpoint === 'output') {
      reply = serveOutput(s, matched.params);
    } else {
      const account = s.accounts.authenticate(req.header('authorization'));
      if (endpoint === 'models') reply = listModels(account, rid);
      else if (endpoint === 'credits') reply = getCredits(account, rid);
      else if (endpoint === 'status') {
        // A malformed escape cannot name any generation: the same 404 as an unknown id.
        const decoded = decodeSegment(matched.params[0] as string);
        if (decoded === null) throw new EmulatorHttpError('NOT_FOUND', 'No generation with this id.');
        // Links are built on the emulator's own address, never on the request's Host header.
        reply = getGeneration(s, account, decoded, s.baseUrl, rid);
      } else reply = unrouted(endpoint);
    }
  } catch (e) {
    reply = toReply(e);
  }
  if (fault?.when === 'after') {
    const ended = await applyFault(s, fault, endpoint, rid);
    if (ended) return ended;
  }
  return answer(reply, rid, head);
}

/**
 * POST /generate. Order: credentials, body, rate window, idempotency claim, injected fault (its
 * hold and delay), then validation, pricing and enqueue. The idempotency key stays "in flight" until the
 * enqueue finishes, which is the window rule 3 (409, Retry-After: 3) describes.
 */
async function handleGenerate(s: EmulatorState, req: EmulatorRequest, rid: string): Promise<Answer> {
  let account: Account | null = null;
  let estimate = false;
  let key: string | undefined;
  let claimed = false;
  let reply: Reply;
  let fault: Fault | null = null;
  let accepted: Reply | null = null;
  try {
    const raw = await req.body();
    account = s.accounts.authenticate(req.header('authorization'));
    const parsed = parseSubmit(raw);
    estimate = parsed.estimate;
    hitRateLimit(s, account, estimate);
    const k = req.header(H.idempotencyKey);
    key = typeof k === 'string' && k !== '' && !estimate ? k : undefined;
    if (key !== undefined) {
      const claim = s.idempotency.claim(account.id, key, hashOf(parsed));
      if (claim.kind === 'in_flight') {
        throw new EmulatorHttpError(
          'IDEMPOTENT_REQUEST_IN_FLIGHT',
          'A request with this Idempotency-Key is still being enqueued.',
          {},
          { [H.retryAfter]: '3' },
        );
      }
      if (claim.kind === 'reused') {
        throw new EmulatorHttpError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different body.', {
          details: { field: 'Idempotency-Key' },
        });
      }
      if (claim.kind === 'replay') {
        const stored = claim.response;
        return answer(
          {
            status: stored.status,
            body: stored.body,
            headers: { ...stored.headers, ...submitHeaders(s, account, false), 'idempotent-replayed': 'true' },
          },
          rid,
        );
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
      const ended = await applyFault(s, fault, 'generate', rid, submitHeaders(s, caller, estimate), releaseClaim);
      if (ended) return ended;
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
  if (fault?.when === 'after') {
    const ended = await applyFault(s, fault, 'generate', rid);
    if (ended) return ended;
  }
  return answer(reply, rid);
}

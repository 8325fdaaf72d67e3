import { NO_SUCH_ROUTE_NEXT } from '@mediagen/core/wire';
import { FAULT_MAX_COUNT, FAULTS_MAX, MAX_CLOCK_OFFSET_MS } from './bounds.js';
import { type AccountStatus, STATUSES, TIERS, type Tier } from './config.js';
import { EmulatorHttpError } from './errors.js';
import { parseFault } from './faults.js';
import { decodeSegment, parseJson, parseJsonObject, type Reply, toErrorReply } from './http.js';
import { MinuteWindow } from './ratelimit.js';
import type { EmulatorRequest } from './request.js';
import type { EmulatorState } from './state.js';

/**
 * `/__emulator/*`: test-only controls, the emulator's equivalent of test card numbers.
 * Over the network they answer only to loopback peers, even when the API listens on every
 * interface; in-process (`createEmulator`) the caller is the test itself.
 */
export function isLoopbackAddress(a: string): boolean {
  return a === '::1' || a.startsWith('127.') || a.startsWith('::ffff:127.');
}

const iso = (ms: number): string => new Date(ms).toISOString();

const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i;
const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);
const isLoopbackName = (hostname: string): boolean => LOOPBACK_NAMES.has(hostname) || /^127(?:\.\d{1,3}){3}$/.test(hostname);

/**
 * Who may drive the controls over the network: a loopback peer (others get the 404 an unknown
 * route gets), with a loopback `Host` (a DNS-rebound name is refused) and no foreign `Origin`
 * (a cross-site form or fetch), so that a web page the developer visits cannot drive the
 * emulator. Null when the request passes.
 */
export function networkControlAccess(peer: string, header: (name: string) => string | undefined): EmulatorHttpError | null {
  if (!isLoopbackAddress(peer)) return new EmulatorHttpError('NOT_FOUND', 'Not found.');
  const host = header('host');
  if (host === undefined || !LOOPBACK_HOST.test(host)) {
    return new EmulatorHttpError('CONTROL_FORBIDDEN', 'Test controls answer only to a loopback Host (127.0.0.1, localhost or [::1]).');
  }
  const origin = header('origin');
  if (origin !== undefined) {
    let hostname = '';
    try {
      hostname = new URL(origin).hostname;
    } catch {
      // "null" (a sandboxed or file: page) and garbage are foreign origins.
    }
    if (!isLoopbackName(hostname)) {
      return new EmulatorHttpError('CONTROL_FORBIDDEN', 'Test controls refuse requests from a web page of another origin.');
    }
  }
  return null;
}

/** Control bodies are JSON (a `text/plain` "simple" request cannot carry one), on every mount. */
function mediaTypeRefusal(req: EmulatorRequest): EmulatorHttpError | null {
  if (!req.hasBody) return null;
  const type = (req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return null;
  return new EmulatorHttpError('UNSUPPORTED_MEDIA_TYPE', 'Test control bodies must be sent as Content-Type: application/json.');
}

const badField = (field: string, message: string): EmulatorHttpError =>
  new EmulatorHttpError('INVALID_BODY', message, { details: { field } });

/** A control body: an object with only `allowed` keys; an empty body is `{}`. */
async function jsonBody(req: EmulatorRequest, allowed: readonly string[]): Promise<Record<string, unknown>> {
  const raw = await req.body();
  const body = raw.length === 0 ? {} : parseJsonObject(raw);
  for (const k of Object.keys(body)) {
    if (!allowed.includes(k)) {
      throw badField(
        k,
        allowed.length === 0 ? `This control takes no body fields (got "${k}").` : `Unknown key "${k}" (allowed: ${allowed.join(', ')}).`,
      );
    }
  }
  return body;
}

/** `advanceMs`: a whole number of ms >= 0 that keeps the clock within `MAX_CLOCK_OFFSET_MS`. */
function advanceOf(b: Record<string, unknown>, offset: number): number {
  const ms = b.advanceMs;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) {
    throw badField('advanceMs', '`advanceMs` must be a whole number of milliseconds >= 0; the clock only moves forward.');
  }
  if (offset + ms > MAX_CLOCK_OFFSET_MS) {
    throw badField('advanceMs', `The clock may run at most ${MAX_CLOCK_OFFSET_MS} ms (100 years) ahead; it is ${offset} ms ahead now.`);
  }
  return ms;
}

interface AccountPatch {
  balance?: number;
  status?: AccountStatus;
  untilMs?: number | null;
  tier?: Tier;
}

/** Validates every field of a PATCH before any is applied: a refused patch changes nothing. */
function accountPatchOf(b: Record<string, unknown>): AccountPatch {
  const patch: AccountPatch = {};
  if (b.balance !== undefined) {
    if (typeof b.balance !== 'number' || !Number.isSafeInteger(b.balance) || b.balance < 0) {
      throw badField('balance', '`balance` must be a whole number >= 0 (at most 2^53 - 1).');
    }
    patch.balance = b.balance;
  }
  if (b.status !== undefined) {
    if (!STATUSES.includes(b.status as AccountStatus)) throw badField('status', `status must be one of ${STATUSES.join(', ')}.`);
    patch.status = b.status as AccountStatus;
  }
  if (b.until !== undefined) {
    const ms = typeof b.until === 'string' ? Date.parse(b.until) : Number.NaN;
    if (b.until !== null && Number.isNaN(ms)) throw badField('until', '`until` must be an ISO 8601 date or null.');
    patch.untilMs = b.until === null ? null : ms;
  }
  if (b.tier !== undefined) {
    if (!TIERS.includes(b.tier as Tier)) throw badField('tier', `tier must be one of ${TIERS.join(', ')}.`);
    patch.tier = b.tier as Tier;
  }
  return patch;
}

/** `?limit=` of the delivery log: absent, or a whole number >= 0. */
function limitOf(params: URLSearchParams): number {
  const raw = params.get('limit');
  if (raw === null || raw === '') return 0;
  const n = Number(raw);
  if (!/^\d{1,9}$/.test(raw) || !Number.isSafeInteger(n)) throw badField('limit', '`limit` must be a whole number >= 0.');
  return n;
}

/** `?min=` of the held list: absent (0, answer at once), or a whole number of requests to wait for. */
function minOf(params: URLSearchParams): number {
  const raw = params.get('min');
  if (raw === null || raw === '') return 0;
  const n = Number(raw);
  if (!/^\d{1,9}$/.test(raw) || n > FAULT_MAX_COUNT) throw badField('min', `\`min\` must be a whole number from 0 to ${FAULT_MAX_COUNT}.`);
  return n;
}

/** `count` of a release: absent (every held request), or a whole number >= 1. */
function releaseCountOf(b: Record<string, unknown>): number | undefined {
  const n = b.count;
  if (n === undefined) return undefined;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > FAULT_MAX_COUNT) {
    throw badField('count', `\`count\` must be a whole number from 1 to ${FAULT_MAX_COUNT}.`);
  }
  return n;
}

function accountView(s: EmulatorState, id: string): Reply {
  const a = s.accounts.byId.get(id);
  if (!a) throw new EmulatorHttpError('NOT_FOUND', `No account "${id}".`);
  return {
    status: 200,
    body: {
      id: a.id,
      tier: a.tier,
      status: a.status,
      effective_status: a.effectiveStatus(),
      until: a.untilMs === null ? null : iso(a.untilMs),
      balance: a.balance,
      spent: a.spent,
      spent_this_cycle: a.spentThisCycle(),
      granted_this_cycle: a.grantedThisCycle(),
      cycle_resets_at: iso(a.cycleResetsAt()),
      in_flight: a.inFlight,
      rate_limit: a.limits
        ? { per_minute: a.limits.perMinute, max_concurrent: a.limits.maxConcurrent, cycle_budget: a.limits.cycleBudget }
        : null,
      ledger: a.ledger,
    },
  };
}

export async function handleControl(s: EmulatorState, req: EmulatorRequest, path: string, query: string, method: string): Promise<Reply> {
  try {
    const refusal = mediaTypeRefusal(req);
    if (refusal) throw refusal;
    s.scheduler.runDue();
    const route = `${method} ${path}`;
    switch (route) {
      case 'GET /__emulator/health': {
        const mem = process.memoryUsage();
        return {
          status: 200,
          body: {
            ok: true,
            now: iso(s.clock.now()),
            clock_offset_ms: s.clock.offset,
            time_scale: s.config.timeScale,
            generations: s.generations.byId.size,
            scheduled_tasks: s.scheduler.size,
            memory: { rss: mem.rss, heap_used: mem.heapUsed, heap_total: mem.heapTotal, external: mem.external },
          },
        };
      }
      case 'POST /__emulator/reset':
        await jsonBody(req, []);
        s.reset();
        return { status: 200, body: { ok: true, now: iso(s.clock.now()) } };
      case 'GET /__emulator/clock':
        return { status: 200, body: { now: iso(s.clock.now()), offset_ms: s.clock.offset } };
      case 'POST /__emulator/clock': {
        const ms = advanceOf(await jsonBody(req, ['advanceMs']), s.clock.offset);
        s.clock.advance(ms);
        return { status: 200, body: { now: iso(s.clock.now()), offset_ms: s.clock.offset } };
      }
      case 'GET /__emulator/faults':
        return { status: 200, body: { faults: s.faults.all() } };
      case 'POST /__emulator/faults': {
        const v = parseJson(await req.body());
        const list = (Array.isArray(v) ? v : [v]).map(parseFault);
        if (s.faults.size + list.length > FAULTS_MAX) {
          throw badField('fault', `At most ${FAULTS_MAX} faults may be pending; ${s.faults.size} are.`);
        }
        // Every fault is checked before any is added: a refused list adds nothing.
        for (const f of list) s.faults.add(f);
        return { status: 201, body: { faults: s.faults.all() } };
      }
      case 'DELETE /__emulator/faults':
        await jsonBody(req, []);
        s.faults.clear();
        return { status: 200, body: { faults: [] } };
      case 'GET /__emulator/faults/held': {
        // A long poll: answers once `min` requests are held (bounded; a reset or close answers too).
        await s.held.whenHeld(minOf(new URLSearchParams(query)));
        return { status: 200, body: { held: s.held.list() } };
      }
      case 'POST /__emulator/faults/release': {
        const released = s.held.release(releaseCountOf(await jsonBody(req, ['count'])));
        return { status: 200, body: { released, held: s.held.list() } };
      }
      case 'GET /__emulator/deliveries': {
        const params = new URLSearchParams(query);
        const gen = params.get('generation_id');
        const limit = limitOf(params);
        let rows = gen ? s.webhooks.log.filter((r) => r.generation_id === gen) : s.webhooks.log.slice();
        if (limit > 0) rows = rows.slice(-limit);
        return { status: 200, body: { deliveries: rows } };
      }
    }
    const acct = /^\/__emulator\/accounts\/([^/]+)$/.exec(path);
    if (acct) {
      const id = decodeSegment(acct[1] as string);
      if (id === null) throw new EmulatorHttpError('NOT_FOUND', 'No account with this id.');
      if (method === 'GET') return accountView(s, id);
      if (method === 'PATCH') {
        const a = s.accounts.byId.get(id);
        if (!a) throw new EmulatorHttpError('NOT_FOUND', `No account "${id}".`);
        const patch = accountPatchOf(await jsonBody(req, ['balance', 'status', 'until', 'tier']));
        if (patch.balance !== undefined) a.balance = patch.balance;
        if (patch.status !== undefined) a.status = patch.status;
        if (patch.untilMs !== undefined) a.untilMs = patch.untilMs;
        if (patch.tier !== undefined) {
          a.tier = patch.tier;
          const per = a.limits?.perMinute ?? 60;
          a.submitWindow = new MinuteWindow(per);
          a.estimateWindow = new MinuteWindow(per * 2);
        }
        return accountView(s, id);
      }
      throw new EmulatorHttpError('METHOD_NOT_ALLOWED', 'Use GET or PATCH.', {}, { allow: 'GET, PATCH' });
    }
    throw new EmulatorHttpError('NOT_FOUND', `No control route ${method} ${path}.`, { next: NO_SUCH_ROUTE_NEXT });
  } catch (e) {
    if (e instanceof EmulatorHttpError) return toErrorReply(e);
    throw e;
  }
}

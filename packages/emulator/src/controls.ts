import type { IncomingMessage } from 'node:http';
import { STATUSES, TIERS, type AccountStatus, type Tier } from './config.js';
import { ApiError } from './errors.js';
import { parseFault } from './faults.js';
import { errorReply, parseJsonObject, readBody, type Reply } from './http.js';
import { MinuteWindow } from './ratelimit.js';
import type { EmulatorState } from './state.js';

/**
 * `/__emulator/*`: test-only controls, the emulator's equivalent of test card numbers.
 * They answer only to loopback peers, even when the API listens on every interface.
 */
export function isLoopback(req: IncomingMessage): boolean {
  const a = req.socket.remoteAddress ?? '';
  return a === '::1' || a.startsWith('127.') || a.startsWith('::ffff:127.');
}

const iso = (ms: number): string => new Date(ms).toISOString();

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = await readBody(req);
  return raw.length === 0 ? {} : parseJsonObject(raw);
}

function accountView(s: EmulatorState, id: string): Reply {
  const a = s.accounts.byId.get(id);
  if (!a) throw new ApiError(404, 'NOT_FOUND', `No account "${id}".`);
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

export async function handleControl(s: EmulatorState, req: IncomingMessage, path: string, query: string, method: string): Promise<Reply> {
  try {
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
        s.reset();
        return { status: 200, body: { ok: true, now: iso(s.clock.now()) } };
      case 'GET /__emulator/clock':
        return { status: 200, body: { now: iso(s.clock.now()), offset_ms: s.clock.offset } };
      case 'POST /__emulator/clock': {
        const b = await jsonBody(req);
        const ms = b.advanceMs;
        if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
          throw new ApiError(400, 'INVALID_BODY', '`advanceMs` must be a number >= 0; the clock only moves forward.', {
            details: { field: 'advanceMs' },
          });
        }
        s.clock.advance(ms);
        return { status: 200, body: { now: iso(s.clock.now()), offset_ms: s.clock.offset } };
      }
      case 'GET /__emulator/faults':
        return { status: 200, body: { faults: s.faults.all() } };
      case 'POST /__emulator/faults': {
        const raw = await readBody(req);
        let v: unknown;
        try {
          v = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new ApiError(400, 'INVALID_BODY', 'The body is not valid JSON.', { details: { field: 'body' } });
        }
        const list = (Array.isArray(v) ? v : [v]).map(parseFault);
        for (const f of list) s.faults.add(f);
        return { status: 201, body: { faults: s.faults.all() } };
      }
      case 'DELETE /__emulator/faults':
        s.faults.clear();
        return { status: 200, body: { faults: [] } };
      case 'GET /__emulator/deliveries': {
        const params = new URLSearchParams(query);
        const gen = params.get('generation_id');
        const limit = Number(params.get('limit') ?? 0);
        let rows = gen ? s.webhooks.log.filter((r) => r.generation_id === gen) : s.webhooks.log.slice();
        if (limit > 0) rows = rows.slice(-limit);
        return { status: 200, body: { deliveries: rows } };
      }
    }
    const acct = /^\/__emulator\/accounts\/([^/]+)$/.exec(path);
    if (acct) {
      const id = decodeURIComponent(acct[1] as string);
      if (method === 'GET') return accountView(s, id);
      if (method === 'PATCH') {
        const a = s.accounts.byId.get(id);
        if (!a) throw new ApiError(404, 'NOT_FOUND', `No account "${id}".`);
        const b = await jsonBody(req);
        for (const k of Object.keys(b)) {
          if (!['balance', 'status', 'until', 'tier'].includes(k)) {
            throw new ApiError(400, 'INVALID_BODY', `Unknown key "${k}" (allowed: balance, status, until, tier).`, {
              details: { field: k },
            });
          }
        }
        if (b.balance !== undefined) {
          if (typeof b.balance !== 'number' || !Number.isInteger(b.balance) || b.balance < 0) {
            throw new ApiError(400, 'INVALID_BODY', '`balance` must be an integer >= 0.', { details: { field: 'balance' } });
          }
          a.balance = b.balance;
        }
        if (b.status !== undefined) {
          if (!STATUSES.includes(b.status as AccountStatus))
            throw new ApiError(400, 'INVALID_BODY', `status must be one of ${STATUSES.join(', ')}.`, { details: { field: 'status' } });
          a.status = b.status as AccountStatus;
        }
        if (b.until !== undefined) {
          if (b.until !== null && (typeof b.until !== 'string' || Number.isNaN(Date.parse(b.until)))) {
            throw new ApiError(400, 'INVALID_BODY', '`until` must be an ISO 8601 date or null.', { details: { field: 'until' } });
          }
          a.untilMs = b.until === null ? null : Date.parse(b.until as string);
        }
        if (b.tier !== undefined) {
          if (!TIERS.includes(b.tier as Tier))
            throw new ApiError(400, 'INVALID_BODY', `tier must be one of ${TIERS.join(', ')}.`, { details: { field: 'tier' } });
          a.tier = b.tier as Tier;
          const per = a.limits?.perMinute ?? 60;
          a.submitWindow = new MinuteWindow(per);
          a.estimateWindow = new MinuteWindow(per * 2);
        }
        return accountView(s, id);
      }
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'Use GET or PATCH.', {}, { allow: 'GET, PATCH' });
    }
    throw new ApiError(404, 'NOT_FOUND', `No control route ${method} ${path}.`);
  } catch (e) {
    if (e instanceof ApiError) return errorReply(e);
    throw e;
  }
}

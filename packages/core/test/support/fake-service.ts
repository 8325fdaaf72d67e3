import type { ServerResponse } from 'node:http';
import type { Model, RateLimitInfo } from '../../src/types';
import { outputLinkPath } from '../../src/wire/links';
import { startScriptedServer } from './scripted-server';

interface Gen {
  id: string;
  model: string;
  status: 'pending' | 'completed' | 'failed';
}

/**
 * A tiny stateful stand-in for the service on a real port: models, credits, submit (with its
 * own concurrency ceiling), status reads and signed output links that expire. Tests steer it
 * through the returned object.
 */
export async function startFakeService(init: { models: Model[]; rateLimit?: RateLimitInfo }) {
  const gens = new Map<string, Gen>();
  const state = {
    models: init.models,
    rateLimit: init.rateLimit ?? { per_minute: 240, max_concurrent: 5 },
    /** Seconds a freshly signed link stays valid (the real service: 3 days). */
    linkTtlSec: 3 * 86_400,
    /** Answer the next submits with this instead (status, body). */
    submitOverride: undefined as undefined | ((body: Record<string, unknown>) => [number, Record<string, unknown>] | undefined),
    /** Refuse this many output fetches with 403 before serving. */
    refuseOutputs: 0,
    maxInFlightSeen: 0,
    seq: 0,
  };
  const inFlight = () => [...gens.values()].filter((g) => g.status === 'pending').length;
  const send = (res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const request_id = `req_${++state.seq}`;
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': request_id, ...headers });
    res.end(JSON.stringify({ ...body, request_id }));
  };

  const server = await startScriptedServer((req, res) => {
    const { path, body } = req;
    const base = `http://${req.headers.host}`;

    if (req.method === 'GET' && path === '/api/v1/models') {
      return send(res, 200, { tier: 'pro', credits_balance: 1000, rate_limit: state.rateLimit, models: state.models });
    }
    if (req.method === 'GET' && path === '/api/v1/credits') {
      return send(res, 200, {
        balance: 1000,
        tier: 'pro',
        cycle_resets_at: null,
        rate_limit: state.rateLimit,
        spent_this_cycle: 0,
        granted_this_cycle: 0,
      });
    }
    if (req.method === 'POST' && path === '/api/v1/generate') {
      const params = JSON.parse(body) as Record<string, unknown>;
      const override = state.submitOverride?.(params);
      if (override) return send(res, override[0], override[1]);
      if (inFlight() >= state.rateLimit.max_concurrent) {
        return send(res, 429, {
          error: 'CONCURRENCY_LIMIT',
          message: 'too many',
          next: 'wait',
          in_flight: inFlight(),
          max_concurrent: state.rateLimit.max_concurrent,
        });
      }
      const id = `00000000-0000-4000-8000-${String(gens.size + 1).padStart(12, '0')}`;
      gens.set(id, { id, model: String(params.model), status: 'pending' });
      state.maxInFlightSeen = Math.max(state.maxInFlightSeen, inFlight());
      return send(res, 202, {
        generation_id: id,
        status: 'pending',
        model: params.model,
        credits_estimate: 4,
        pricing_source: 'catalog_default',
        created_at: new Date().toISOString(),
      });
    }
    const status = /^\/api\/v1\/generations\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && status) {
      const gen = gens.get(decodeURIComponent(status[1]!));
      if (!gen) return send(res, 404, { error: 'NOT_FOUND', message: 'no', next: 'check' });
      const exp = Math.floor(Date.now() / 1000) + state.linkTtlSec;
      const urls =
        gen.status === 'completed'
          ? [0, 1].map(
              (i) =>
                `${base}${outputLinkPath({ generationId: gen.id, expiry: exp, signature: `sig${state.seq}`, index: i, filename: `out-${i}.png` })}`,
            )
          : null;
      return send(res, 200, {
        generation_id: gen.id,
        status: gen.status,
        model: gen.model,
        output_url: urls?.[0] ?? null,
        output_urls: urls,
        credits_used: gen.status === 'failed' ? 0 : 4,
        duration_ms: null,
        created_at: new Date().toISOString(),
        completed_at: null,
        ...(gen.status === 'failed' ? { error: { code: 'unknown', message: 'boom', retryable: false } } : {}),
      });
    }
    const output = /^\/api\/v1\/output\/([^/]+)\/(\d+)\/[^/]+\/(\d+)\/[^/]+$/.exec(path);
    if (req.method === 'GET' && output) {
      if (state.refuseOutputs > 0 || Number(output[2]) * 1000 <= Date.now()) {
        state.refuseOutputs = Math.max(0, state.refuseOutputs - 1);
        return send(res, 403, { error: 'LINK_EXPIRED', message: 'expired', next: 'poll again' });
      }
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(`bytes-of-${output[1]}-${output[3]}`);
    }
    send(res, 404, { error: 'NOT_FOUND', message: path, next: '' });
  });
  const seen = server.requests;
  return {
    url: server.url,
    seen,
    state,
    gens,
    /** Requests to one path (and method). */
    count: (method: string, path: string) => seen.filter((s) => s.method === method && s.path === path).length,
    finish: (id: string, status: 'completed' | 'failed' = 'completed') => {
      const gen = gens.get(id);
      if (gen) gen.status = status;
    },
    close: server.close,
  };
}

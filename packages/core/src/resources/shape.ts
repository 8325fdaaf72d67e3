/**
 * What each 2xx body must at least hold for the SDK to use it (the contract's required fields
 * that code reads). Each check returns what is wrong, or undefined; unknown extra fields are
 * always fine (spec: Versioning 5), and so are the earlier forms the contract lists.
 */

import { type Dict, dict } from '../params/read';

// `@__PURE__`: made at load, so a bundle that only verifies webhooks can drop them.
type Check = (data: unknown) => string | undefined;

function fields(required: Record<string, string>, also?: (data: Record<string, unknown>) => boolean): Check {
  return (body) => {
    // `dict` gives the object itself (never a copy), or undefined for anything else.
    const data = dict(body);
    if (!data) return 'a body that is not an object';
    for (const key in required) if (typeof data[key] !== required[key]) return `no ${required[key]} "${key}"`;
    return also && !also(data) ? 'malformed entries' : undefined;
  };
}

/** `GET /api/v1/generations/{id}`: a failed job is a 200 too, so `status` decides. */
export const expectGeneration = /* @__PURE__ */ fields({ generation_id: 'string', status: 'string' });

/** The 202 of a submit: its `generation_id` is what everything after it needs. */
export const expectSubmitted = /* @__PURE__ */ fields({ generation_id: 'string' });

const cost = /* @__PURE__ */ fields({ credits_estimate: 'number' });

/**
 * An estimate's shape is not in the contract, but it "returns the exact cost": the number the
 * submit calls `credits_estimate`. A `generation_id` means the service made (and may bill) a
 * generation: never taken for a quote, and named so the caller can find it.
 */
export const expectEstimate: Check = (data) =>
  dict(data)?.generation_id ? `generation ${String((data as Dict).generation_id).slice(0, 64)}, not an estimate` : cost(data);

export const expectCredits = /* @__PURE__ */ fields({ balance: 'number' });

/** The list validation, polling and the gate read: every entry an object with its slug. */
export const expectModelList = /* @__PURE__ */ fields(
  { models: 'object' },
  (list) => Array.isArray(list.models) && list.models.every((model) => typeof dict(model)?.slug === 'string'),
);

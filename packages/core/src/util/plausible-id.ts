/**
 * The contract's generation ids are UUIDs, and the ledger's own keys are hex digests or
 * `generation:<id>`: visible ASCII, short. A string outside that names no generation, and is
 * turned away before it reaches a store or the service. It comes from outside (a path, a query
 * string), and a store may not even hold it: PostgreSQL refuses a NUL in text outright, which
 * would be a 500 where the contract says 404.
 */
const PLAUSIBLE_ID = /^[\x21-\x7e]{1,256}$/;

/** Whether `id` could name a generation (or a ledger record). */
export function isPlausibleId(id: unknown): id is string {
  return typeof id === 'string' && PLAUSIBLE_ID.test(id);
}

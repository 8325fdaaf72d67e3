/**
 * Defensive readers for model entries and params that come from outside (a model list off the
 * wire, app input): a part of the wrong shape reads as absent instead of throwing a TypeError.
 */

export type Dict = Record<string, unknown>;

export const dict = (v: unknown): Dict | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Dict) : undefined);
export const list = (v: unknown): readonly unknown[] | undefined => (Array.isArray(v) ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** A non-empty string, else undefined (error bodies' optional fields). */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
export const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A value for a message: strings and numbers as they are, anything else as `?` (never a throw). */
export const label = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '?');

/** Lowercase for strings, anything else as it is (for case-insensitive matches against list values). */
export const lower = (v: unknown): unknown => (typeof v === 'string' ? v.toLowerCase() : v);

import { type GenerationRecord, isTerminalStatus, newRecord, type RecordPatch } from './record';

/**
 * A record as a SQL row, for the SQL stores (`@mediagen/sqlite`, `@mediagen/postgres`): one
 * column per field, JSON text for the objects, 0/1 for the flags, and `open` (1 while the record
 * has work left) so `due()` reads a partial index. Stated once here so both stores agree.
 */
export interface StoredRow {
  key: string;
  owner: string;
  params: string;
  status: string;
  generation_id: string | null;
  generation: string | null;
  error: string | null;
  unavailable: number;
  notified: number;
  abandoned: number;
  outputs: string | null;
  created_at: number;
  updated_at: number;
  next_check_at: number;
  version: number;
  lease_holder: string | null;
  lease_until: number;
  open: number;
}

/** The columns in the order `toStoredRow` values come in. */
export const STORED_COLUMNS: readonly (keyof StoredRow)[] = [
  'key',
  'owner',
  'params',
  'status',
  'generation_id',
  'generation',
  'error',
  'unavailable',
  'notified',
  'abandoned',
  'outputs',
  'created_at',
  'updated_at',
  'next_check_at',
  'version',
  'lease_holder',
  'lease_until',
  'open',
];

/** Work is left: not terminal yet, or terminal and not yet handed to the app. */
export function hasWorkLeft(record: Pick<GenerationRecord, 'status' | 'notified'>): boolean {
  return !isTerminalStatus(record.status) || !record.notified;
}

/** A refused intent with nothing left to do: what `purgeRefused` may delete (the SQL stores state the same in SQL). */
export function isPurgeable(record: Pick<GenerationRecord, 'status' | 'notified' | 'generation_id'>): boolean {
  return record.generation_id === null && record.status === 'failed' && record.notified;
}

/**
 * The columns a patch sets, encoded as `toStoredRow` encodes them (without `open`, which depends
 * on the stored `status` and `notified` too: a SQL store computes it in the same statement).
 */
export function patchColumns(patch: RecordPatch): Partial<StoredRow> {
  const row = toStoredRow({ ...PATCH_BASE, ...patch } as GenerationRecord);
  const out: Partial<StoredRow> = {};
  for (const key of Object.keys(patch) as (keyof RecordPatch)[]) {
    if (patch[key] !== undefined) (out as Record<string, unknown>)[key] = row[key];
  }
  return out;
}

/** A whole record for `toStoredRow` to encode a patch over: the fields a patch names replace it. */
const PATCH_BASE: GenerationRecord = /* @__PURE__ */ newRecord('', '', { model: '' }, 0);

export function toStoredRow(r: GenerationRecord): StoredRow {
  return {
    key: r.key,
    owner: r.owner,
    params: JSON.stringify(r.params),
    status: r.status,
    generation_id: r.generation_id,
    generation: r.generation === null ? null : JSON.stringify(r.generation),
    error: r.error === null ? null : JSON.stringify(r.error),
    unavailable: r.unavailable ? 1 : 0,
    notified: r.notified ? 1 : 0,
    abandoned: r.abandoned ? 1 : 0,
    outputs: r.outputs === null ? null : JSON.stringify(r.outputs),
    created_at: r.created_at,
    updated_at: r.updated_at,
    next_check_at: r.next_check_at,
    version: r.version,
    lease_holder: r.lease_holder,
    lease_until: r.lease_until,
    open: hasWorkLeft(r) ? 1 : 0,
  };
}

/** Reads a row back; numbers may come as strings or bigints (PostgreSQL's int8), flags as booleans. */
export function fromStoredRow(row: Record<string, unknown>): GenerationRecord {
  const json = <T>(v: unknown): T | null => (v === null || v === undefined ? null : (JSON.parse(String(v)) as T));
  const num = (v: unknown) => Number(v);
  return {
    key: String(row.key),
    owner: String(row.owner),
    params: json(row.params) as GenerationRecord['params'],
    status: String(row.status) as GenerationRecord['status'],
    generation_id: row.generation_id === null || row.generation_id === undefined ? null : String(row.generation_id),
    generation: json(row.generation),
    error: json(row.error),
    unavailable: Boolean(num(row.unavailable)),
    notified: Boolean(num(row.notified)),
    // A row written before the column existed reads as not abandoned.
    abandoned: Boolean(num(row.abandoned ?? 0)),
    outputs: json(row.outputs),
    created_at: num(row.created_at),
    updated_at: num(row.updated_at),
    next_check_at: num(row.next_check_at),
    version: num(row.version),
    lease_holder: row.lease_holder === null || row.lease_holder === undefined ? null : String(row.lease_holder),
    lease_until: num(row.lease_until),
  };
}

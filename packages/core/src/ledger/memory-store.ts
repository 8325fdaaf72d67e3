import type { GenerationRecord, RecordPatch } from './record';
import type { GenerationStore, ListOptions } from './store';
import { hasWorkLeft, isPurgeable } from './stored-row';

/**
 * In-process store: right for one instance and for tests. Everything is lost with the process;
 * apps that must survive a restart use `@mediagen/sqlite` or `@mediagen/postgres`.
 */
export class MemoryGenerationStore implements GenerationStore {
  readonly #records = new Map<string, GenerationRecord>();
  readonly #byGenerationId = new Map<string, string>();

  async insert(record: GenerationRecord): Promise<boolean> {
    if (this.#records.has(record.key)) return false;
    this.#put(structuredClone(record));
    return true;
  }

  async get(key: string): Promise<GenerationRecord | undefined> {
    return copy(this.#records.get(key));
  }

  async getByGenerationId(id: string): Promise<GenerationRecord | undefined> {
    const key = this.#byGenerationId.get(id);
    return key === undefined ? undefined : copy(this.#records.get(key));
  }

  async update(key: string, version: number, patch: RecordPatch): Promise<GenerationRecord | undefined> {
    const current = this.#records.get(key);
    if (!current || current.version !== version) return undefined;
    const next = { ...current, ...structuredClone(patch), version: version + 1 };
    this.#put(next);
    return copy(next);
  }

  async list(owner: string, { limit, after }: ListOptions): Promise<GenerationRecord[]> {
    const mine = [...this.#records.values()].filter(
      (r) => r.owner === owner && (!after || r.created_at < after.created_at || (r.created_at === after.created_at && r.key < after.key)),
    );
    mine.sort((a, b) => b.created_at - a.created_at || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
    return mine.slice(0, limit).map((r) => structuredClone(r));
  }

  async due(now: number, limit: number): Promise<GenerationRecord[]> {
    const due = [...this.#records.values()].filter((r) => hasWorkLeft(r) && r.next_check_at <= now && r.lease_until <= now);
    due.sort((a, b) => a.next_check_at - b.next_check_at);
    return due.slice(0, limit).map((r) => structuredClone(r));
  }

  async claim(key: string, holder: string, until: number, now: number): Promise<boolean> {
    const r = this.#records.get(key);
    if (!r || (r.lease_holder !== holder && r.lease_until > now)) return false;
    r.lease_holder = holder;
    r.lease_until = until;
    return true;
  }

  async release(key: string, holder: string): Promise<void> {
    const r = this.#records.get(key);
    if (r && r.lease_holder === holder) {
      r.lease_holder = null;
      r.lease_until = 0;
    }
  }

  async purgeRefused(before: number, limit: number): Promise<number> {
    let purged = 0;
    for (const [key, r] of this.#records) {
      if (purged >= limit) break;
      if (isPurgeable(r) && r.updated_at < before) {
        this.#records.delete(key);
        purged++;
      }
    }
    return purged;
  }

  async recentCompleted(limit: number): Promise<GenerationRecord[]> {
    const done = [...this.#records.values()].filter((r) => r.status === 'completed');
    done.sort((a, b) => b.updated_at - a.updated_at);
    return done.slice(0, limit).map((r) => structuredClone(r));
  }

  #put(record: GenerationRecord): void {
    this.#records.set(record.key, record);
    if (record.generation_id !== null) this.#byGenerationId.set(record.generation_id, record.key);
  }
}

function copy(record: GenerationRecord | undefined): GenerationRecord | undefined {
  return record && structuredClone(record);
}

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { GenerateParams, Generation, SubmitResponse, WebhookEvent } from '@mediagen/core';
import Database from 'better-sqlite3';

/** What the app knows about one generation, as `GET /api/generations` lists it. */
export interface StoredGeneration {
  generation_id: string;
  model: string;
  prompt: string | null;
  status: string;
  output_url: string | null;
  output_urls: string[] | null;
  /** The reservation while running; the final charge once terminal. */
  credits_used: number | null;
  error: { code: string; message: string } | null;
  created_at: string;
  completed_at: string | null;
  /** Where the last change came from: `submit`, `webhook` or `poll`. */
  source: 'submit' | 'webhook' | 'poll';
  /** Webhook events recorded for it (each event type once, however often it was delivered). */
  webhooks: number;
}

interface Row {
  generation_id: string;
  model: string;
  prompt: string | null;
  status: string;
  output_urls: string | null;
  credits: number | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  completed_at: string | null;
  source: StoredGeneration['source'];
  webhooks: number;
}

const TERMINAL = "('completed', 'failed')";
const SELECT = `SELECT g.*, (SELECT COUNT(*) FROM webhook_events w WHERE w.generation_id = g.generation_id) AS webhooks FROM generations g`;

function toStored(row: Row): StoredGeneration {
  const urls = row.output_urls ? (JSON.parse(row.output_urls) as string[]) : null;
  return {
    generation_id: row.generation_id,
    model: row.model,
    prompt: row.prompt,
    status: row.status,
    output_url: urls?.[0] ?? null,
    output_urls: urls,
    credits_used: row.credits,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    created_at: row.created_at,
    completed_at: row.completed_at,
    source: row.source,
    webhooks: row.webhooks,
  };
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS generations (
  generation_id TEXT PRIMARY KEY,
  model         TEXT NOT NULL,
  prompt        TEXT,
  status        TEXT NOT NULL,
  output_urls   TEXT,
  credits       INTEGER,
  error_code    TEXT,
  error_message TEXT,
  created_at    TEXT NOT NULL,
  completed_at  TEXT,
  updated_at    INTEGER NOT NULL,
  source        TEXT NOT NULL,
  owner         TEXT
);
CREATE TABLE IF NOT EXISTS webhook_events (
  generation_id TEXT NOT NULL,
  type          TEXT NOT NULL,
  delivery_id   TEXT,
  received_at   INTEGER NOT NULL,
  PRIMARY KEY (generation_id, type)
);`;

/** The app's generations in SQLite: they survive a restart, and a repeated webhook changes nothing. */
export class GenerationStore {
  readonly #db: Database.Database;

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.#db = new Database(file);
    this.#db.pragma('journal_mode = WAL');
    this.#db.exec(SCHEMA);
    // A database from before users: add the column (its rows have no owner, so nobody lists them).
    const columns = this.#db.prepare('PRAGMA table_info(generations)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'owner')) this.#db.exec('ALTER TABLE generations ADD COLUMN owner TEXT');
    this.#db.exec('CREATE INDEX IF NOT EXISTS generations_owner_created ON generations (owner, created_at DESC)');
  }

  /** A submit the service accepted (202), by `owner` (the browser's user; see lib/user.ts). */
  addSubmitted(submitted: SubmitResponse, params: GenerateParams, owner?: string): void {
    this.#db
      .prepare(
        // A webhook may have settled it first (a fast job, a slow answer): it keeps its result and gains its owner and prompt.
        `INSERT INTO generations (generation_id, model, prompt, status, credits, created_at, updated_at, source, owner)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'submit', ?)
         ON CONFLICT (generation_id) DO UPDATE SET
           owner = COALESCE(generations.owner, excluded.owner), prompt = COALESCE(generations.prompt, excluded.prompt)`,
      )
      .run(
        submitted.generation_id,
        submitted.model,
        params.prompt ?? null,
        submitted.status,
        submitted.credits_estimate,
        submitted.created_at,
        Date.now(),
        owner ?? null,
      );
  }

  /**
   * A verified webhook. Each (generation, event type) is recorded once, so a duplicate or a
   * retried delivery, even after a restart, changes nothing. Returns false for a repeat.
   */
  applyWebhook(event: WebhookEvent): boolean {
    const { data } = event;
    return this.#db.transaction(() => {
      const fresh = this.#db
        .prepare('INSERT OR IGNORE INTO webhook_events (generation_id, type, delivery_id, received_at) VALUES (?, ?, ?, ?)')
        .run(data.generation_id, event.type, event.deliveryId ?? null, Date.now());
      if (fresh.changes === 0) return false;
      const failed = data.status === 'failed' ? data : undefined;
      this.#settle(data.generation_id, {
        model: data.model,
        status: data.status,
        output_urls: data.output_urls,
        credits: data.credits_charged,
        error_code: failed?.error_code ?? null,
        error_message: failed?.error_message ?? null,
        completed_at: data.completed_at,
        source: 'webhook',
      });
      return true;
    })();
  }

  /** A status read (the fallback when a webhook never came: spec receiver rule 8). */
  applyPoll(generation: Generation): void {
    this.#settle(generation.generation_id, {
      model: generation.model,
      status: generation.status,
      output_urls: generation.output_urls ?? (generation.output_url ? [generation.output_url] : null),
      credits: generation.credits_used,
      error_code: generation.error?.code ?? null,
      error_message: generation.error?.message ?? null,
      completed_at: generation.completed_at,
      source: 'poll',
      created_at: generation.created_at,
    });
  }

  /** Generations still running whose last news is older than `olderThanMs`. */
  stale(olderThanMs: number): string[] {
    return this.#db
      .prepare(`SELECT generation_id FROM generations WHERE status NOT IN ${TERMINAL} AND updated_at <= ? ORDER BY updated_at LIMIT 50`)
      .pluck()
      .all(Date.now() - olderThanMs) as string[];
  }

  /** `owner`'s generations, newest first. */
  list(owner: string, limit = 100): StoredGeneration[] {
    const rows = this.#db
      .prepare(`${SELECT} WHERE g.owner = ? ORDER BY g.created_at DESC, g.rowid DESC LIMIT ?`)
      .all(owner, limit) as Row[];
    return rows.map(toStored);
  }

  /** Who submitted `id`, or undefined (unknown, or learnt only from a webhook or a poll). Never sent to a browser. */
  ownerOf(id: string): string | undefined {
    return (
      (this.#db.prepare('SELECT owner FROM generations WHERE generation_id = ?').pluck().get(id) as string | null | undefined) ?? undefined
    );
  }

  /** One generation as the app knows it, or undefined. */
  get(id: string): StoredGeneration | undefined {
    const row = this.#db.prepare(`${SELECT} WHERE g.generation_id = ?`).get(id) as Row | undefined;
    return row ? toStored(row) : undefined;
  }

  close(): void {
    this.#db.close();
  }

  /** Moves a generation forward; a terminal one never changes again. Unknown ids (submitted elsewhere) are added. */
  #settle(
    id: string,
    next: {
      model: string;
      status: string;
      output_urls: string[] | null;
      credits: number;
      error_code: string | null;
      error_message: string | null;
      completed_at: string | null;
      source: StoredGeneration['source'];
      created_at?: string;
    },
  ): void {
    this.#db
      .prepare(
        `INSERT INTO generations (generation_id, model, status, output_urls, credits, error_code, error_message, created_at, completed_at, updated_at, source)
         VALUES (@id, @model, @status, @urls, @credits, @error_code, @error_message, @created_at, @completed_at, @now, @source)
         ON CONFLICT (generation_id) DO UPDATE SET
           status = excluded.status, output_urls = excluded.output_urls, credits = excluded.credits,
           error_code = excluded.error_code, error_message = excluded.error_message,
           completed_at = excluded.completed_at, updated_at = excluded.updated_at, source = excluded.source
         WHERE generations.status NOT IN ${TERMINAL}`,
      )
      .run({
        id,
        model: next.model,
        status: next.status,
        urls: next.output_urls ? JSON.stringify(next.output_urls) : null,
        credits: next.credits,
        error_code: next.error_code,
        error_message: next.error_message,
        created_at: next.created_at ?? next.completed_at ?? new Date().toISOString(),
        completed_at: next.completed_at,
        now: Date.now(),
        source: next.source,
      });
  }
}

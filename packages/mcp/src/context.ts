import type { MediaGenClient, Model } from '@mediagen/core';
import type { GenerationLedger } from '@mediagen/core/ledger';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SpendCap } from './spend-cap';

export interface MediaGenMcpOptions {
  /** The server-side client; its API key never reaches the agent. */
  client: MediaGenClient;
  /** Every generate goes through it; reads and resources come from it (per owner). */
  ledger: GenerationLedger;
  /**
   * Credits one MCP session may commit to generates (each counted at its exact estimate before it
   * is sent). Default: no cap.
   */
  spendCapCredits?: number;
  /**
   * A generate whose estimate is above this many credits asks the person first (MCP elicitation),
   * when the client supports it. Default 100. Clients without elicitation are not asked.
   */
  confirmAboveCredits?: number;
  /** The largest image (bytes) returned inline as MCP image content. Default 1 MiB. */
  maxImageBytes?: number;
  /** The largest text output (bytes) returned inline. Default 64 KiB. */
  maxTextBytes?: number;
  /** The longest one `wait` call blocks before answering the current state. Default 120 s. */
  maxWaitSeconds?: number;
  /**
   * Turns files in input fields into links the service can fetch (`nodeMediaInputs({ store })`
   * from `@mediagen/core/node`, the same storage the app's upload route uses): then `input_image`
   * and the other input fields also take a local file path (`./photo.png`). The stdio bin sets it
   * (a folder served on loopback for the local emulator, a bucket from `MEDIAGEN_S3_*`).
   */
  inputs?: (params: Record<string, unknown>, signal?: AbortSignal) => Promise<Record<string, unknown>>;
  /** Server name shown to clients. Default `mediagen`. */
  name?: string;
}

/** What every tool of one session shares. */
export interface SessionContext {
  server: McpServer;
  options: MediaGenMcpOptions;
  client: MediaGenClient;
  ledger: GenerationLedger;
  /** Whose generations these are (the app's user; `local` for the stdio bin). */
  owner: string;
  /** Scopes "the same arguments in the same session". */
  sessionId: string;
  spend: SpendCap;
  /** The account's live model list, read when the session started (undefined if it could not be read). */
  models: readonly Model[] | undefined;
}

export const DEFAULTS = {
  confirmAboveCredits: 100,
  maxImageBytes: 1024 * 1024,
  maxTextBytes: 64 * 1024,
  maxWaitSeconds: 120,
} as const;

import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, MediaGenClient } from '@mediagen/core';
import { createGenerationLedger } from '@mediagen/core/ledger';
import { isLoopbackUrl, nodeMediaInputs, serveLoopbackMedia } from '@mediagen/core/node';
import { s3StoreFromEnv } from '@mediagen/s3';
import { SqliteGenerationStore } from '@mediagen/sqlite';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMediaGenMcpServer } from './create-server';
import { localService } from './local-service';

/** The one owner of a stdio server: the person at this machine. */
export const LOCAL_OWNER = 'local';

/** Where the ledger lives unless `MEDIAGEN_MCP_DB` says otherwise. */
export function defaultDbPath(env: NodeJS.ProcessEnv): string {
  return join(home(env), 'mcp.sqlite');
}

/** The server's own folder: `MEDIAGEN_MCP_HOME`, else `~/.mediagen`. */
function home(env: NodeJS.ProcessEnv): string {
  return env.MEDIAGEN_MCP_HOME || join(homedir(), '.mediagen');
}

/**
 * The stdio server: stdout carries only MCP messages, so everything else (notes, the client's
 * debug log) goes to stderr. The ledger is a SQLite file (`MEDIAGEN_MCP_DB`), followed by its
 * reconciler, so a render started before a crash or a restart is finished and read back.
 */
export async function runStdio(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const say = (line: string) => process.stderr.write(`mediagen-mcp: ${line}\n`);
  const service = await localService(env);
  say(service.note);
  const toStderr = (...args: unknown[]) => say(args.map(String).join(' '));
  const client = new MediaGenClient({ logger: { debug: toStderr, info: toStderr, warn: toStderr, error: toStderr } });
  const filename = env.MEDIAGEN_MCP_DB || defaultDbPath(env);
  const store = new SqliteGenerationStore({ filename });
  const ledger = createGenerationLedger({
    client,
    store,
    // The code only: a message may quote a link, and the key never reaches a message.
    onError: (error) => say(`ledger: ${(error as { code?: string }).code ?? 'error'} (retried)`),
  });
  ledger.start();
  say(`ledger at ${filename}`);

  // Files in input fields: a bucket from MEDIAGEN_S3_*, else (the local emulator) a folder served on loopback.
  const bucket = s3StoreFromEnv(env);
  const local = !bucket && isLoopbackUrl(client.baseUrl) ? await serveLoopbackMedia(join(home(env), 'inputs')) : undefined;
  const mediaStore = bucket ?? local?.store;
  if (local) say(`input files served to the emulator from ${local.url}`);
  const server = await createMediaGenMcpServer(
    {
      client,
      ledger,
      ...(mediaStore ? { inputs: nodeMediaInputs({ store: mediaStore }) as never } : {}),
      spendCapCredits: numberFrom(env.MEDIAGEN_MCP_SPEND_CAP, 'MEDIAGEN_MCP_SPEND_CAP'),
      confirmAboveCredits: numberFrom(env.MEDIAGEN_MCP_CONFIRM_ABOVE, 'MEDIAGEN_MCP_CONFIRM_ABOVE'),
    },
    { owner: LOCAL_OWNER, sessionId: globalThis.crypto.randomUUID() },
  );
  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= (async () => {
      await ledger.stop().catch(() => {});
      await store.close().catch(() => {});
      await service.close().catch(() => {});
      await local?.close().catch(() => {});
      process.exit(0);
    })());
  const transport = new StdioServerTransport();
  transport.onclose = () => void shutdown();
  process.stdin.on('end', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  await server.connect(transport);
}

function numberFrom(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new ConfigurationError(`${name} must be a number of credits >= 0.`);
  return n;
}

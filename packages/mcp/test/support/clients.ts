import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, type GenerationLedger, MemoryGenerationStore } from '@mediagen/core/ledger';
import { sendWebResponse, toWebRequest } from '@mediagen/core/node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMcpHandler, type McpHandler, type McpHandlerOptions } from '../../src/index';
import { API_KEY } from './emulator';

export const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

/** The built bin's environment: this emulator, this ledger file, nothing inherited that could point elsewhere. */
export function binEnv(emuUrl: string, db: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', MEDIAGEN_BASE_URL: emuUrl, MEDIAGEN_API_KEY: API_KEY, MEDIAGEN_MCP_DB: db, ...extra };
}

/** The SDK's own client over stdio to the built bin, a real child process. */
export async function stdioClient(env: Record<string, string>, capabilities: Record<string, unknown> = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN], env, stderr: 'pipe' });
  const client = new Client({ name: 'mcp-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return { client, transport, pid: transport.pid as number };
}

export interface HttpApp {
  url: string;
  ledger: GenerationLedger;
  handler: McpHandler;
  close(): Promise<void>;
}

/**
 * An app serving the MCP handler at /mcp on a real port, its users named by an `x-user` header
 * (the stand-in for the app's own auth).
 */
export async function httpApp(emuUrl: string, options: Partial<McpHandlerOptions> = {}): Promise<HttpApp> {
  const client = new MediaGenClient({ apiKey: API_KEY, baseUrl: emuUrl });
  const ledger = createGenerationLedger({ client, store: new MemoryGenerationStore() });
  const handler = createMcpHandler({ client, ledger, identify: (request) => request.headers.get('x-user') ?? undefined, ...options });
  const server: Server = createServer((req, res) => {
    void handler(toWebRequest(req))
      .then((response) => sendWebResponse(res, response))
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    ledger,
    handler,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The SDK's own client over Streamable HTTP, as `user`. */
export async function httpClient(url: string, user: string, options: { sessionId?: string; capabilities?: Record<string, unknown> } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { 'x-user': user } },
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
  });
  const client = new Client({ name: 'mcp-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  await client.connect(transport);
  return { client, transport };
}

/** A tool result's structured data. */
export function data(result: unknown): Record<string, any> {
  return (result as { structuredContent: Record<string, any> }).structuredContent;
}

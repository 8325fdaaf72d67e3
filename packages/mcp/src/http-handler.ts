import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { readBounded } from './bounded-read';
import type { MediaGenMcpOptions } from './context';
import { createMediaGenMcpServer } from './create-server';

export interface McpHandlerOptions extends MediaGenMcpOptions {
  /**
   * The app's auth, as for `createMediaGenHandler`: the user a request comes from (a session
   * cookie, a bearer token), or undefined for none (answered 401). A session belongs to the user
   * who opened it: another user's request with its id is answered as an unknown session (404).
   */
  identify(request: Request): string | undefined | Promise<string | undefined>;
  /** Open sessions kept at most; past it the least recently used is closed. Default 1 000. */
  maxSessions?: number;
  /**
   * The `Host` names (with or without port) requests may carry; others are answered 403, which
   * stops DNS rebinding. Default: any, since `identify` gates every request (a rebound page sends
   * no cookie or token of the app's). Set it when `identify` names everyone (a local tool).
   */
  allowedHosts?: readonly string[];
  /** The largest POST body read. Default 4 MiB (the MCP SDK's own default). */
  maxBodyBytes?: number;
}

export interface McpHandler {
  (request: Request): Promise<Response>;
  /** Closes every open session (their agents reconnect and start a new one). */
  close(): Promise<void>;
}

interface Session {
  owner: string;
  transport: WebStandardStreamableHTTPServerTransport;
}

/**
 * MCP over Streamable HTTP as a Web `Request` -> `Response` function, mounted by the app beside
 * its one handler (`app.all('/mcp', ...)`). Each session has its own server, scoped to the user
 * `identify` names: that user's generations, that session's spend cap. Sessions live in this
 * handler (memory); after an app restart an agent starts a new session, and `request_key`
 * calls still find their generations in the ledger.
 */
export function createMcpHandler(options: McpHandlerOptions): McpHandler {
  const sessions = new Map<string, Session>();
  const maxSessions = options.maxSessions ?? 1000;
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;

  const allowedHosts = options.allowedHosts && new Set(options.allowedHosts.map((h) => h.toLowerCase()));

  const handler = async (request: Request): Promise<Response> => {
    if (allowedHosts && !hostAllowed(request, allowedHosts)) return rpcError(403, -32000, 'This Host is not served.');
    const owner = await options.identify(request);
    if (typeof owner !== 'string' || owner === '') return rpcError(401, -32001, 'Sign in first: this MCP server answers its users only.');
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const session = sessions.get(id);
      // Another user's session id reads as unknown: nothing says it exists.
      if (!session || session.owner !== owner) return rpcError(404, -32001, 'Session not found: initialize a new one.');
      sessions.delete(id);
      sessions.set(id, session); // most recently used last
      return session.transport.handleRequest(request);
    }
    if (request.method !== 'POST') return rpcError(400, -32000, 'No Mcp-Session-Id: initialize with a POST first.');
    const body = request.body ? await readBounded(request.body, maxBody) : new Uint8Array();
    if (!body) return rpcError(413, -32000, `The body is over ${maxBody} bytes.`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body));
    } catch {
      return rpcError(400, -32700, 'Parse error.');
    }
    if (!isInitializeRequest(parsed)) return rpcError(400, -32000, 'No Mcp-Session-Id: initialize first.');

    const sessionId = globalThis.crypto.randomUUID();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      onsessionclosed: (closed) => void sessions.delete(closed),
    });
    transport.onclose = () => void sessions.delete(sessionId);
    const server = await createMediaGenMcpServer(options, { owner, sessionId });
    await server.connect(transport);
    sessions.set(sessionId, { owner, transport });
    while (sessions.size > maxSessions) {
      const [oldest, session] = sessions.entries().next().value as [string, Session];
      sessions.delete(oldest);
      await session.transport.close().catch(() => {});
    }
    // The body was read here: handed over parsed, with the request's headers (its stream is spent).
    return transport.handleRequest(new Request(request.url, { method: 'POST', headers: request.headers }), { parsedBody: parsed });
  };

  return Object.assign(handler, {
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((s) => s.transport.close().catch(() => {})));
    },
  });
}

function hostAllowed(request: Request, allowed: ReadonlySet<string>): boolean {
  const host = (request.headers.get('host') ?? '').toLowerCase();
  const name = host.replace(/:\d+$/, '');
  return allowed.has(host) || allowed.has(name);
}

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

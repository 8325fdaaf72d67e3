import { createServer } from 'node:http';
import { sendWebResponse, toWebRequest } from '@mediagen/core/node';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BIN } from './clients';

/**
 * The conformance suite speaks Streamable HTTP only. To run it against the stdio bin, each HTTP
 * session gets its own bin process, and messages are relayed unchanged both ways: every answer
 * the suite judges is the stdio server's own. (Answers go back on the stream of the request
 * they answer; notifications on the session's stream.)
 */
export async function stdioBridge(env: Record<string, string>) {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const children: StdioClientTransport[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const request = toWebRequest(req);
      const id = request.headers.get('mcp-session-id');
      let front = id ? sessions.get(id) : undefined;
      if (!front) {
        const created = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
        const child = new StdioClientTransport({ command: process.execPath, args: [BIN], env, stderr: 'ignore' });
        children.push(child);
        created.onmessage = (message) => void child.send(message);
        child.onmessage = (message: JSONRPCMessage) => {
          const answers = 'id' in message && ('result' in message || 'error' in message) ? { relatedRequestId: message.id } : undefined;
          void created.send(message, answers).catch(() => {});
        };
        await child.start();
        await created.start();
        front = created;
      }
      const response = await front.handleRequest(request);
      if (front.sessionId) sessions.set(front.sessionId, front);
      await sendWebResponse(res, response);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      for (const child of children) await child.close().catch(() => {});
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

import type { Model } from '@mediagen/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MediaGenMcpOptions, SessionContext } from './context';
import { registerGenerationResources } from './resources';
import { SpendCap } from './spend-cap';
import { registerAccountTools } from './tools/account';
import { registerFollowTools } from './tools/follow';
import { registerGenerateTool } from './tools/generate';
import { registerModelTools } from './tools/models';
import { VERSION } from './version';

export interface McpSessionInit {
  /** Whose generations this session sees and spends (the app's user id). */
  owner: string;
  /** Scopes repeated calls; the transport's session id (HTTP), a random one per process (stdio). */
  sessionId: string;
}

/**
 * One MCP session's server: the tools, over the account's live model list read now (their
 * schemas and descriptions name its models and prices), and the generation resources, all
 * scoped to `owner`. Connect it to one transport.
 */
export async function createMediaGenMcpServer(options: MediaGenMcpOptions, session: McpSessionInit): Promise<McpServer> {
  // The list is the account's; without it the tools still work (the model field is then free text).
  const models: readonly Model[] | undefined = await options.client.models
    .list()
    .then((l) => l.models)
    .catch(() => undefined);
  const server = new McpServer(
    { name: options.name ?? 'mediagen', version: VERSION },
    {
      // `logging`: clients may set the level (the SDK answers `logging/setLevel`); the server logs nothing of the key.
      capabilities: { tools: {}, resources: {}, logging: {} },
      instructions:
        'MediaGen: generate images, video, audio and text. list_models/describe_model for params and prices, estimate for the exact cost, generate (idempotent: repeat it freely, it never bills twice), then wait or get. credits shows the balance and this session spend cap.',
    },
  );
  const ctx: SessionContext = {
    server,
    options,
    client: options.client,
    ledger: options.ledger,
    owner: session.owner,
    sessionId: session.sessionId,
    spend: new SpendCap(options.spendCapCredits),
    models,
  };
  registerModelTools(ctx);
  registerAccountTools(ctx);
  registerGenerateTool(ctx);
  registerFollowTools(ctx);
  registerGenerationResources(ctx);
  return server;
}

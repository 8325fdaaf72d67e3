/**
 * `@mediagen/mcp`: the MediaGen service for agents, over the Model Context Protocol, on the
 * generation ledger: a retried tool call never bills twice, results survive a restart, and each
 * session has a spend cap. `createMcpHandler` mounts it over Streamable HTTP beside an app's
 * one handler; the `mediagen-mcp` bin serves it over stdio.
 */
export type { MediaGenMcpOptions } from './context';
export { createMediaGenMcpServer, type McpSessionInit } from './create-server';
export { SpendCapExceededError } from './errors';
export { createMcpHandler, type McpHandler, type McpHandlerOptions } from './http-handler';
export { canonicalJson, generateKey } from './keys';
export { describeModel, modelParamsSchema } from './model-schema';
export type { SpendReport } from './spend-cap';

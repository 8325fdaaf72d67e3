/**
 * `@mediagen/core/node`: the one step every Node framework needs (tRPC's node-http layer is the
 * model): a Node request in as a Web `Request`, a Web `Response` written back, raw-body capture
 * and size limits. No `node:` import, so bundling it for another runtime does no harm.
 */
export { type BodyLimit, parseLimit } from './node/limit';
export { type BodySource, findRawBody } from './node/raw-body';
export { sendWebResponse } from './node/send-response';
export type { NodeRequestLike, NodeResponseLike } from './node/types';
export { type ToWebRequestOptions, toWebRequest } from './node/web-request';
export { createNodeWebhookHandler, type NodeWebhookContext, type NodeWebhookHandlerOptions } from './node/webhook';
export { isParsedBody, isRawBody, RAW_BODY_HELP, type RawBody } from './webhooks/raw-body';
